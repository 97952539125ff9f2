#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: service_info
short_description: List the services the collection manages, with their load balancers, addresses and state
version_added: 0.1.0
description:
  - The inventory to check before M(anxcloud.lbaas.gc) collects anything. Services are found as gc finds owners,
    by the account's owner tags C(<tag_prefix>-svc=<name>) and the markers C(<tag_prefix>-reconciled.<name>=...) on
    load balancers, and each is read as M(anxcloud.lbaas.service) reads it, on every load balancer its owner tag is
    found on.
  - Per service, its load balancers, the addresses and ports its binds listen on, its pool addresses, object
    counts per load balancer, the objects not deployed (named, with their state), the last-reconciled marker per
    load balancer (naming scheme, collection version, declaration hash, time) and the live leases on its load
    balancers.
  - An owner tag that nothing carries any more (what a collected service leaves in the account) is no service.
  - The Engine's tag listing is not documented to match exactly; an object counts as a service's only when its own
    tags carry the owner tag exactly, as for M(anxcloud.lbaas.gc).
  - A frontend's ACLs and rules are not listed where the service's last-reconciled markers on that load balancer say
    its declaration had no allow-list, as the service module's own runs do; RV(services[].allow_sources) is then empty
    for it.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  load_balancers:
    description:
      - Only services with objects or a marker on one of these load balancers (names or identifiers). Default all.
        A name that more than one load balancer has is refused; give the identifier.
    type: list
    elements: str
    default: []
  names:
    description:
      - Only these services. Default all.
    type: list
    elements: str
    default: []
  tag_prefix:
    description:
      - Prefix of the owner tags, markers and leases.
    type: str
    default: anxlb
  declared:
    description:
      - The owners the caller declares (for example a role's live set). The services found that are not among them are
        listed in RV(undeclared) and named in a warning each, with where it still listens (what a renamed service
        leaves behind; at most three endpoints, then how many more).
      - To keep services that other playbooks manage out of that warning, name them here too.
      - Not given, nothing is reported as undeclared.
    type: list
    elements: str
  only_undeclared:
    description:
      - With O(declared), read only the services it does not name; RV(services) then lists only those. The owners are
        found as always (the account's owner tags and the markers on the load balancers), which costs a few requests
        whatever their number; the declared ones are not read at all.
      - For a caller that has just reconciled the declared services (the role C(anxcloud.lbaas.service_loadbalancer)
        at the end of its run) and wants only the report of the others.
    type: bool
    default: false
  dns_zones:
    description:
      - CloudDNS zones to find the services' names in; each service then has RV(services[].dns). Records carry no tags,
        so only these zones are read (one request each), never every zone of the account.
      - Needs the Python library C(dnspython) on the host that runs the module (only when zones are given).
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored
  - anxcloud.lbaas.attributes.info_module
"""

EXAMPLES = r"""
- name: Every service the collection manages
  anxcloud.lbaas.service_info:
  register: inventory

- name: Services on lb1 that have objects not deployed
  ansible.builtin.debug:
    msg: "{{ item.name }}: {{ item.not_ok }}"
  loop: "{{ inventory.services | selectattr('not_ok') | list }}"

- name: Services on lb1 and lb2 that neither this play nor the payments team declares (a warning names each)
  anxcloud.lbaas.service_info:
    load_balancers: [lb1, lb2]
    declared: [shop, api, payments-gw]
    only_undeclared: true
  register: leftovers
"""

RETURN = r"""
undeclared:
  description:
    - With O(declared), the services found that it does not name, each with C(name), C(load_balancers), C(listening)
      (per load balancer, address -> ports), C(allocated) (its pool addresses) and C(message).
  returned: when O(declared) is given
  type: list
  elements: dict
  sample:
    - name: pg
      load_balancers: [lb1]
      listening: {lb1: {127.0.10.3: [6432]}}
      allocated: [127.0.10.3]
      message: "pg: not declared, still on lb1 with 127.0.10.3:6432"
services:
  description: The services found (with O(only_undeclared), only those O(declared) does not name), sorted by name.
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: The service (owner) name., type: str}
    load_balancers: {description: The load balancers holding its objects or its marker., type: list, elements: str}
    addresses: {description: The addresses its binds listen on., type: list, elements: str}
    ports: {description: The ports its binds listen on., type: list, elements: int}
    listening: {description: "Per load balancer, address -> ports.", type: dict}
    allow_sources:
      description:
        - "Per load balancer, frontend name -> the source networks its C(accept if) connection rules admit (the
          service's O(anxcloud.lbaas.service#module:allow_sources)); frontends open to all are left out."
      type: dict
    allocated:
      description: Its IPAM address objects (pool allocations), found through its owner tag.
      type: list
      elements: dict
    objects:
      description:
        - "Per load balancer, the number of objects of each kind the service manages: backends, frontends, binds,
          servers, acls and rules (0 where it has none)."
      type: dict
    orphans: {description: Objects carrying its owner tag whose load balancer cannot be told (parent gone)., type: int}
    not_ok:
      description: Objects not deployed (pending or failed), each with type, name, id, load balancer and state.
      type: list
      elements: dict
    markers:
      description: "Per load balancer, the last-reconciled markers: scheme, collection_version, declaration_hash, reconciled_at (ISO 8601, UTC)."
      type: dict
    leases: {description: "Live leases on its load balancers: load_balancer, holder, until.", type: list, elements: dict}
    lease_held: {description: Whether a run holds a lease on one of its load balancers now., type: bool}
    dns:
      description:
        - With O(dns_zones), its names - the records in those zones whose comment carries its owner mark
          (C(<tag_prefix>-svc=<name>), as the service's O(anxcloud.lbaas.service#module:dns) writes them), per
          zone, name and type - zone, name, fqdn, type, values.
      type: list
      elements: dict
  sample:
    - name: shop
      load_balancers: [lb1]
      addresses: [127.0.10.2]
      ports: [8080]
      listening: {lb1: {127.0.10.2: [8080]}}
      allow_sources: {lb1: {8080.shop: [10.0.0.0/8]}}
      allocated: [{address: 127.0.10.2, prefix: 127.0.10.0/24, id: 5b6e4f0d9a0c4c63b1a6a5c6f4e3d2c1}]
      objects: {lb1: {backends: 1, frontends: 1, binds: 1, servers: 2, acls: 3, rules: 3}}
      orphans: 0
      not_ok: []
      markers: {lb1: [{scheme: 1, collection_version: 0.1.0, declaration_hash: 5f0c1e9a3b7d2c44, reconciled_at: '2026-01-01T00:00:00Z'}]}
      leases: []
      lease_held: false
"""

import time

from ansible.module_utils.basic import missing_required_lib

from ..module_utils._model._failure import Failure
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._model._group_options import with_ignored_wait
from ..module_utils._model._names import check_owner, check_tag_prefix
from ..module_utils._model._request import TAG_PREFIX
from ..module_utils._service._info import inventory, undeclared, warnings


class ServiceInfoModule(AnxcloudModule):
    argument_spec = with_ignored_wait(dict(
        load_balancers=dict(type="list", elements="str", default=[]),
        names=dict(type="list", elements="str", default=[]),
        tag_prefix=dict(TAG_PREFIX),
        declared=dict(type="list", elements="str"),
        only_undeclared=dict(type="bool", default=False),
        dns_zones=dict(type="list", elements="str", default=[]),
    ))

    def run(self):
        p = self.params
        check_tag_prefix(p["tag_prefix"])
        for index, name in enumerate(p["names"]):
            check_owner(name, "names[%d]" % index)
        if p["only_undeclared"] and p["declared"] is None:
            raise Failure("only_undeclared: true needs declared, the owners not to read; nothing was read")
        if p["dns_zones"]:
            from ..module_utils._dns._values import has_dnspython
            if not has_dnspython():   # the records' values are compared with it: said before any request
                raise Failure(missing_required_lib("dnspython") + " (for the option dns_zones)")
        skip = p["declared"] if p["only_undeclared"] else ()
        self.result["services"] = inventory(self.client, p["tag_prefix"], p["load_balancers"], p["names"], now=time.time(),
                                            skip=skip)
        if p["dns_zones"]:   # the services' names: records carry no tags, so only the zones asked for are read
            from ..module_utils._dns._owners import names_by_owner
            names = names_by_owner(self.client, p["dns_zones"], p["tag_prefix"])
            for service in self.result["services"]:
                service["dns"] = names.get(service["name"], [])
        if p["declared"] is not None:
            self.result["undeclared"] = undeclared(self.result["services"], p["declared"])
            for message in warnings(self.result["services"], p["declared"], p["tag_prefix"]):
                self.module.warn(message)


def main():
    ServiceInfoModule.main()


if __name__ == "__main__":
    main()
