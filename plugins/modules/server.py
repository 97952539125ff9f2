#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: server
short_description: Manage a server (target address and port) of an Anexia Engine backend
version_added: 0.1.0
description:
  - Create, update or delete one LBaaS server, identified by its name inside its backend (or by O(id)).
  - Only the options you set are compared and changed; the others keep whatever the Engine has.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  address:
    description:
      - The address traffic is sent to (the Engine's field C(ip)); the same name as O(anxcloud.lbaas.service#module:servers[].address).
      - The unspecified addresses (V(0.0.0.0), V(::)) and IPv4-mapped IPv6 addresses are refused.
    type: str
    aliases: [ip]
  port:
    description:
      - The port traffic is sent to.
    type: int
  check:
    description:
      - Whether the backend's health check runs against this server, V(enabled) or V(disabled); a boolean is taken
        too (V(true) is V(enabled), V(false) is V(disabled)).
    type: raw
  owner:
    description:
      - Owner (service id) of the server. A server belongs to its backend's owner (ownership by containment, see
        C(docs/how-reconciliation-works.md)). The backend carries the owner tag C(<tag_prefix>-svc=<owner>), the server
        none. With O(owner) the backend must carry that tag (give the backend the same O(owner) first), else the task
        fails naming the backend; no tag is written on the server.
      - A server that carries this owner's tag itself (written by earlier versions) stays this owner's; the tag is kept.
        A server carrying another owner tag is never changed or deleted, also inside a backend of this owner.
      - With O(state=absent), the server is deleted when its backend carries this owner's tag (or the server itself does).
      - Every owner tag C(<anything>-svc=<owner>), of any O(tag_prefix), is an owner's. Without O(owner) the module
        changes or deletes only a server that carries no owner tag at all; a server carrying one is refused, naming the tag and
        the O(owner) and O(tag_prefix) that address it as its owner.
      - A server belongs to its backend's owner, so none is created, changed or deleted in a backend carrying an owner tag
        other than this task's.
    type: str
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.server
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
- name: Node web1 serves 443.shop on port 30443
  anxcloud.lbaas.server:
    load_balancer: lb1
    backend: 443.shop
    name: web1.443.shop
    address: 192.0.2.11
    port: 30443
    check: enabled
    owner: shop
"""

RETURN = r"""
server:
  description: The server after the task (predicted in check mode); empty when absent.
  returned: always
  type: dict
  contains:
    id:
      description: Identifier; a placeholder C((new server NAME)) for one check mode would create.
      type: str
      sample: 285b954fdf2a449c8fdae01cc6074025
    name:
      description: Name.
      type: str
    backend:
      description: Identifier of the backend.
      type: str
    ip:
      description: Target address.
      type: str
    port:
      description: Target port.
      type: int
    check:
      description: Health check C(enabled) or C(disabled).
      type: str
    owner:
      description: The owner named by the server's own owner tag, else by its backend's (ownership by containment), when O(owner) is set.
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

from ..module_utils._lbaas._object_module import (
    LbaasObjectModule, check_port, field_options, object_argument_spec)
from ..module_utils._model._health_check import server_check
from ..module_utils._model._kinds import SERVER, normalize_ip, one_host_ip


class ServerModule(LbaasObjectModule):
    kind = SERVER
    scope_option = "load_balancer"
    renderers = {"check": server_check}
    argument_spec = object_argument_spec(
        parents=dict(backend=dict(type="str"), load_balancer=dict(type="str")),
        fields=field_options(SERVER),   # the declaration's fields (_model._kinds)
    )

    def validate(self):
        check_port(self.params)
        one_host_ip(normalize_ip(self.params["address"], "address"), "address")


def main():
    ServerModule.main()


if __name__ == "__main__":
    main()
