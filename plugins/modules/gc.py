#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: gc
short_description: Remove the LBaaS objects and pool addresses of services that are no longer in the live set
version_added: 0.1.0
description:
  - Garbage collection for services managed with M(anxcloud.lbaas.service), the role
    C(anxcloud.lbaas.service_loadbalancer) and M(anxcloud.lbaas.ip_address). Every owner that carries the
    owner tag C(<tag_prefix>-svc=<owner>) (or a marker C(<tag_prefix>-reconciled.<owner>=...) on a load balancer)
    and is not in O(keep), and every owner in O(remove), loses its LBaaS objects on every load balancer and its
    addresses in every pool.
  - Ownership is the service module's, and nothing else is ever written. An owner's objects are found through
    its owner tag on every load balancer; a frontend or backend is the owner's when it carries the tag, a bind or
    server when it carries the tag or sits under a frontend or backend of the owner. Each object's own tags are
    read before it is deleted. An object that also carries the owner tag of an owner not being collected keeps
    the owner's objects on that load balancer. Live owners, other owners, untagged objects and objects of
    other tag prefixes are never written.
  - How it observes, takes leases, deletes and judges an owner's age is in the notes, after the options.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  keep:
    description:
      - The live set, the owner ids (service names) that are alive, also owners that are no service (for example
        owners of M(anxcloud.lbaas.ip_address) addresses). Every other owner found goes.
      - Required unless O(remove) is given or O(collect_all=true).
      - A live set that keeps none of the owners found (empty, or every name misspelt) is refused unless
        O(collect_all=true). A name that matches no owner of O(tag_prefix) fails the run before any write, in check
        mode too, naming the closest owner (see O(strict_keep)); it is returned in RV(keep_unmatched).
    type: list
    elements: str
  keep_new:
    description:
      - Owners that are alive but may not exist yet, such as the services the same play creates (in check mode they
        are not there yet). Kept like O(keep), never reported as matching no owner, and a live set with one of them
        is never taken for a live set that keeps nothing.
      - The role C(anxcloud.lbaas.service_loadbalancer) passes its declared services here when it prunes.
    type: list
    elements: str
    default: []
  collect_all:
    description:
      - Collect every owner found when the live set keeps none of them. Without it such a run fails before any write
        (in check mode too), because an empty or misspelt live set looks exactly like that.
      - With O(collect_all=true), O(keep) may be left out (no owner is alive).
    type: bool
    default: false
  strict_keep:
    description:
      - Fail before any write (in check mode too) when a name in O(keep) matches no owner of O(tag_prefix). A
        misspelt name means that the owner it meant is collected (V(shpo) in O(keep) collects C(shop)), so the
        message names the option, the name, the closest owner and the fix.
      - V(false) only warns. Owners that are alive but not created yet go in O(keep_new), not here.
      - The roles C(anxcloud.lbaas.service_loadbalancer) and C(anxcloud.lbaas.garbage_collection) pass their own
        variables, also V(true) by default.
    type: bool
    default: true
  remove:
    description:
      - Owners to remove explicitly, also when O(keep) is not given. An owner in both O(keep) and O(remove) is an error.
    type: list
    elements: str
    default: []
  dns_zones:
    description:
      - CloudDNS zones to collect records in, besides the zones gc finds by itself. A record whose comment starts with the
        mark C(<tag_prefix>-svc=<owner>) of a collected owner is deleted (the mark the service module's
        O(anxcloud.lbaas.service#module:dns) and M(anxcloud.lbaas.dns_record)'s O(anxcloud.lbaas.dns_record#module:owner)
        write), one changeset per name and type; records without a mark, with another prefix's or a live owner's are left
        alone, and so is a hand-made record with the same name, type, value and TTL as an owner's (the changeset deletes
        both and creates it again).
      - gc finds the zone of a service's name by itself, from the placement tag C(<tag_prefix>-placed.<owner>=dns:<zone>)
        the service leaves beside its marker on its load balancers. Name zones here for the records a service wrote
        before it kept that tag, and for owners that have only records (made with M(anxcloud.lbaas.dns_record)). An owner
        whose mark is on a record of these zones is found like an owner with tagged objects, so it can be kept
        (O(keep)) and is collected when it is not alive. Records carry no tags, so gc never lists every zone of the
        account; each zone it reads is one request.
      - Needs the Python library C(dnspython) on the host that runs the module (when it reads a zone).
      - "Each record deleted counts as one removal against O(max_delete) (an rrset of two addresses is two), read before
        the first write of the run, so that a run over the cap deletes nothing, DNS or LBaaS; the C(--diff) preview
        lists them, one line each (C(- zone example.com: A api.example.com. 203.0.113.7))."
      - What gc leaves alone of an owner it leaves alone in every family. An owner too young (O(min_age)) keeps its
        names; so does an owner any of whose objects stay (on a load balancer outside O(load_balancers), leased by a
        running reconcile, or holding another owner's object), as its names point at the addresses those objects serve.
        Both are listed in RV(skipped_items).
    type: list
    elements: str
    default: []
  tag_prefix:
    description:
      - Prefix of the owner tags, markers and leases. Only owners of this prefix are considered.
    type: str
    default: anxlb
  load_balancers:
    description:
      - Load balancers (names or identifiers) gc may write to. Objects on other load balancers stay, reported in
        RV(skipped_items). Default is every load balancer.
    type: list
    elements: str
    default: []
  pools:
    description:
      - The IP pool (prefix identifiers, CIDRs or tags, as in M(anxcloud.lbaas.ip_address)) whose addresses gc may
        release. Default is every address object carrying the owner tag, wherever it is (each confirmed on its own
        tags); with O(pools), also address objects an earlier M(anxcloud.lbaas.ip_address) run created for the owner
        but could not tag (found by their description).
    type: list
    elements: str
    default: []
  min_age:
    description:
      - Seconds. Owners whose youngest marker or address object is younger are skipped; with a value above 0, owners
        whose age is unknown are skipped too. V(0) collects regardless of age.
      - Set it for scheduled runs next to playbooks that create services, for example V(900).
    type: int
    default: 0
  prune_orphans:
    description:
      - Also remove objects of collected owners whose parent is gone, so that their load balancer cannot be told
        (no scope to check, no lease to take). By default they are reported in RV(skipped_items).
    type: bool
    default: false
  max_delete:
    description:
      - The most objects, addresses and DNS records (O(dns_zones), one each) one run may remove. Above it a real run fails
        without deleting anything, with a one-sentence message and the count per owner (RV(would_remove)); check the live
        set, then raise it.
      - In check mode, a plan above it is shown in full as the preview (RV(removed), C(--diff)), with a warning and
        RV(summary) saying that the real run would stop there and delete nothing (RV(over_max_delete)).
    type: int
    default: 100
  lease_timeout:
    description:
      - Seconds after which a lease this run could not release counts as expired for other runs, from 1 to 86400
        (a day); a longer lease left by a crashed run would block every other run on its load balancers for that long.
    type: int
    default: 1800
  lease_holder:
    description:
      - Who holds the leases, shown to a concurrent run that finds one. Defaults to C(gc@<controller host>:<process id>).
    type: str
  wait_timeout:
    description:
      - How long to wait for deleted objects to be gone, in seconds (V(600)) or as a duration (V(90s), V(10m), V(1h)).
    type: raw
    default: 600
notes:
  - Snapshot first, decide second. One observation reads the owners (the account's tag entities with the owner
    tag prefix, and the markers on the load balancers), then everything of every owner to collect. Any read
    that fails ends the run before the first delete. Check mode returns exactly what a real run removes.
  - A real run takes the advisory lease of each load balancer it writes to (as M(anxcloud.lbaas.service) does);
    a load balancer whose lease another run holds is skipped with a message naming the holder, so a run in
    progress is never collected under it. If the tags of a load balancer changed between the snapshot and
    taking the lease, the run observes and decides again before writing.
  - Deletes run through the collection's shared applier, owner by owner, children first, and are waited for
    until gone; then the owner's markers are removed and its addresses released. An address a bind still
    listens on (one this run does not delete) is never released. Then the run observes again.
  - Age. LBaaS objects tell no creation time. An owner's age is that of its youngest marker (every writing
    service run rewrites it) or the creation time of its address objects (the core resource's C(created_at),
    read as UTC). With O(min_age), an owner younger than that is skipped, and so is an owner whose age
    nothing tells (objects without a marker, no addresses), because a run that has created objects but not yet
    written its marker looks exactly like that, and a leftover is better than an outage.
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored_flag
attributes:
  check_mode:
    support: full
    details:
      - Returns exactly what a real run removes; a real run decides again only if a load balancer's tags changed
        before it took the lease.
      - Over O(max_delete), check mode does not fail; it returns the plan as its preview and says that the real run
        would stop there.
  diff_mode:
    support: full
    details:
      - One line per owner collected (why it goes, how many objects, where its markers go), then one line per object
        it loses and one per group of its objects that stays, with the reason.
"""

EXAMPLES = r"""
- name: Preview (run with --check --diff first) what goes when only shop and api are alive; a typo in keep fails
  anxcloud.lbaas.gc:
    keep: [shop, api]
  register: collected

- name: Remove every service of the prefix (decommissioning); without collect_all this is refused
  anxcloud.lbaas.gc:
    collect_all: true
    max_delete: 400

- name: Remove one service explicitly, on lb1 only, releasing its addresses in the demo pool
  anxcloud.lbaas.gc:
    remove: [old-shop]
    load_balancers: [lb1]
    pools: [anxlb-pool=demo]

- name: Scheduled collection that leaves services younger than 15 minutes alone
  anxcloud.lbaas.gc:
    keep: "{{ lbaas_services | map(attribute='name') | list }}"
    min_age: 900
    max_delete: 40
"""

RETURN = r"""
dns_removed:
  description: The DNS records of collected owners the run removed (in check mode, would remove), per owner and rrset.
  returned: always
  type: list
  elements: dict
  sample: [{owner: api, zone: example.com, name: api, type: A, records: [{value: 203.0.113.7, ttl: 300, comment: anxlb-svc=api}]}]
removed:
  description:
    - What the run removed (in check mode, would remove), LBaaS objects children first, then markers, then addresses.
    - Owners whose removal failed are left out (see RV(failed_owners)).
  returned: always
  type: list
  elements: dict
  contains:
    type: {description: "V(bind), V(server), V(frontend), V(backend), V(marker) or V(address).", type: str}
    name: {description: "The object's name, the marker tag, or the address.", type: str}
    id: {description: Identifier (none for a marker)., type: str}
    owner: {description: The owner it belonged to., type: str}
    load_balancer: {description: The load balancer it was on (LBaaS objects and markers)., type: str}
    prefix: {description: The prefix (CIDR) of an address., type: str}
    reason: {description: "Why it goes: the owner's absence from the live set, or its name in O(remove).", type: str}
  sample: [{type: bind, name: v4.http.api, id: 5b6e4f0d9a0c4c63b1a6a5c6f4e3d2c1, owner: api, load_balancer: lb1,
            reason: "owner 'api' is not in the live set"}]
keep_unmatched:
  description: The names in O(keep) that match no owner of O(tag_prefix) (the failure, or with O(strict_keep=false) a warning).
  returned: always
  type: list
  elements: str
  sample: [apii]
kept:
  description:
    - The owners of the live set that were found, with the number of resources carrying their owner tag.
    - Counted on each resource's own tags, as the Engine's tag listing need not match exactly (it may return
      C(xanxlb-svc=web) or C(anxlb-svc=web2) for C(anxlb-svc=web)). Costs one tag listing per kept owner and
      one read per resource those listings return whose tags the run has not read already, once per run.
  returned: always
  type: dict
  sample: {shop: 11}
skipped_items:
  description:
    - What stays although its owner is not alive, each with the reason (lease, scope, age, in use, ...).
    - Not called C(skipped), which Ansible reads as "the task was skipped".
  returned: always
  type: list
  elements: dict
  contains:
    owner: {description: The owner., type: str}
    reason: {description: Why it stays., type: str}
    load_balancer: {description: "The load balancer, when the reason is about one.", type: str}
    prefix: {description: "The prefix, when an address stays.", type: str}
    objects: {description: "The objects that stay (type, name, id).", type: list, elements: dict}
failed_owners:
  description:
    - Owners whose removal failed, with the error; the module then fails after the others were collected.
    - Not called C(failed), which Ansible reads as the task's own status.
  returned: always
  type: list
  elements: dict
  sample: [{owner: api, msg: "could not delete frontend 'http.api' ..."}]
summary:
  description:
    - One line, what goes per load balancer, prefix and zone (check mode C(to destroy), C(to release), C(DNS record(s) to
      delete); a real run C(destroyed), C(released), C(DNS record(s) deleted)), then the owners collected, kept and skipped.
    - In check mode over O(max_delete) it begins with C(over max_delete (N > M), the real run would stop there).
  returned: always
  type: str
  sample: "lb1: 10 destroyed; 127.0.10.0/24: 1 released | owners collected: api | kept: 1 owner(s) | skipped: nothing"
would_remove:
  description: How many objects, addresses and DNS records the plan removes (markers not counted), the number O(max_delete) bounds.
  returned: when the run planned (success, or a real run over O(max_delete))
  type: int
  sample: 11
over_max_delete:
  description: Whether RV(would_remove) is above O(max_delete) (a real run then fails, check mode only previews).
  returned: when the run planned (success, or a real run over O(max_delete))
  type: bool
would_remove_by_owner:
  description: When a real run stops at O(max_delete), the number of removals (DNS records included) per owner (the plan is in the preview).
  returned: when a real run fails over O(max_delete)
  type: dict
  sample: {api: 11}
diff:
  description:
    - Text, as C(--diff) prints it. Per owner, sorted, one line saying why it goes, how many objects and where its
      markers go, then one line per object it loses (C(- <load balancer or pool>) then C(<type> <name>)) and one per
      group of its objects that stays (C(= <place>) then how many stay and why). RV(removed) and RV(skipped_items)
      have the same as data.
  returned: when diff mode is on
  type: dict
  contains:
    prepared: {description: The text., type: str}
  sample:
    prepared: |
      owner 'api' is not in the live set: 3 to remove (and its marker on lb1)
        - lb1: bind v4.http.api
        - lb1: frontend http.api
        - pool 127.0.10.0/24: address 127.0.10.3
"""

from ..module_utils._gc._request import GcRequest
from ..module_utils._gc._run import gc_run, report
from ..module_utils._module._base import AnxcloudModule


class GcModule(AnxcloudModule):
    argument_spec = GcRequest.spec

    def run(self):
        run = gc_run(self.client, GcRequest.from_params(self.params), self.check_mode, warn=self.module.warn)
        self.result = run.result
        report(run, diff=self.module._diff)


def main():
    GcModule.main()


if __name__ == "__main__":
    main()
