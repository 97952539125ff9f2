#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: server_info
short_description: List servers of an Anexia Engine load balancer
version_added: 0.1.0
description:
  - Returns the servers of one backend, the ones carrying an owner's tag, or one by identifier.
  - One module per object type (rather than one with a C(type) option) so that each documents its own
    options and return values and reads like the module that manages the same type.
author:
  - anxcloud.lbaas contributors (@anxcloud)
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.server_info
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored
  - anxcloud.lbaas.attributes.info_module
"""

EXAMPLES = r"""
- name: The servers of one backend
  anxcloud.lbaas.server_info:
    backend: 443.shop
  register: found

- name: Everything of type server that service shop owns
  anxcloud.lbaas.server_info:
    owner: shop
  register: owned
"""

RETURN = r"""
servers:
  description: The servers found, sorted by name.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Identifier.
      type: str
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
    state:
      description: Engine deployment state.
      type: str
    owner:
      description: The owner named by the owner tag.
      type: str
      returned: when O(owner) is set
    tags:
      description: All tags of the object.
      type: list
      elements: str
      returned: when O(owner) is set
"""

from ..module_utils._lbaas._info_module import LbaasInfoModule, info_argument_spec
from ..module_utils._model._kinds import SERVER


class ServerInfo(LbaasInfoModule):
    kind = SERVER
    scope_option = "load_balancer"
    argument_spec = info_argument_spec(dict(backend=dict(type="str"), load_balancer=dict(type="str")))


def main():
    ServerInfo.main()


if __name__ == "__main__":
    main()
