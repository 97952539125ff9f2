# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Observing one owner's IP addresses, in a pool or wherever its owner tag is, and the binds using them.

Two ways to find an owner's address objects, both deciding ownership on the object's own tags:

* in a pool (``_address_pool``): every prefix of the pool read, the owner's objects confirmed; also
  the objects an earlier run created for the owner but could not tag (found by their description);
* by the owner tag alone (no pool: releasing everything an owner holds, ``gc``): the tag listing, then
  each listed resource read, kept only if it carries the owner tag exactly and is an IPAM address
  object (read as one; the core resource type of an address is not documented, so it is not guessed).
  Objects being deleted are nobody's.

Whether a bind still listens on an address is read from every bind of the account (one paged listing,
then each bind), so that a release never hands out an address a load balancer still serves.
"""

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from ._pool import (
    Prefix, address_int, flat, observe, outside, owned, pools_for, resolve, tagged_ids)
from .._engine._errors import gone_as_none
from .._engine._listings import listed_objects
from .._model._ipam import DELETING, canonical
from .._model._ownership import tag_names
from .._model._kinds import KINDS, link_id
from .._model._ownership import owner_tag

LBAAS_TYPES = set(k.resource_type for k in KINDS.values() if k.resource_type)


class AddressState:
    """One observation of an owner's addresses. ``world`` holds the tagged ones (``{id: flat address}``).
    ``elsewhere`` (an observation of a pool): the identifiers the owner-tag listing gave that are no address
    object in the pool's prefixes (``_pool.outside``); None when observed by the tag alone."""

    def __init__(self, prefix_order, held, untagged=(), prefixes=(), pools=(), claims=None, elsewhere=None):
        self.prefix_order = list(prefix_order)
        self.held = list(held)
        self.untagged = list(untagged)
        self.prefixes = list(prefixes)
        self.pools = list(pools)
        self.claims = claims if claims is not None else {}
        self.elsewhere = elsewhere
        self.world = dict((o["id"], o) for o in self.held)


class AddressObserver:
    """``pool`` None: the owner's addresses wherever its tag is (releasing only)."""

    def __init__(self, client, owner, tag_prefix, pool=None, family=None):
        self.client = client
        self.owner = owner
        self.tag_prefix = tag_prefix
        self.pool = pool
        self.family = family
        self.prefixes = None
        self.pools = []

    def resolve(self):
        """The pool's prefixes (of ``family``), once per run; None without a pool."""
        if self.pool is not None:
            self.prefixes = resolve(self.client, self.pool, self.family)
        return self.prefixes

    def resolve_pools(self, bounds):
        """The allocators, for allocating: ``bounds`` is (range_start, range_end, exclude)."""
        self.pools = pools_for(self.prefixes, *bounds)
        return self.pools

    def observe(self):
        if self.prefixes is None:
            return by_tag(self.client, self.owner, self.tag_prefix, self.family)
        observe(self.client, self.prefixes)
        claims = dict(((pr.id, ip), s) for pr in self.prefixes for ip, s in pr.claimable.items())
        listed = tagged_ids(self.client, owner_tag(self.owner, self.tag_prefix))
        mine, untagged = owned(self.client, self.prefixes, self.tag_prefix, self.owner, listed=listed)
        held = [flat(pr, ip, s["identifier"], self.owner, rdns_name=s.get("rdns_name")) for pr, ip, s in mine]
        loose = [flat(pr, ip, s["identifier"], self.owner, rdns_name=s.get("rdns_name")) for pr, ip, s in untagged]
        return AddressState([p.id for p in self.prefixes], held, loose, self.prefixes, self.pools, claims,
                            elsewhere=outside(self.prefixes, listed))


def created_at(resource):
    return (resource or {}).get("created_at")


def by_tag(client, owner, tag_prefix, family=None):
    """The owner's address objects found through its tag, confirmed on each object's own tags."""
    found = _tagged_addresses(client, owner_tag(owner, tag_prefix))
    cidrs = dict((p["identifier"], p["name"]) for p in client.prefix_list()) if found else {}
    held = [obj for obj in (_held(resource, obj, cidrs, owner) for resource, obj in found)
            if obj is not None and family in (None, obj["family"])]
    held.sort(key=lambda o: (o["prefix"], address_int(o["address"])))
    order = []
    for obj in held:
        if obj["prefix_id"] not in order:
            order.append(obj["prefix_id"])
    return AddressState(order, held)


def _tagged_addresses(client, tag):
    """``[(resource, address object)]`` of the resources carrying ``tag`` exactly that read as live
    IPAM address objects (LBaaS objects are none: their resource type is known)."""
    resources = client.map(gone_as_none(client.resource_get), [r["identifier"] for r in client.resources_by_tag(tag)])
    candidates = [r for r in resources if r is not None and tag in tag_names(r)
                  and (r.get("resource_type") or {}).get("identifier") not in LBAAS_TYPES]
    objects = client.map(gone_as_none(client.address_get), [r["identifier"] for r in candidates])
    return [(r, o) for r, o in zip(candidates, objects) if _live_address(o)]


def _live_address(obj):
    return obj is not None and bool(obj.get("prefix")) and bool(obj.get("name")) and obj.get("status") != DELETING


def _held(resource, obj, cidrs, owner):
    """The flat address of an owner's address object, or None for one whose name is no address."""
    prefix_id = link_id(obj["prefix"])
    try:
        prefix = Prefix({"identifier": prefix_id, "name": cidrs.get(prefix_id) or _host_cidr(obj["name"])})
        ip = canonical(obj["name"])
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None   # an address object whose name is no address: nothing we allocated
    return flat(prefix, ip, obj["identifier"], owner, created_at(resource), rdns_name=obj.get("rdns_name"))


def _host_cidr(ip):
    return "%s/%d" % (ip, 128 if ":" in ip else 32)


def binds_using(client, ips):
    """``{ip: [{name, id, load_balancer}, ...]}``: every bind of the account listening on one of ``ips``."""
    wanted = set(ips)
    if not wanted:
        return {}
    listing = client.lbaas_list("bind")
    binds = [KINDS["bind"].from_engine(raw) for raw in listed_objects(client, KINDS["bind"], listing)]
    hits = [b for b in binds if b.get("address") in wanted]
    frontends = dict(zip(
        sorted(set(b["frontend"] for b in hits if b.get("frontend"))),
        client.map(gone_as_none(lambda i: client.lbaas_get("frontend", i)),
                   sorted(set(b["frontend"] for b in hits if b.get("frontend"))))))
    out = {}
    for bind in hits:
        lb = (frontends.get(bind["frontend"]) or {}).get("load_balancer")
        name = (lb.get("name") or lb.get("identifier")) if isinstance(lb, dict) else lb
        out.setdefault(bind["address"], []).append(dict(name=bind["name"], id=bind["id"], load_balancer=name,
                                                        frontend=bind["frontend"]))
    return out
