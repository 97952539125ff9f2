#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: frontend
short_description: Manage a frontend of an Anexia Engine load balancer
version_added: 0.1.0
description:
  - Create, update or delete one LBaaS frontend, identified by its name inside its load balancer (or by O(id)).
  - Only the options you set are compared and changed; the others keep whatever the Engine has.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  default_backend:
    description:
      - The backend traffic goes to, by name (on the same load balancer) or identifier.
    type: str
  client_timeout:
    description:
      - Client timeout, milliseconds (V(30000)) or an HAProxy-style duration (V(30s), V(500ms), V(5m), V(1h));
        sent to the Engine as a string of milliseconds.
      - A bare number below 1000 is accepted with a warning, as it is most likely meant as seconds.
      - At most 2147483647 milliseconds (about 24 days), the longest timeout HAProxy takes.
    type: raw
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.frontend
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
- name: A TCP frontend sending traffic to backend 443.shop
  anxcloud.lbaas.frontend:
    load_balancer: lb1
    name: 443.shop
    mode: tcp
    default_backend: 443.shop
    owner: shop

- name: Maintenance - take the frontend out of service (its binds stop listening), everything else stays
  anxcloud.lbaas.frontend:
    load_balancer: lb1
    name: 443.shop
    enabled: false
    owner: shop
"""

RETURN = r"""
frontend:
  description: The frontend after the task (predicted in check mode); empty when absent.
  returned: always
  type: dict
  contains:
    id:
      description: Identifier; a placeholder C((new frontend NAME)) for one check mode would create.
      type: str
      sample: 285b954fdf2a449c8fdae01cc6074025
    name:
      description: Name.
      type: str
    load_balancer:
      description: Identifier of the load balancer.
      type: str
    mode:
      description: Proxy mode.
      type: str
      sample: tcp
    default_backend:
      description: Identifier of the default backend.
      type: str
    client_timeout:
      description: Client timeout.
      type: str
    enabled:
      description: Whether the frontend is in service (the Engine's C(enable)); V(false) is taken out of service (disabled).
      type: bool
      sample: true
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

from ..module_utils._lbaas._object_module import (
    LbaasObjectModule, field_options, object_argument_spec)
from ..module_utils._model._kinds import FRONTEND


class FrontendModule(LbaasObjectModule):
    kind = FRONTEND

    def resolve_links(self, parent):
        ref = self.params["default_backend"]
        if ref is None or parent is None:
            return {}
        return {"default_backend": self.lookup("backend", ref, "default_backend", parent=parent)["id"]}

    argument_spec = object_argument_spec(
        parents=dict(load_balancer=dict(type="str")),
        fields=field_options(FRONTEND),   # the declaration's fields (_model._kinds)
    )
    durations = ("client_timeout",)


def main():
    FrontendModule.main()


if __name__ == "__main__":
    main()
