#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: ip_address
short_description: Allocate addresses for an owner from an IP pool of Anexia Engine IPAM prefixes, idempotently
version_added: 0.1.0
description:
  - An allocation is an IPAM address object created at a chosen address in a prefix of the pool and tagged
    with the owner tag C(<tag_prefix>-svc=<owner>), the same tag the M(anxcloud.lbaas.service) module puts on
    a service's load balancer objects.
  - Idempotent per owner and family. A rerun returns the addresses the owner already has and allocates only
    the missing ones; it never allocates a second address for the same owner and family.
  - The first free address of the usable range is taken (or the last with O(strategy=last)). Every address
    object already in a prefix (network, gateway, other owners, untagged) counts as taken.
  - Usable range. IPv4 excludes the network and broadcast addresses. IPv6 excludes the first (subnet-router
    anycast) and the last address of the prefix, the same rule, so the cloud controller's
    "one below the top" address stays usable. A V(/31) or V(/127) has both addresses usable,
    a V(/32) or V(/128) its one.
  - Safe against concurrent runs. An address the Engine refuses as taken is skipped; after creating, the module
    reads the address back, and if another object holds it too, releases its own and tries the next one.
    After such a collision it reads the prefix again, so the next try skips every address allocated meanwhile.
    Five attempts at most, then the module fails naming the pool.
  - The Engine's random reservation endpoint is not used, because its addresses expire and cannot be released.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  pool:
    description:
      - The prefixes of the pool. Each entry is a prefix identifier, a prefix in CIDR form, or a tag that
        prefixes carry (every prefix with that tag belongs to the pool).
      - An entry of 32 lower case hexadecimal characters is an identifier, one containing C(/) a CIDR (a tag
        cannot contain C(/)), anything else a tag.
      - One list rather than separate options for identifiers and tags, so that a pool can combine a tagged
        set of prefixes with a single one, and a role can pass a pool through as one value.
      - Prefixes are tried in the order given; a tag's prefixes in the Engine's order. An entry that matches
        no prefix is an error, so a misspelt tag never makes an empty pool.
    type: list
    elements: str
    required: true
  owner:
    description:
      - Who the addresses belong to, a stable identifier (for a service, its O(anxcloud.lbaas.service#module:name)).
    type: str
    required: true
  family:
    description:
      - The address family. Required when O(state=present) and the pool has prefixes of both families.
      - With O(state=absent) and no O(family), the owner's addresses of both families are released.
    type: str
    choices: [v4, v6]
  count:
    description:
      - How many addresses of O(family) the owner holds. Fewer are allocated up to it; more are released,
        the highest addresses first.
    type: int
    default: 1
  range_start:
    description:
      - First address that may be allocated. Must lie in the usable range of the pool's only prefix of
        O(family); a bound outside it is an error, not ignored.
    type: str
  range_end:
    description:
      - Last address that may be allocated, with the same rules as O(range_start).
    type: str
  exclude:
    description:
      - Addresses and CIDRs never to allocate, in any order, overlapping or not. Entries of the other family are
        ignored.
    type: list
    elements: str
    default: []
  strategy:
    description:
      - V(first) takes the lowest free address, V(last) the highest.
    type: str
    choices: [first, last]
    default: first
  tag_prefix:
    description:
      - Prefix of the owner tag.
    type: str
    default: anxlb
  state:
    description:
      - V(present) makes sure the owner holds O(count) addresses; V(absent) releases every address of the owner
        in the pool (of O(family) if given). Address objects of other owners are never released.
      - An address object this module created for the owner (its description says so) that carries no owner tag,
        because tagging failed after the create, is adopted (tagged) rather than leaked, or released with
        O(state=absent).
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
attributes:
  check_mode:
    support: full
    details:
      - Reports the addresses that would be allocated; nothing is reserved, so a concurrent run may take them first.
  diff_mode:
    support: full
"""

EXAMPLES = r"""
- name: An IPv4 address for the service shop from the prefixes tagged anxlb-pool=public
  anxcloud.lbaas.ip_address:
    pool: [anxlb-pool=public]
    owner: shop
    family: v4
  register: shop_v4

- name: Two addresses from one prefix, high end, keeping the first ten free
  anxcloud.lbaas.ip_address:
    pool: [198.51.100.0/24]
    owner: shop
    family: v4
    count: 2
    strategy: last
    exclude: [198.51.100.0/28]

- name: Release everything the service holds in the pool
  anxcloud.lbaas.ip_address:
    pool: [anxlb-pool=public]
    owner: shop
    state: absent
"""

RETURN = r"""
addresses:
  description: The owner's addresses in the pool after the run (predicted in check mode), of O(family) if given.
  returned: always
  type: list
  elements: dict
  contains:
    address: {description: The address in canonical text form., type: str}
    id: {description: "Identifier of the address object; in check mode the placeholder \"(new address)\" for one to be created.", type: str}
    prefix: {description: The prefix in CIDR form., type: str}
    prefix_id: {description: Identifier of the prefix., type: str}
    family: {description: V(v4) or V(v6)., type: str}
  sample: [{address: 198.51.100.2, id: 5b6e4f0d9a0c4c63b1a6a5c6f4e3d2c1, prefix: 198.51.100.0/24,
            prefix_id: 0a11ce11000000000000000000000001, family: v4}]
prefix:
  description: The prefix (CIDR) of the first address, for the common case of one address.
  returned: when the owner holds an address
  type: str
  sample: 198.51.100.0/24
plan:
  description: What the run decided, one entry per address to allocate or release, with the reason.
  returned: always
  type: list
  elements: dict
  sample: [{action: allocate, address: 198.51.100.2, prefix: 198.51.100.0/24, reason: owner shop holds 0 of 1 v4 address(es)}]
  contains:
    action: {description: "V(allocate), V(release), or V(adopt) (tag an untagged address object created for the owner).", type: str}
    address: {description: The address., type: str}
    prefix: {description: The prefix in CIDR form., type: str}
    id: {description: Identifier of the address object to release or adopt; V(null) for an allocation., type: str}
    reason: {description: Why., type: str}
diff:
  description: The owner's addresses before and after, in the same shape; equal when nothing changed.
  returned: when diff mode is on
  type: dict
  sample: {before: {owner: shop, family: v4, addresses: []}, after: {owner: shop, family: v4, addresses: [198.51.100.2]}}
"""

import random
import time

try:
    import netaddr
except ImportError:  # pragma: no cover - reported by the module base class
    netaddr = None

from ansible_collections.anxcloud.lbaas.plugins.module_utils._address_pool import (
    NEW, REFUSED, UNCLAIMED_ROLES, UNCLAIMED_STATUS, address_int, canonical, description, observe, owned, pools_for,
    reread, resolve)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._base import AnxcloudModule
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine_errors import EngineError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._names import check_owner, check_tag_prefix
from ansible_collections.anxcloud.lbaas.plugins.module_utils._objects import owner_from_tags, owner_tag

ATTEMPTS = 5


def entry(prefix, ip, ident):
    return dict(address=ip, id=ident, prefix=prefix.cidr, prefix_id=prefix.id, family=prefix.family)


def in_use(exc, ip):
    """Whether a refused create says the address is taken: a 400/409/422 whose message or validation
    names the address. Anything else (a bad prefix, access, a quota) is not a collision and fails."""
    if exc.status not in (400, 409, 422):
        return False
    forms = set([ip, str(netaddr.IPAddress(ip).format(netaddr.ipv6_verbose)) if ":" in ip else ip])
    texts = [exc.message or ""] + list(exc.validation.values())
    return any(form in str(text).lower() for form in forms for text in texts)


class IpAddressModule(AnxcloudModule):
    argument_spec = dict(
        pool=dict(type="list", elements="str", required=True),
        owner=dict(type="str", required=True),
        family=dict(type="str", choices=["v4", "v6"]),
        count=dict(type="int", default=1),
        range_start=dict(type="str"),
        range_end=dict(type="str"),
        exclude=dict(type="list", elements="str", default=[]),
        strategy=dict(type="str", choices=["first", "last"], default="first"),
        tag_prefix=dict(type="str", default="anxlb"),
        state=dict(type="str", choices=["present", "absent"], default="present"),
    )

    def run(self):
        p = self.params
        check_owner(p["owner"], "owner")
        check_tag_prefix(p["tag_prefix"], "tag_prefix")
        if p["count"] < 0:
            raise Failure("count must not be negative, got %d" % p["count"])
        self.tag = owner_tag(p["owner"], p["tag_prefix"])
        prefixes = resolve(self.client, p["pool"], p["family"])
        family = p["family"]
        if p["state"] == "present" and family is None:
            families = sorted(set(pr.family for pr in prefixes))
            if len(families) > 1:
                raise Failure("family is required: pool has prefixes of both families (%s)"
                              % ", ".join(pr.cidr for pr in prefixes))
            family = families[0]
        pools = pools_for(prefixes, p["range_start"], p["range_end"], p["exclude"]) if p["state"] == "present" else []
        observe(self.client, prefixes)
        # Unclaimed objects that allocation may claim, kept apart: planning marks addresses taken.
        self.claims = dict(((pr.id, ip), s) for pr in prefixes for ip, s in pr.claimable.items())
        mine, untagged = owned(self.client, prefixes, p["tag_prefix"], p["owner"])
        before = [entry(pr, ip, s["identifier"]) for pr, ip, s in mine]
        # An earlier run created these for the owner but could not tag them: adopt rather than leak them.
        adopt = untagged if p["state"] == "present" else []
        mine = sorted(mine + untagged, key=lambda m: (prefixes.index(m[0]), address_int(m[1])))
        if p["state"] == "absent":
            releases, allocations = mine, 0
        else:
            surplus = max(0, len(mine) - p["count"])
            releases = sorted(mine, key=lambda m: (-prefixes.index(m[0]), -address_int(m[1])))[:surplus]
            allocations = max(0, p["count"] - len(mine))
        plan = [dict(action="release", address=ip, prefix=pr.cidr, id=s["identifier"],
                     reason="owner %s holds %d, wants %d" % (p["owner"], len(mine), p["count"])
                     if p["state"] == "present" else "state is absent") for pr, ip, s in releases]
        plan.extend(dict(action="adopt", address=ip, prefix=pr.cidr, id=s["identifier"],
                         reason="created for owner %s by an earlier run that could not tag it" % p["owner"])
                    for pr, ip, s in adopt if (pr, ip, s) not in releases)
        released = [s["identifier"] for _pr, _ip, s in releases]
        kept = [entry(pr, ip, s["identifier"]) for pr, ip, s in mine if s["identifier"] not in released]
        new = []
        while len(new) < allocations:
            prefix, ip = self._pick(pools)
            prefix.take(ip, {"identifier": NEW, "name": ip})   # taken for the next pick
            reason = "owner %s holds %d of %d %s address(es)" % (p["owner"], len(kept) + len(new), p["count"], family)
            plan.append(dict(action="allocate", address=ip, prefix=prefix.cidr, id=None, reason=reason))
            new.append(entry(prefix, ip, NEW))
        if plan and not self.check_mode:
            for pr, ip, s in releases:
                self.client.address_delete(s["identifier"])
            for action in plan:
                if action["action"] == "adopt":
                    self.client.tag_add(action["id"], self.tag)
            new = [self._allocate(pools, e) for e in new]
        order = [pr.id for pr in prefixes]
        after = sorted(kept + new, key=lambda e: (order.index(e["prefix_id"]), address_int(e["address"])))
        self.result.update(changed=bool(plan), plan=plan, addresses=after)
        if after:
            self.result["prefix"] = after[0]["prefix"]
        if self.module._diff:
            self.result["diff"] = dict(before=self._view(before, family), after=self._view(after, family))

    def _view(self, entries, family):
        return dict(owner=self.params["owner"], family=family or "any",
                    addresses=[e["address"] for e in entries])

    def _pick(self, pools):
        """The next address by strategy: the first prefix of the pool with room, or a failure naming them all."""
        failures = []
        for prefix, pool in pools:
            try:
                return prefix, pool.allocate(prefix.taken(), strategy=self.params["strategy"])
            except Failure as exc:
                failures.append(exc.msg)
        raise Failure("; ".join(failures) if len(failures) == 1 else
                      "every prefix of the pool is exhausted: %s" % "; ".join(failures))

    def _allocate(self, pools, planned):
        """Creates (or claims) the planned address, or the next free one if another run took it meanwhile."""
        prefix = [pr for pr, _pool in pools if pr.id == planned["prefix_id"]][0]
        ip = planned["address"]
        for attempt in range(1, ATTEMPTS + 1):
            claim = self.claims.get((prefix.id, ip))
            got = self._claim(prefix, ip, claim) if claim else self._create(prefix, ip)
            if got is not None:
                prefix.addresses[ip] = [got]
                return entry(prefix, ip, got["identifier"])
            prefix.take(ip, {"identifier": REFUSED, "name": ip})
            time.sleep(random.uniform(0.05, 0.25) * attempt)   # two losers must not collide again in step
            # Whoever beat us may not be alone: read the prefix again so the next pick skips them all.
            reread(self.client, prefix)
            self.claims.update(((prefix.id, cip), s) for cip, s in prefix.claimable.items())
            prefix, ip = self._pick(pools)
        raise Failure("could not allocate an address for %s: %d attempts collided with concurrent allocations in pool %s"
                      % (self.params["owner"], ATTEMPTS, ", ".join(pr.cidr for pr, _pool in pools)))

    def _create(self, prefix, ip):
        """A new address object at ``ip``, tagged and confirmed as the only one there; None if the
        address turned out to be taken."""
        client = self.client
        try:
            created = client.address_create(prefix.id, ip, description=description(self.params["owner"]))
        except EngineError as exc:
            if exc.may_have_landed:
                # Never sent twice: the object is ours if the prefix now holds it with our description.
                created = self._landed(prefix, ip)
                if created is None:
                    raise
            elif in_use(exc, ip):
                return None   # the Engine says the address is in use: another run was faster
            else:
                raise
        ident = created["identifier"]
        client.tag_add(ident, self.tag)
        same = [s for s in client.address_list(prefix=prefix.id, search=ip) if canonical(s["name"]) == ip]
        if all(s["identifier"] == ident for s in same):
            return created
        client.address_delete(ident)   # two objects at one address: give it up, as the later one
        return None

    def _landed(self, prefix, ip):
        """The object a create whose answer was lost made: exact address and our description."""
        ours = description(self.params["owner"])
        found = [s for s in self.client.address_list(prefix=prefix.id, search=ip)
                 if canonical(s["name"]) == ip and s.get("description_customer") == ours]
        return found[0] if len(found) == 1 else None

    def _claim(self, prefix, ip, summary):
        """Claims an existing unclaimed address object (a ``create_empty=false`` prefix): confirmed
        unclaimed on the object itself, described and tagged, then read back; None if someone else
        holds it (then our claim is undone)."""
        client = self.client
        ident = summary["identifier"]
        ours = description(self.params["owner"])
        obj = client.address_get(ident)
        if (obj.get("status") != UNCLAIMED_STATUS or (obj.get("role_text") or "") not in UNCLAIMED_ROLES
                or (obj.get("description_customer") or "") not in ("", ours)
                or owner_from_tags(client.resource_tags(ident), self.params["tag_prefix"])):
            return None
        client.address_update(ident, obj["name"], description=ours, role=obj.get("role_text") or "Default",
                              rdns_name=obj.get("rdns_name") or "")
        client.tag_add(ident, self.tag)
        owners = owner_from_tags(client.resource_tags(ident), self.params["tag_prefix"])
        now = client.address_get(ident)
        if owners == [self.params["owner"]] and now.get("description_customer") == ours:
            return dict(summary, description_customer=ours)
        # Another run claimed it at the same time: both give way, as with leases.
        client.tag_remove(ident, self.tag)
        if now.get("description_customer") == ours:
            client.address_update(ident, now["name"], description="", role=now.get("role_text") or "Default",
                                  rdns_name=now.get("rdns_name") or "")
        return None


def main():
    IpAddressModule.main()


if __name__ == "__main__":
    main()
