# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The inventory of services the collection manages: what ``gc`` users check before collecting.

Services are found as ``gc`` finds owners: the account's tag entities with the owner-tag prefix, and
the markers on the load balancers. Each is observed as the service module observes it with no load
balancer declared (everything its owner tag is found on, and what sits under its frontends and
backends), and its address objects are found through its owner tag. An owner tag entity nothing
carries any more (what a collected service leaves in the account) is no service. Only reads.

What is read of an owner is confirmed on its objects' own tags, and read once (``_info_reads``). Owners in
``skip`` are found but not read: a role that has just reconciled its services asks only about the others,
so that its report of undeclared owners costs what finding the owners costs.
"""

from .._addresses._observe import by_tag
from .._lbaas._views import tag_names
from .._lbaas._lease import leases, when
from ._marker import Marker
from .._model._kinds import state_class
from .._model._names import check_name_part
from .._engine._tag_entities import names_like
from .._model._ownership import discover, owner_tag, owner_tag_head, resolve_lbs
from ._info_reads import InfoObserver, OwnerReads
from ._managed import MANAGED
from ._tree import lb_of, status

# What ``objects`` counts per load balancer, by plural: every kind the service manages, in declaration order.
COUNTED = [kind.name + "s" for kind in MANAGED]


def inventory(client, prefix, load_balancers=(), names=(), now=None, skip=()):
    """The services of ``prefix`` (only ``names``, when given), without those in ``skip``, sorted by name."""
    listing = client.lbaas_list("loadbalancer")
    lb_names = dict((i["identifier"], i.get("name") or i["identifier"]) for i in listing)
    scope = set(lb["id"] for lb in resolve_lbs(listing, load_balancers)) if load_balancers else None
    lb_tags, lb_resources = read_lbs(client, sorted(lb_names))
    owners = discover(names_like(client, owner_tag_head(prefix)), lb_tags, prefix)[0]   # a name we do not write is no service
    owners = [o for o in owners if (not names or o in names) and o not in skip]
    read = (listing, lb_names, lb_tags, lb_resources)
    found = [s for s in client.map(lambda owner: describe(client, owner, prefix, read, now), owners) if s is not None]
    out = []
    for service in found:
        lb_ids = set(service.pop("_lb_ids"))
        if scope is None or scope & lb_ids:
            out.append(service)
    return out


def read_lbs(client, ids):
    """(lb id -> its tag names, lb id -> its core resource) of the load balancers listed; one deleted since the
    listing has no tags left to report."""
    resources = dict(zip(ids, client.resource_get_listed(ids)))
    return (dict((i, tag_names(r) if r is not None else []) for i, r in resources.items()),
            dict((i, r) for i, r in resources.items() if r is not None))


def observe(client, owner, prefix, listing, lb_tags):
    """The owner's objects as the service module sees them with no load balancer declared: everything its tag
    is found on, and every bind and server under its backends and frontends (ownership by containment)."""
    check_name_part(owner, "name")   # as the service module would: an owner it cannot name is refused
    return InfoObserver.of(client, owner, prefix, listing, lb_tags).observe([]).world


def count(world, lbs, lb_names):
    """(objects per load balancer and type, orphans, the objects not deployed)."""
    counts = dict((lb["name"], dict((plural, 0) for plural in COUNTED)) for lb in lbs)
    not_ok = []
    orphans = 0
    for obj in sorted(world.values(), key=lambda o: (o["kind"], o.get("name") or "", o["id"])):
        lb_id = lb_of(world, obj)
        if lb_id is None or lb_id not in lb_names:
            orphans += 1
            continue
        per_lb = counts[lb_names[lb_id]]
        per_lb[obj["kind"] + "s"] = per_lb.get(obj["kind"] + "s", 0) + 1
        if state_class(obj.get("state") or {}) != "ok":
            not_ok.append(dict(type=obj["kind"], name=obj.get("name"), id=obj["id"], load_balancer=lb_names[lb_id],
                               state=(obj.get("state") or {}).get("title")))
    return counts, orphans, not_ok


def live_leases(prefix, lbs, lb_tags, now):
    return [dict(load_balancer=lb["name"], holder=lease.holder, until=when(lease.expiry))
            for lb in lbs for lease in leases(prefix, lb_tags.get(lb["id"], []))
            if now is None or lease.expiry > now]


def markers_of(owner, prefix, lb_tags):
    """lb id -> the owner's markers on that load balancer, for those that carry any."""
    found = dict((lb_id, Marker.find(prefix, owner, tags)) for lb_id, tags in lb_tags.items())
    return dict((lb_id, markers) for lb_id, markers in found.items() if markers)


def _admitted(world, rule):
    """The networks of the ``src`` ACLs an ``accept if`` connection rule names (none for any other rule)."""
    if rule["kind"] != "rule" or rule.get("action") != "accept" or rule.get("condition") != "if":
        return []
    return [a["value"] for a in world.values() if a["kind"] == "acl" and a.get("frontend") == rule.get("frontend")
            and a.get("name") == rule.get("condition_test") and a.get("criterion") == "src"]


def allow_sources(world, lbs):
    """lb name -> frontend name -> the networks its ``accept if`` connection rules admit (the service's
    allow_sources, docs/user-guide.md "Who may connect"); frontends open to all are left out."""
    lb_names = dict((lb["id"], lb["name"]) for lb in lbs)
    out = {}
    for rule in world.values():
        nets = _admitted(world, rule)
        frontend = world.get(rule.get("frontend") or "")
        lb = lb_names.get(lb_of(world, frontend)) if nets and frontend else None
        if lb is not None:
            out.setdefault(lb, {}).setdefault(frontend["name"], set()).update(nets)
    return dict((lb, dict((f, sorted(nets, key=lambda n: (":" in n, n))) for f, nets in frontends.items()))
                for lb, frontends in out.items())


def ports_of(listening):
    return sorted(set(p for per_lb in listening.values() for ports in per_lb.values() for p in ports))


def describe(client, owner, prefix, read, now):
    """The owner as ``inventory`` lists it; ``read``: the load balancer listing, their names, tags and resources."""
    listing, lb_names, lb_tags, lb_resources = read
    client = OwnerReads(client, owner_tag(owner, prefix), lb_resources)
    world = observe(client, owner, prefix, listing, lb_tags)
    allocated = by_tag(client, owner, prefix).held
    markers = markers_of(owner, prefix, lb_tags)
    lb_ids = sorted(set(o["lb"] for o in world.values() if o.get("lb")) | set(markers),
                    key=lambda i: lb_names.get(i, i))
    if not world and not allocated and not markers:
        return None   # only a tag entity left behind: no service
    lbs = [{"kind": "loadbalancer", "id": i, "name": lb_names.get(i, i)} for i in lb_ids]
    counts, orphans, not_ok = count(world, lbs, lb_names)
    live = live_leases(prefix, lbs, lb_tags, now)
    listening = status(world, lbs)["load_balancers"]
    return dict(
        name=owner,
        load_balancers=[lb["name"] for lb in lbs],
        addresses=sorted(set(a for per_lb in listening.values() for a in per_lb)),
        allocated=[dict(address=a["address"], prefix=a["prefix"], id=a["id"]) for a in allocated],
        ports=ports_of(listening),
        listening=listening,
        allow_sources=allow_sources(world, lbs),
        objects=counts,
        orphans=orphans,
        not_ok=not_ok,
        markers=dict((lb_names.get(i, i), [m.as_dict() for m in found]) for i, found in sorted(markers.items())),
        leases=live,
        lease_held=bool(live),
        _lb_ids=lb_ids,
    )


def endpoint(address, port):
    return "[%s]:%s" % (address, port) if ":" in address else "%s:%s" % (address, port)


def undeclared(services, declared):
    """The services not in ``declared``, each with a line a person reads, e.g.
    "pg: not declared, still on lb1 with 127.0.10.3:6432" (what a rename leaves listening)."""
    out = []
    for service in services:
        if service["name"] in declared:
            continue
        out.append(dict(name=service["name"], load_balancers=service["load_balancers"], listening=service["listening"],
                        allocated=[a["address"] for a in service["allocated"]],
                        message="%s: not declared, still on %s" % (service["name"], where(service))))
    return out


def where(service, limit=None):
    """Where a service still is: "lb1 with 127.0.10.3:6432; lb2 (no listener); holding address 127.0.10.9". With
    ``limit``, at most that many endpoints, then how many more ("lb1 with 127.0.10.3:80, 127.0.10.3:443; 4 more
    endpoints")."""
    places = _listening(service, limit)
    loose = sorted(a["address"] for a in service["allocated"] if a["address"] not in service["addresses"])
    if loose:
        places.append("holding address%s %s" % ("es" if len(loose) > 1 else "", ", ".join(loose)))
    return "; ".join(places) or "no load balancer"


def _listening(service, limit):
    """Per load balancer of ``service``, where it listens ("lb1 with 127.0.10.3:6432", "lb2 (no listener)"): with
    ``limit``, the first that many endpoints, then how many more."""
    per_lb = [(lb, [endpoint(a, p) for a in sorted(listening) for p in listening[a]])
              for lb, listening in ((lb, service["listening"].get(lb) or {}) for lb in service["load_balancers"])]
    total = sum(len(ends) for _lb, ends in per_lb)
    budget = total if limit is None else min(limit, total)
    places, more = [], total - budget
    for lb, ends in per_lb:
        shown = ends[:budget]
        budget -= len(shown)
        if shown or not ends:
            places.append("%s with %s" % (lb, ", ".join(shown)) if shown else "%s (no listener)" % lb)
    if more:
        places.append("%d more endpoint%s" % (more, "s" if more > 1 else ""))
    return places


# A warning names at most this many endpoints of a service (RV undeclared lists them all): a line or two each.
WARNED_ENDPOINTS = 3


def warnings(services, declared, prefix):
    """One warning per service not in ``declared``, naming it, a line or two long (Ansible prints a warning once per
    text, and one warning for all of them grew with every port of every service, past a thousand characters):
    "service pg of tag prefix 'anxlb' is not declared but still on lb1 with 127.0.10.3:6432; <what to do>"."""
    return ["service %s of tag prefix '%s' is not declared but still on %s; collect it if it was renamed or removed "
            "(anxcloud.lbaas.gc), or name it in declared if another playbook manages it (role service_loadbalancer: "
            "lbaas_keep_owners)" % (s["name"], prefix, where(s, WARNED_ENDPOINTS))
            for s in services if s["name"] not in declared]
