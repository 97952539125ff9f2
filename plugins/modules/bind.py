#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: bind
short_description: Manage a bind (listen address and port) of an Anexia Engine frontend
version_added: 0.1.0
description:
  - Create, update or delete one LBaaS bind, identified by its name inside its frontend (or by O(id)).
  - Only the options you set are compared and changed; the others keep whatever the Engine has.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  address:
    description:
      - The address to listen on. IPv6 addresses are compared in their canonical form.
      - The unspecified addresses (V(0.0.0.0), V(::)) and IPv4-mapped IPv6 addresses (V(::ffff:a.b.c.d); write the
        IPv4 address) are refused.
      - An address in no IPAM prefix of the account is taken with a warning (most likely a typo, as the Engine routes
        only its prefixes' addresses to a load balancer). The check lists the account's prefixes, one more
        request, only when the task creates the bind or changes its address.
    type: str
  port:
    description:
      - The port to listen on.
    type: int
  ssl:
    description:
      - Whether the bind terminates TLS.
    type: bool
  ssl_certificate_path:
    description:
      - Path of the certificate on the load balancer, when O(ssl=true).
    type: str
  owner:
    description:
      - Owner (service id) of the bind. A bind belongs to its frontend's owner (ownership by containment, see
        C(docs/how-reconciliation-works.md)). The frontend carries the owner tag C(<tag_prefix>-svc=<owner>), the bind
        none. With O(owner) the frontend must carry that tag (give the frontend the same O(owner) first), else the task
        fails naming the frontend; no tag is written on the bind.
      - A bind that carries this owner's tag itself (written by earlier versions) stays this owner's; the tag is kept.
        A bind carrying another owner tag is never changed or deleted, also inside a frontend of this owner.
      - With O(state=absent), the bind is deleted when its frontend carries this owner's tag (or the bind itself does).
      - Every owner tag C(<anything>-svc=<owner>), of any O(tag_prefix), is an owner's. Without O(owner) the module
        changes or deletes only a bind that carries no owner tag at all; a bind carrying one is refused, naming the tag and
        the O(owner) and O(tag_prefix) that address it as its owner.
      - A bind belongs to its frontend's owner, so none is created, changed or deleted in a frontend carrying an owner tag
        other than this task's.
    type: str
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.bind
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
"""

EXAMPLES = r"""
- name: Listen on 198.51.100.10:443
  anxcloud.lbaas.bind:
    load_balancer: lb1
    frontend: 443.shop
    name: v4.443.shop
    address: 198.51.100.10
    port: 443
    owner: shop
"""

RETURN = r"""
bind:
  description: The bind after the task (predicted in check mode); empty when absent.
  returned: always
  type: dict
  contains:
    id:
      description: Identifier; a placeholder C((new bind NAME)) for one check mode would create.
      type: str
      sample: 285b954fdf2a449c8fdae01cc6074025
    name:
      description: Name.
      type: str
    frontend:
      description: Identifier of the frontend.
      type: str
    address:
      description: Listen address.
      type: str
    port:
      description: Listen port.
      type: int
    ssl:
      description: Whether TLS is terminated.
      type: bool
    ssl_certificate_path:
      description: Certificate path.
      type: str
    owner:
      description: The owner named by the bind's own owner tag, else by its frontend's (ownership by containment), when O(owner) is set.
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

from ..module_utils._addresses._outside import OutsidePrefixes
from ..module_utils._lbaas._object_module import (
    LbaasObjectModule, check_port, field_options, object_argument_spec)
from ..module_utils._model._kinds import BIND, normalize_ip, one_host_ip


class BindModule(LbaasObjectModule):
    kind = BIND
    scope_option = "load_balancer"
    argument_spec = object_argument_spec(
        parents=dict(frontend=dict(type="str"), load_balancer=dict(type="str")),
        fields=field_options(BIND),   # the declaration's fields (_model._kinds)
    )

    def __init__(self, module):
        super().__init__(module)
        self.outside = OutsidePrefixes(self.client, module.warn, "address")

    def validate(self):
        check_port(self.params)
        one_host_ip(normalize_ip(self.params["address"], "address"), "address")

    def plan(self, state):
        # An address in no IPAM prefix of the account is warned about when the bind is created or moved to it.
        return self.outside.check(super().plan(state))


def main():
    BindModule.main()


if __name__ == "__main__":
    main()
