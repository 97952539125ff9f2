#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: bind_info
short_description: List binds of an Anexia Engine load balancer
version_added: 0.1.0
description:
  - Returns the binds of one frontend, the ones carrying an owner's tag, or one by identifier.
  - One module per object type (rather than one with a C(type) option) so that each documents its own
    options and return values and reads like the module that manages the same type.
author:
  - anxcloud.lbaas contributors (@anxcloud)
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.bind_info
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored
  - anxcloud.lbaas.attributes.info_module
"""

EXAMPLES = r"""
- name: The binds of one frontend
  anxcloud.lbaas.bind_info:
    frontend: 443.shop
  register: found

- name: Everything of type bind that service shop owns
  anxcloud.lbaas.bind_info:
    owner: shop
  register: owned
"""

RETURN = r"""
binds:
  description: The binds found, sorted by name.
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
from ..module_utils._model._kinds import BIND


class BindInfo(LbaasInfoModule):
    kind = BIND
    scope_option = "load_balancer"
    argument_spec = info_argument_spec(dict(frontend=dict(type="str"), load_balancer=dict(type="str")))


def main():
    BindInfo.main()


if __name__ == "__main__":
    main()
