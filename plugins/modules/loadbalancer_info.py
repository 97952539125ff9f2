#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: loadbalancer_info
short_description: List Anexia Engine load balancers, optionally with their frontends, backends, binds and servers
version_added: 0.1.0
description:
  - Returns load balancers by identifier, by name, or all of them, with their deployment state.
  - With O(tree=true), each comes with its backends (and their servers) and frontends (and their binds).
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  id:
    description:
      - Identifier of one load balancer.
    type: str
  name:
    description:
      - Name of the load balancers to return.
    type: str
  tree:
    description:
      - Also return each load balancer's backends with servers and frontends with binds.
    type: bool
    default: false
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored
  - anxcloud.lbaas.attributes.info_module
"""

EXAMPLES = r"""
- name: All load balancers
  anxcloud.lbaas.loadbalancer_info:
  register: all_lbs

- name: One load balancer with everything configured on it
  anxcloud.lbaas.loadbalancer_info:
    name: lb1
    tree: true
  register: lb1
"""

RETURN = r"""
load_balancers:
  description: The load balancers found, sorted by name.
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
    ip_address:
      description: Address of the load balancer's management API.
      type: str
    state:
      description: Engine state title.
      type: str
    backends:
      description: Backends, each with a C(servers) list (when O(tree=true)).
      type: list
      elements: dict
      returned: when O(tree=true)
    frontends:
      description: Frontends, each with a C(binds) list (when O(tree=true)).
      type: list
      elements: dict
      returned: when O(tree=true)
"""

from ansible_collections.anxcloud.lbaas.plugins.module_utils._module._base import AnxcloudModule
from ansible_collections.anxcloud.lbaas.plugins.module_utils._module._group_options import with_ignored_wait
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._views import details, render, tree
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._lookup import get_by_id


class LoadBalancerInfo(AnxcloudModule):
    argument_spec = with_ignored_wait(dict(
        id=dict(type="str"),
        name=dict(type="str"),
        tree=dict(type="bool", default=False),
    ))
    module_kwargs = dict(mutually_exclusive=[("id", "name")])

    def run(self):
        p = self.params
        if p["id"]:
            lbs = [get_by_id(self.client, "loadbalancer", p["id"], "id")]
        else:
            ids = [i["identifier"] for i in self.client.lbaas_list("loadbalancer")
                   if p["name"] is None or i.get("name") == p["name"]]
            lbs = details(self.client, "loadbalancer", ids)
        lbs.sort(key=lambda lb: (lb["name"] or "", lb["id"]))
        out = [render(lb) for lb in lbs]
        if p["tree"]:
            for lb, trees in zip(out, self.client.map(lambda lb: tree(self.client, lb["id"]), lbs)):
                lb.update(trees)
        self.result["load_balancers"] = out


def main():
    LoadBalancerInfo.main()


if __name__ == "__main__":
    main()
