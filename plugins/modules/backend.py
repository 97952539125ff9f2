#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: backend
short_description: Manage a backend of an Anexia Engine load balancer
version_added: 0.1.0
description:
  - Create, update or delete one LBaaS backend, identified by its name inside its load balancer (or by O(id)).
  - Only the options you set are compared and changed; the others keep whatever the Engine has.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  health_check:
    description:
      - 'The backend''s health check: V({type: http, method: GET, uri: /healthz}) (C(method) defaults to V(GET),
        C(uri) to V(/)) or V({type: tcp}).'
      - 'It is sent as the Engine''s fragment form, V("httpchk": { "method": "GET", "uri": "/healthz" }) and
        V("adv_check": "tcp-check"). A string in that form is also accepted and sent verbatim, for example
        V("adv_check": "ssl-hello-chk"); a HAProxy directive such as C(option httpchk GET /healthz) is refused.'
      - Left out, it is neither compared nor changed.
    type: raw
  server_timeout:
    description:
      - Server timeout, milliseconds (V(30000)) or an HAProxy-style duration (V(30s), V(500ms), V(5m), V(1h)).
      - A bare number below 1000 is accepted with a warning, as it is most likely meant as seconds.
      - At most 2147483647 milliseconds (about 24 days), the longest timeout HAProxy takes.
    type: raw
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.lbaas_object.backend
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
- name: A TCP backend with a TCP health check
  anxcloud.lbaas.backend:
    load_balancer: lb1
    name: 443.shop
    mode: tcp
    health_check: {type: tcp}
    owner: shop

- name: An HTTP backend checked with GET /healthz
  anxcloud.lbaas.backend:
    load_balancer: lb1
    name: 80.shop
    mode: http
    health_check: {type: http, method: GET, uri: /healthz}
    owner: shop

- name: Remove it again
  anxcloud.lbaas.backend:
    load_balancer: lb1
    name: 443.shop
    state: absent
"""

RETURN = r"""
backend:
  description: The backend after the task (predicted in check mode); empty when absent.
  returned: always
  type: dict
  contains:
    id:
      description: Identifier; a placeholder C((new backend NAME)) for one check mode would create.
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
    health_check:
      description: Health check fragment.
      type: str
    server_timeout:
      description: Server timeout in milliseconds.
      type: int
    enabled:
      description: Whether the backend is in service (the Engine's C(enable)); V(false) is taken out of service (disabled).
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

from ..module_utils._model._health_check import render
from ..module_utils._lbaas._object_module import (
    LbaasObjectModule, field_options, object_argument_spec)
from ..module_utils._model._kinds import BACKEND


class BackendModule(LbaasObjectModule):
    kind = BACKEND
    argument_spec = object_argument_spec(
        parents=dict(load_balancer=dict(type="str")),
        fields=field_options(BACKEND),   # the declaration's fields (_model._kinds)
    )
    durations = ("server_timeout",)
    renderers = {"health_check": render}


def main():
    BackendModule.main()


if __name__ == "__main__":
    main()
