#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: frontend_info
short_description: List frontends of an Anexia Engine load balancer
version_added: 0.1.0
description:
  - Returns the frontends of one load balancer, the ones carrying an owner's tag, or one by identifier.
  - One module per object type (rather than one with a C(type) option) so that each documents its own
    options and return values and reads like the module that manages the same type.
author:
  - anxcloud.lbaas contributors (@anxcloud)
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.frontend_info
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored
  - anxcloud.lbaas.attributes.info_module
"""

EXAMPLES = r"""
- name: The frontends of one load balancer
  anxcloud.lbaas.frontend_info:
    load_balancer: lb1
  register: found

- name: Everything of type frontend that service shop owns
  anxcloud.lbaas.frontend_info:
    owner: shop
  register: owned
"""

RETURN = r"""
frontends:
  description: The frontends found, sorted by name.
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
    load_balancer:
      description: Identifier of the load balancer.
      type: str
    mode:
      description: Proxy mode.
      type: str
    default_backend:
      description: Identifier of the default backend.
      type: str
    client_timeout:
      description: Client timeout.
      type: str
    enabled:
      description: Whether the frontend is in service (the Engine's C(enable)); V(false) is taken out of service (disabled).
      type: bool
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
from ..module_utils._model._kinds import FRONTEND


class FrontendInfo(LbaasInfoModule):
    kind = FRONTEND
    argument_spec = info_argument_spec(dict(load_balancer=dict(type="str")))


def main():
    FrontendInfo.main()


if __name__ == "__main__":
    main()
