#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: rule
short_description: Manage a rule (accept or reject connections matching an ACL) of an Anexia Engine frontend or backend
version_added: 0.1.0
description:
  - Create, update or delete one LBaaS rule, identified by its name inside its frontend or backend (or by O(id)).
  - A connection rule is HAProxy's C(tcp-request connection <action> if <acl>) in its frontend; rules apply in
    O(index) order and the first that matches decides.
  - Only the options you set are compared and changed; the others keep whatever the Engine has.
  - Known from the Engine's own client (go-anxcloud C(pkg/apis/lbaas/v1)) are O(condition=if), O(type=connection) and
    O(action) V(accept) or V(reject). O(condition=unless) is refused; an allow-list is V(accept) rules for the allowed
    networks followed by a V(reject) rule of an ACL matching every source (V(0.0.0.0/0), V(::/0)). Other values, and
    O(redirection_type), O(redirection_code), O(redirection_value) and O(rule_type), for which no values are
    published, are passed to the Engine as given, which may refuse them.
  - The rule names an ACL of its own frontend or backend (O(condition_test)); a task naming an ACL that does not exist
    there (and, in check mode, that no earlier task of the play would create) fails before any write.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  backend:
    description:
      - The backend the rule belongs to, by name or identifier. Its C(parent_type) is then V(backend).
      - Connection rules belong to frontends (HAProxy's C(tcp-request connection)); the Engine may refuse one in a
        backend.
    type: str
  index:
    description:
      - The position of the rule among the rules of its frontend or backend; they apply in this order.
      - V(0) is allowed. A new rule without O(index) gets V(0); an existing one keeps its index unless O(index) is set.
    type: int
  condition:
    description:
      - How the ACL decides. V(if) (the rule applies when the ACL matches) is the value known from the Engine's own
        client and what a new rule gets when O(condition) is not set.
      - V(unless) is refused; any other value is passed through.
    type: str
  condition_test:
    description:
      - The name of the ACL (M(anxcloud.lbaas.acl)) of the same frontend or backend that decides.
      - Required to create a rule.
    type: str
  type:
    description:
      - The kind of rule. V(connection) (decided when the connection is accepted, before any data) is the value known
        from the Engine's own client and what a new rule gets when O(type) is not set; any other value is passed
        through.
    type: str
  action:
    description:
      - What happens to a matching connection. V(accept) and V(reject) are the values known from the Engine's own
        client; any other value is passed through.
      - Required to create a rule.
    type: str
  redirection_type:
    description:
      - Passed through to the Engine; no values are published.
    type: str
  redirection_code:
    description:
      - Passed through to the Engine; no values are published.
    type: str
  redirection_value:
    description:
      - Passed through to the Engine; no values are published.
    type: str
  rule_type:
    description:
      - Passed through to the Engine; no values are published.
    type: str
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.rule
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
  - module: anxcloud.lbaas.acl
  - module: anxcloud.lbaas.rule_info
"""

EXAMPLES = r"""
# Frontend 443.shop admits only 10.0.0.0/8: accept from it, then reject everyone else (one value per ACL).
- name: The ACLs
  anxcloud.lbaas.acl:
    load_balancer: lb1
    frontend: 443.shop
    name: "{{ item.name }}"
    criterion: src
    value: "{{ item.value }}"
    index: "{{ item.index }}"
    owner: shop
  loop:
    - {name: office, value: 10.0.0.0/8, index: 0}
    - {name: any-v4, value: 0.0.0.0/0, index: 1}
    - {name: any-v6, value: "::/0", index: 2}

- name: The rules, in order
  anxcloud.lbaas.rule:
    load_balancer: lb1
    frontend: 443.shop
    name: "{{ item.name }}"
    condition_test: "{{ item.acl }}"
    action: "{{ item.action }}"
    index: "{{ item.index }}"
    owner: shop
  loop:
    - {name: accept-office, acl: office, action: accept, index: 0}
    - {name: reject-v4, acl: any-v4, action: reject, index: 1}
    - {name: reject-v6, acl: any-v6, action: reject, index: 2}
"""

RETURN = r"""
rule:
  description: The rule after the task (predicted in check mode); empty when absent.
  returned: always
  type: dict
  contains:
    id:
      description: Identifier; a placeholder C((new rule NAME)) for one check mode would create.
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
    index:
      description: Position among the rules of the parent.
      type: int
    condition:
      description: V(if), or the value passed through.
      type: str
    condition_test:
      description: Name of the ACL that decides.
      type: str
    type:
      description: V(connection), or the value passed through.
      type: str
    action:
      description: V(accept), V(reject), or the value passed through.
      type: str
    redirection_type:
      description: As the Engine holds it.
      type: str
    redirection_code:
      description: As the Engine holds it.
      type: str
    redirection_value:
      description: As the Engine holds it.
      type: str
    rule_type:
      description: As the Engine holds it.
      type: str
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

from ..module_utils._lbaas._parent_typed import RuleModule


def main():
    RuleModule.main()


if __name__ == "__main__":
    main()
