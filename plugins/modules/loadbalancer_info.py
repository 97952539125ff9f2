#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: loadbalancer_info
short_description: List Anexia Engine load balancers, optionally with every object configured on them
version_added: 0.1.0
description:
  - Returns load balancers by identifier, by name, or all of them, with their deployment state.
  - With O(tree=true), each comes with every object on it, each under its parent, as the collection's object
    types nest - backends with their servers, ACLs and rules, frontends with their binds, ACLs and rules.
  - In the tree, parents and links (a frontend's C(default_backend), a server's C(backend)) show by name, as the
    modules' diffs show them; the enclosing object carries the identifier. Every object of the tree shows its
    tags and its owner, named by its owner tag C(<tag_prefix>-svc=<owner>); a bind, server, ACL or rule carrying
    no owner tag is its parent's owner's (ownership by containment).
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
      - Also return every object on each load balancer, under its parent (see RV(load_balancers)).
      - Costs one listing per parent and object type, one read per object and one read of its tags.
    type: bool
    default: false
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.owner_tag
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

- name: The ACLs of lb1's frontend 80.web, in the order HAProxy evaluates them
  ansible.builtin.debug:
    msg: "{{ (lb1.load_balancers[0].frontends | selectattr('name', 'eq', '80.web') | first).acls }}"
"""

RETURN = r"""
load_balancers:
  description:
    - The load balancers found, sorted by name.
    - With O(tree=true), each object of the tree has the fields the object's own C(<type>_info) module returns
      (its parent and links by name instead of identifier), its C(tags) and C(owner), and one list per object
      type it can hold. Lists are sorted by C(index) where the type has one (ACLs, rules), then by name.
  returned: always
  type: list
  elements: dict
  sample:
    - id: 0f4b5d2e8a9c4f6b8e1d2c3b4a596877
      name: lb1
      ip_address: 192.0.2.10
      state: Deployed
      backends:
        - id: 1a2b3c4d5e6f40718293a4b5c6d7e8f9
          name: 80.web
          load_balancer: lb1
          mode: tcp
          health_check: null
          server_timeout: null
          state: Deployed
          tags: [anxlb-svc=web]
          owner: web
          servers:
            - id: 2b3c4d5e6f7041829304b5c6d7e8f9a0
              name: n1.80.web
              backend: 80.web
              ip: 198.51.100.2
              port: 8080
              check: enabled
              state: Deployed
              tags: []
              owner: web
          acls: []
          rules: []
      frontends:
        - id: 3c4d5e6f708142939405c6d7e8f9a0b1
          name: 80.web
          load_balancer: lb1
          mode: tcp
          default_backend: 80.web
          client_timeout: null
          state: Deployed
          tags: [anxlb-svc=web]
          owner: web
          binds:
            - id: 4d5e6f70819243a4a516d7e8f9a0b1c2
              name: v4.80.web
              frontend: 80.web
              address: 192.0.2.10
              port: 80
              ssl: false
              ssl_certificate_path: null
              state: Deployed
              tags: []
              owner: web
          acls:
            - id: 5e6f708192a344b5b627e8f9a0b1c2d3
              name: office
              frontend: 80.web
              backend: null
              parent_type: frontend
              criterion: src
              value: 10.0.0.0/8
              index: 0
              state: Deployed
              tags: []
              owner: web
          rules:
            - id: 6f708192a3b445c6c738f9a0b1c2d3e4
              name: accept-office
              frontend: 80.web
              backend: null
              parent_type: frontend
              index: 0
              condition: if
              condition_test: office
              type: connection
              action: accept
              redirection_type: null
              redirection_code: null
              redirection_value: null
              rule_type: null
              state: Deployed
              tags: []
              owner: web
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
      description:
        - Backends, each with C(servers), C(acls) and C(rules) lists, and C(tags) and C(owner).
        - C(load_balancer) is the load balancer's name.
      type: list
      elements: dict
      returned: when O(tree=true)
    frontends:
      description:
        - Frontends, each with C(binds), C(acls) and C(rules) lists, and C(tags) and C(owner).
        - C(load_balancer) and C(default_backend) are names.
      type: list
      elements: dict
      returned: when O(tree=true)
"""

from ..module_utils._lbaas._lookup import get_by_id
from ..module_utils._lbaas._views import details, render, tree
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._model._group_options import with_ignored_wait
from ..module_utils._model._names import check_tag_prefix
from ..module_utils._model._request import TAG_PREFIX


class LoadBalancerInfo(AnxcloudModule):
    argument_spec = with_ignored_wait(dict(
        id=dict(type="str"),
        name=dict(type="str"),
        tree=dict(type="bool", default=False),
        tag_prefix=dict(TAG_PREFIX),
    ))
    module_kwargs = dict(mutually_exclusive=[("id", "name")])

    def run(self):
        p = self.params
        check_tag_prefix(p["tag_prefix"])
        if p["id"]:
            lbs = [get_by_id(self.client, "loadbalancer", p["id"], "id")]
        else:
            ids = [i["identifier"] for i in self.client.lbaas_list("loadbalancer")
                   if p["name"] is None or i.get("name") == p["name"]]
            lbs = details(self.client, "loadbalancer", ids)
        lbs.sort(key=lambda lb: (lb["name"] or "", lb["id"]))
        out = [render(lb) for lb in lbs]
        if p["tree"]:
            for lb, trees in zip(out, self.client.map(lambda lb: tree(self.client, lb, p["tag_prefix"]), lbs)):
                lb.update(trees)
        self.result["load_balancers"] = out


def main():
    LoadBalancerInfo.main()


if __name__ == "__main__":
    main()
