#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: acl
short_description: Manage an ACL (a named match on connections) of an Anexia Engine frontend or backend
version_added: 0.1.0
description:
  - Create, update or delete one LBaaS ACL, identified by its name inside its frontend or backend (or by O(id)).
  - An ACL is HAProxy's C(acl <name> <criterion> <value>) line in its frontend or backend; rules
    (M(anxcloud.lbaas.rule)) name it to accept or reject connections.
  - Only the options you set are compared and changed; the others keep whatever the Engine has.
  - Known from the Engine's own client (go-anxcloud C(pkg/apis/lbaas/v1)) are the criteria V(src) (the client's
    source address or network) and V(dst_port) (the port connected to). Their values are checked and compared in
    one form; any other criterion and its value are passed to the Engine as given, which may refuse them.
  - Rules name an ACL by its name, so an ACL a rule names is not renamed or deleted while the rule names it (the Engine
    refuses, and so does the module, before any write). To rename one, create the ACL under its new name, point the
    rules at it, then delete the old one (see the examples).
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  name:
    description:
      - Name of the ACL within its frontend or backend. Rules name the ACL by it (M(anxcloud.lbaas.rule) O(anxcloud.lbaas.rule#module:condition_test)).
      - With O(id), a different name renames the ACL, unless a rule names it.
    type: str
  criterion:
    description:
      - What the ACL matches on. V(src) and V(dst_port) are the criteria known from the Engine's own client; any other
        text is passed to the Engine unchecked.
      - Required to create an ACL; given together with O(value).
    type: str
  value:
    description:
      - What the criterion is compared with; one value per ACL.
      - For V(src), an IPv4 or IPv6 address or network, like V(10.0.0.0/8) or V(2001:db8::/32); compared in netaddr's
        form (one address as V(/32) or V(/128)). A network with host bits set (V(10.0.0.1/8)) is refused.
      - For V(dst_port), a port from 1 to 65535.
      - For any other criterion, passed as given.
    type: str
  index:
    description:
      - The position of the ACL among the ACLs of its frontend or backend; the Engine writes them in this order.
      - V(0) is allowed. A new ACL without O(index) gets V(0); an existing one keeps its index unless O(index) is set.
    type: int
  state:
    description:
      - Whether the ACL should exist.
      - V(absent) is ok and unchanged when the ACL, its parent or its load balancer does not exist, so a teardown
        can run twice. An ACL a rule names is not deleted; delete or change the rule first.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.acl
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.wait
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.predictions
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
seealso:
  - module: anxcloud.lbaas.rule
  - module: anxcloud.lbaas.acl_info
"""

EXAMPLES = r"""
- name: Match clients from 10.0.0.0/8 on frontend 443.shop
  anxcloud.lbaas.acl:
    load_balancer: lb1
    frontend: 443.shop
    name: office
    criterion: src
    value: 10.0.0.0/8
    index: 0
    owner: shop

- name: Rename ACL office to office-v4 - 1. the ACL under its new name
  anxcloud.lbaas.acl:
    load_balancer: lb1
    frontend: 443.shop
    name: office-v4
    criterion: src
    value: 10.0.0.0/8
    owner: shop

- name: Rename ACL office to office-v4 - 2. the rules name it
  anxcloud.lbaas.rule:
    load_balancer: lb1
    frontend: 443.shop
    name: accept-office
    condition_test: office-v4
    owner: shop

- name: Rename ACL office to office-v4 - 3. the old name goes
  anxcloud.lbaas.acl:
    load_balancer: lb1
    frontend: 443.shop
    name: office
    owner: shop
    state: absent
"""

RETURN = r"""
acl:
  description: The ACL after the task (predicted in check mode); empty when absent.
  returned: always
  type: dict
  contains:
    id:
      description: Identifier; a placeholder C((new acl NAME)) for one check mode would create.
      type: str
      sample: 285b954fdf2a449c8fdae01cc6074025
    name:
      description: Name.
      type: str
    parent_type:
      description: V(frontend) or V(backend).
      type: str
    frontend:
      description: Identifier of the frontend, when the parent is one.
      type: str
    backend:
      description: Identifier of the backend, when the parent is one.
      type: str
    criterion:
      description: What the ACL matches on.
      type: str
      sample: src
    value:
      description: What it is compared with (for V(src) a network in netaddr's form).
      type: str
      sample: 10.0.0.0/8
    index:
      description: Position among the ACLs of the parent.
      type: int
    owner:
      description: The owner named by the owner tag, when O(owner) is set.
      type: str
      returned: when O(owner) is set
    state:
      description: Engine deployment state (C(Deployed), C(NewlyCreated), C(Updating), C(Updated), C(DeploymentError)).
      type: str
      sample: Deployed
plan:
  description: The actions the task decided on, with the fields that differ and why.
  returned: always
  type: list
  elements: dict
"""

from ..module_utils._lbaas._parent_typed import AclModule


def main():
    AclModule.main()


if __name__ == "__main__":
    main()
