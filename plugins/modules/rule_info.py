#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: rule_info
short_description: List rules of an Anexia Engine load balancer
version_added: 0.1.0
description:
  - Returns the rules of one frontend or backend, the ones carrying an owner's tag, or one by identifier, in the order
    the Engine applies them (by parent, then C(index)).
  - One module per object type (rather than one with a C(type) option) so that each documents its own
    options and return values and reads like the module that manages the same type.
author:
  - anxcloud.lbaas contributors (@anxcloud)
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.rule_info
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored
  - anxcloud.lbaas.attributes.info_module
seealso:
  - module: anxcloud.lbaas.rule
"""

EXAMPLES = r"""
- name: The rules of one frontend
  anxcloud.lbaas.rule_info:
    load_balancer: lb1
    frontend: 443.shop
  register: found

- name: Everything of type rule that service shop owns
  anxcloud.lbaas.rule_info:
    owner: shop
  register: owned
"""

RETURN = r"""
rules:
  description: The rules found, by parent, then index, then name.
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
      description: V(if), or what the Engine holds.
      type: str
    condition_test:
      description: Name of the ACL that decides.
      type: str
    type:
      description: V(connection), or what the Engine holds.
      type: str
    action:
      description: V(accept), V(reject), or what the Engine holds.
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

from ..module_utils._lbaas._parent_typed_info import ParentTypedInfo
from ..module_utils._model._kinds import RULE


class RuleInfo(ParentTypedInfo):
    generic = kind = RULE


def main():
    RuleInfo.main()


if __name__ == "__main__":
    main()
