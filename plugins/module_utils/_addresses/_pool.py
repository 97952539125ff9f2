# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""IP pools on the Engine: which prefixes a pool names, which address objects they hold, whose they are.

A pool entry is a prefix identifier, a prefix in CIDR form (the prefix's name on the Engine), or a
tag that prefixes carry. An allocation is an address object in a prefix carrying the owner tag.
Every address object of a prefix (network, gateway, other owners, untagged) counts as taken, except:

* an object being deleted (status ``Marked for deletion``) is neither held nor free: it is no
  owner's allocation (Terraform treats it as gone, anxcloud/resource_ip_address.go) and its address
  is not handed out again until the object is gone;
* an unclaimed object, as a prefix created with ``create_empty=false`` holds one for every address
  (the legacy client's default): status ``Inactive``, role ``Default``, no description. Its address
  counts as free; allocating it claims the object (description and owner tag) instead of creating
  one, after confirming on the object itself that it is still unclaimed.

The allocator itself (``_ippool``) is pure; this file does the reading.
"""

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from .._engine._errors import gone_as_none
from .._model._failure import Failure
from .._model._ownership import tag_names
from .._model._ipam import (
    DELETING, UNCLAIMED_STATUS, canonical, description, looks_unclaimed)
from .._model._kinds import looks_like_id
from .._model._ownership import foreign_tags, owner_from_tags, owner_tag
from ._ippool import Pool

FAMILIES = {"v4": 4, "v6": 6}
NEW = "(new address)"        # identifier of an address this run plans to create (the check mode placeholder)
REFUSED = None               # identifier of an address this run found taken when it tried to create it
LOCAL_MARKERS = (NEW, REFUSED)


def address_int(address):
    return int(netaddr.IPAddress(address))


def rdns_text(value):
    """An rDNS name as compared: the Engine reads it back as an FQDN with a trailing dot once processed
    (docs/engine-api-facts.md), and DNS names do not differ by case."""
    return (value or "").strip().rstrip(".").lower()


def flat(prefix, ip, ident, owner=None, created=None, rdns_name=None):
    """An address object in the shape observations, plans and worlds use (``rdns_name`` as compared)."""
    return dict(kind="address", id=ident, name=ip, address=ip, prefix=prefix.cidr, prefix_id=prefix.id,
                family=prefix.family, owner=owner, created=created, rdns_name=rdns_text(rdns_name))


class Prefix:
    """One IPAM prefix of a pool, with the address objects it holds (``{ip: [summary, ...]}``)."""

    def __init__(self, engine_prefix):
        self.id = engine_prefix["identifier"]
        self.cidr = str(netaddr.IPNetwork(engine_prefix["name"]).cidr)
        self.version = netaddr.IPNetwork(self.cidr).version
        self.addresses = {}     # ip -> [summary, ...] of every address object, deleting ones included
        self.deleting = set()   # identifiers of objects being deleted
        self.claimable = {}     # ip -> summary of the unclaimed object that is the only one at ip

    @property
    def family(self):
        return "v%d" % self.version

    def holds(self, address):
        return netaddr.IPAddress(address) in netaddr.IPNetwork(self.cidr)

    def taken(self):
        """Addresses allocation must not hand out: those with an object, unless it is claimable."""
        return sorted((ip for ip in self.addresses if ip not in self.claimable), key=address_int)

    def live(self, ip):
        """The objects at ``ip`` that are not being deleted."""
        return [s for s in self.addresses.get(ip, []) if s["identifier"] not in self.deleting]

    def take(self, ip, summary):
        """Records an object at ``ip`` (one this run made, or a placeholder): the address is taken."""
        self.claimable.pop(ip, None)
        self.addresses.setdefault(ip, []).append(summary)


def cidr_or_none(entry):
    """The netaddr network a pool entry in CIDR form writes (it holds a ``/``, which a tag cannot), else None:
    an identifier, a tag, or no network at all (``resolve`` names which)."""
    text = str(entry or "").strip()
    if "/" not in text:
        return None
    try:
        return netaddr.IPNetwork(text)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None


def _matches(listing, index, entry, client):
    if not entry:
        # an empty tag_name would list every resource, so every prefix would join the pool
        raise Failure("pool[%d]: an entry must not be empty" % index)
    if looks_like_id(entry):
        return [p for p in listing if p["identifier"] == entry]
    if "/" in entry:   # a tag cannot hold a "/" (it would split the Engine's tag path)
        try:
            wanted = netaddr.IPNetwork(entry).cidr
        except (netaddr.AddrFormatError, ValueError):
            raise Failure("pool[%d]: '%s' is neither a prefix identifier, a CIDR nor a tag" % (index, entry))
        return [p for p in listing if netaddr.IPNetwork(p["name"]).cidr == wanted]
    tagged = set(r["identifier"] for r in client.resources_by_tag(entry))
    return [p for p in listing if p["identifier"] in tagged]


def _nothing(entry):
    if looks_like_id(entry):
        return "no IPAM prefix has the identifier %s" % entry
    if "/" in entry:
        return "no IPAM prefix is %s" % entry
    return "no IPAM prefix carries the tag %s" % entry


def resolve(client, entries, family=None):
    """The pool's prefixes (of ``family`` if given), in the order the entries name them."""
    if not entries:
        raise Failure("pool must name at least one prefix (an identifier, a CIDR or a tag)")
    listing = client.prefix_list()
    prefixes = []
    for index, entry in enumerate(entries):
        entry = str(entry).strip()
        matches = _matches(listing, index, entry, client)
        if not matches:
            raise Failure("pool[%d]: %s" % (index, _nothing(entry)))
        for match in matches:
            if match["identifier"] not in [p.id for p in prefixes]:
                prefixes.append(Prefix(match))
    if family:
        chosen = [p for p in prefixes if p.version == FAMILIES[family]]
        if not chosen:
            raise Failure("pool has no IP%s prefix (it has %s)" % (family, ", ".join(p.cidr for p in prefixes)))
        return chosen
    return prefixes


def observe(client, prefixes):
    """Fills each prefix's address objects, read concurrently: per prefix the filtered listing, the
    listing of its objects being deleted, and, only where objects look unclaimed, of its Inactive ones
    (summaries carry no status)."""

    def read(prefix):
        listing = client.address_list(prefix=prefix.id)
        deleting = set(s["identifier"] for s in client.address_list(prefix=prefix.id, status=DELETING))
        inactive = set()
        if any(looks_unclaimed(s) and s["identifier"] not in deleting for s in listing):
            inactive = set(s["identifier"] for s in client.address_list(prefix=prefix.id, status=UNCLAIMED_STATUS))
        return listing, deleting, inactive

    for prefix, (listing, deleting, inactive) in zip(prefixes, client.map(read, prefixes)):
        prefix.addresses, prefix.deleting, prefix.claimable = {}, deleting, {}
        for summary in listing:
            try:
                ip = canonical(summary["name"])
            except (netaddr.AddrFormatError, ValueError, TypeError):
                continue   # not an address we can reason about; it cannot collide with one we pick
            prefix.addresses.setdefault(ip, []).append(summary)
        for ip, summaries in prefix.addresses.items():
            if len(summaries) == 1 and looks_unclaimed(summaries[0]) and summaries[0]["identifier"] in inactive:
                prefix.claimable[ip] = summaries[0]
    return prefixes


def reread(client, prefix):
    """Lists the prefix's address objects again (after a collision, to see every concurrent allocation at
    once), keeping this run's own markers: addresses planned but not created yet, and refused ones."""
    local = [(ip, s) for ip, summaries in prefix.addresses.items() for s in summaries
             if s.get("identifier") in LOCAL_MARKERS]
    observe(client, [prefix])
    for ip, summary in local:
        prefix.take(ip, summary)
    return prefix


def owned(client, prefixes, tag_prefix, owner, listed=None):
    """The owner's address objects in the prefixes, sorted by prefix and address:
    ``([(prefix, ip, summary), ...] tagged, [...] untagged but created for this owner)``.

    The Engine's ``tag_name`` match is not documented to be exact (it may match ``shop2`` for
    ``shop``), so a listed object counts as the owner's only when its description is exactly the
    one written for this owner (in the listing, no extra read) or its own tags, read, show the owner
    tag exactly. Objects being deleted are nobody's. ``listed``: the identifiers the owner-tag listing
    gave, when the caller has read it (``tagged_ids``); None: read here.
    """
    tag = owner_tag(owner, tag_prefix)
    if listed is None:
        listed = tagged_ids(client, tag)
    tagged, unsure, candidates = _listed(prefixes, listed, description(owner))
    # An object released since the listing (a concurrent run) reads as None: no longer anyone's.
    read = client.map(gone_as_none(client.resource_get), [s["identifier"] for _p, _ip, s in unsure + candidates])
    names = [tag_names(resource) if resource is not None else None for resource in read]
    tagged.extend(u for u, tags in zip(unsure, names) if tags is not None and tag in tags)
    tagged.sort(key=lambda m: (prefixes.index(m[0]), address_int(m[1])))
    # Only an object with no owner tag at all (of any prefix) is adopted; one another owner tagged stays theirs.
    untagged = [c for c, tags in zip(candidates, names[len(unsure):])
                if tags is not None and not foreign_tags(tags)]
    return tagged, untagged


def tagged_ids(client, tag):
    """The identifiers of every resource the Engine lists for ``tag`` (one listing; not confirmed exact)."""
    return set(r["identifier"] for r in client.resources_by_tag(tag))


def outside(prefixes, listed):
    """The identifiers of ``listed`` that are no address object in the observed ``prefixes`` (being deleted or
    not): what else carries the tag (LBaaS objects, addresses in other prefixes or of the other family), sorted."""
    inside = set(s["identifier"] for prefix in prefixes for summaries in prefix.addresses.values() for s in summaries)
    return sorted(str(i) for i in set(listed) - inside)


def _listed(prefixes, listed, ours):
    """The live objects of the prefixes by what the listings tell: ``(tagged and described as ours,
    tagged only (its tags decide), described as ours only (an untagged candidate))``."""
    tagged, unsure, candidates = [], [], []
    for prefix in prefixes:
        for ip in prefix.taken():
            for summary in prefix.live(ip):
                mine = summary.get("description_customer") == ours
                if summary["identifier"] in listed:
                    (tagged if mine else unsure).append((prefix, ip, summary))
                elif mine:
                    candidates.append((prefix, ip, summary))
    return tagged, unsure, candidates


def owners(client, prefix, prefix_tag):
    """``(allocations by owner, unowned addresses)`` of one observed prefix (one tag read per address object;
    none for claimable objects, which count as free, and objects being deleted, which are nobody's)."""
    summaries = [s for ip in prefix.taken() for s in prefix.live(ip)]
    resources = client.map(gone_as_none(client.resource_get), [s["identifier"] for s in summaries])
    by_owner, unowned = {}, []
    for summary, resource in zip(summaries, resources):
        if resource is None:
            ip = canonical(summary["name"])
            prefix.addresses[ip] = [s for s in prefix.addresses[ip] if s is not summary]
            if not prefix.addresses[ip]:
                del prefix.addresses[ip]
            continue
        names = owner_from_tags(tag_names(resource), prefix_tag)
        for owner in names:
            by_owner.setdefault(owner, []).append(canonical(summary["name"]))
        if not names:
            unowned.append(canonical(summary["name"]))
    # sorted like the summaries; an address with two untagged objects is listed once
    return by_owner, sorted(set(unowned), key=address_int)


def pools_for(prefixes, range_start=None, range_end=None, exclude=()):
    """An allocator per prefix. Bounds need a pool of one prefix: they would not fit two."""
    if (range_start or range_end) and len(prefixes) > 1:
        raise Failure("range_start and range_end need a pool of one prefix per family; this one has %s"
                      % ", ".join(p.cidr for p in prefixes))
    out = []
    for prefix in prefixes:
        same_family = [e for e in exclude or () if _version(e) == prefix.version]
        out.append((prefix, Pool(prefix.cidr, range_start, range_end, same_family, name=prefix.cidr)))
    return out


def _version(entry):
    try:
        return netaddr.IPNetwork(str(entry).strip()).version
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise Failure("exclude: '%s' is not a valid address or CIDR" % entry)
