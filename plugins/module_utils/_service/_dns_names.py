# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A service's names in CloudDNS (``dns: {zone, name, ttl}``): the A and AAAA rrsets of its addresses, a part of the
service's run (``ServiceNames``), planned and written by the DNS kind (``_dns._plan.plan_rrset``,
``_dns._apply.RrsetOperations``) in the service's one plan, under its lease.

The records are the service's by their comment: its mark ``<tag_prefix>-svc=<name>``, then the note
``; dns name of the service`` (``SERVICE_NOTE``), exactly. A ``dns_record`` task of the same owner writes the mark
alone (it refuses the note), so an alias it made is never taken for the service's.

What the part reads: the declared zone, and every zone the service's placement tags remember
(``_marker.placements``: on its load balancers, written with its marker), so that a new ``dns.zone``, ``dns`` removed
while the service stays, and ``state: absent`` without ``dns`` all find the records the service left. With ``wait``
each zone is one GET of the zone (its current revision's records and its state, ``_dns._revision``); without, the
declared name's records (one GET filtered by name), and the whole zone only when the run writes the name.

What it plans: the declared name's A and AAAA rrsets as declared; the deletes of every other record of the service (a
name it left, a zone it left, all of them when absent); what a zone's newest revision needs (``revision_plan``). A
record of the declared name that is not the service's (an A, AAAA or CNAME without its exact comment: hand-made,
another owner's, or a ``dns_record`` of the same owner) is a conflict: the run fails before any write, in check mode
too (``state: absent`` leaves such records alone, with a warning). Two services writing one name at the same time
are told apart by the changeset's answer (``RrsetOperations._claimed``): the second takes its records back.

Order in the run (the kinds' declared dependencies): the records are written after the binds that carry the addresses
exist, and deleted before them.
"""

from types import SimpleNamespace

from .._dns._claims import Claims
from .._dns._plan import (
    RRSET, DesiredRrset, ZoneObservation, is_service_record, mark_of, owned_rrsets, plan_rrset, service_comment, view)
from .._dns._revision import read_zone, revision_plan
from .._dns._served import SERVED, check_nameservers, served_outcome
from .._dns._values import check_ttl, fqdn, normal_name, normal_values, normal_zone
from .._model._failure import Failure
from .._model._kinds import normalize_ip
from .._model._ownership import owner_tag
from .._reconcile._plan import Plan
from .._reconcile._run import Part
from ._marker import DNS, placement_tag, placements

FAMILIES = ("A", "AAAA")   # the record types of a service's addresses, IPv4 then IPv6
CLASHING = ("A", "AAAA", "CNAME")   # a CNAME cannot stand beside the service's records


def check_dns(dns):
    """The ``dns`` option as (zone, name, ttl), None without one; a Failure naming the bad key (no request yet)."""
    if not dns:
        return None
    if not dns.get("zone") or not dns.get("name"):
        raise Failure("dns needs zone and name (for example dns: {zone: example.com, name: shop}), got %r" % (dns,))
    zone = normal_zone(dns["zone"], "dns.zone")
    name = normal_name(dns["name"], zone, "dns.name")
    return zone, name, check_ttl(dns.get("ttl"), "dns.ttl")


def family_values(addresses):
    """The service's addresses by record type: {A: [...], AAAA: [...]} (normalised, as the records store them)."""
    out = dict((rtype, []) for rtype in FAMILIES)
    for index, address in enumerate(addresses or ()):
        # netaddr's canonical text, as the declaration checks the addresses (_declaration._check_addresses)
        canonical = normalize_ip(str(address).split("/", maxsplit=1)[0], "addresses[%d]" % index)
        out["AAAA" if ":" in canonical else "A"].append(canonical)
    return dict((rtype, normal_values(rtype, values, "addresses") if values else []) for rtype, values in out.items())


def _by_rrset(zone, records, comment, keep):
    """The rrsets (``{key: rrset}``) of the records carrying ``comment`` for which ``keep(record)`` holds (each knowing
    the other records of its name and type, so that a delete never takes a hand-made twin)."""
    return owned_rrsets(zone, records, lambda r: r.get("comment") == comment and keep(r))


class ServiceNames(Part):
    """The DNS names of one ``ServiceDeclaration``: its declared name, and what it left elsewhere (see the module).
    ``objects``: the service's LBaaS part, whose observation read the load balancers' tags (the placements)."""

    key = "dns"

    def __init__(self, client, declaration, check_mode, warn, result, objects=None):
        d = declaration
        self.client = client
        self.declaration = declaration
        self.check_mode = check_mode
        self.warn = warn
        self.result = result
        self.objects = objects
        self.spec = check_dns(d.dns)
        self.mark = owner_tag(d.name, d.tag_prefix)
        self.comment = service_comment(d.name, d.tag_prefix)   # the mark, and that the service wrote it
        self.present = d.state == "present"
        self.values = family_values(d.addresses) if self.present and self.spec else None
        self.wait = d.wait
        self.wait_served = bool(d.dns) and d.dns.get("wait") == SERVED
        self.nameservers = check_nameservers((d.dns or {}).get("nameservers"), SERVED if self.wait_served else True,
                                             "dns.nameservers")
        if self.spec is not None:
            self.result["dns_conflicts"] = []
            placement_tag(d.tag_prefix, d.name, DNS, self.spec[0])   # fails now if the tag would be too long
        self.zones = []   # the zones the last observation read
        self.claims = Claims()   # what this run's changesets answered: another writer's records after them are late

    # ---- what the marker remembers ----------------------------------------------------------------------------
    def placed(self):
        """The placement tags this service's marker carries after the run: its declared zone, when present."""
        d = self.declaration
        return [placement_tag(d.tag_prefix, d.name, DNS, self.spec[0])] if self.present and self.spec else []

    def remembered(self, lb_tags):
        """The zones the placement tags on the service's load balancers name (sorted)."""
        d = self.declaration
        return sorted(set(where for tags in lb_tags.values()
                          for family, where, _tag in placements(d.tag_prefix, d.name, tags) if family == DNS))

    # ---- observe ----------------------------------------------------------------------------------------------
    def observe(self, earlier):
        lb_tags = self.objects.state.lb_tags if self.objects is not None and self.objects.state is not None else {}
        declared = self.spec[0] if self.spec else None
        others = [z for z in self.remembered(lb_tags) if z != declared]
        self.zones = ([declared] if declared else []) + others
        world, zones, conflicts = {}, {}, []
        for zone in self.zones:
            records, answer = self._read(zone, zone == declared)
            if answer is not None:
                zones[zone] = answer
            if zone == declared:
                world.update(self._declared_world(zone, records, conflicts))
            world.update(_by_rrset(zone, records, self.comment,
                                   lambda r: r.get("type") in FAMILIES and (zone != declared or r["name"] != self.spec[1])))
        state = ZoneObservation(world, zones)
        state.conflicts = conflicts
        return state

    def _read(self, zone, declared):
        """The records (of the declared name, when that is all a run without wait needs) and the zone's answer."""
        try:
            if self.wait or not declared:
                return read_zone(self.client, zone, self.wait, option="dns.zone")
            records, answer = read_zone(self.client, zone, False, name=self.spec[1], option="dns.zone")
            if self.present and self._writes_name(self._declared_world(zone, records, [])):
                records, answer = read_zone(self.client, zone, False, option="dns.zone")   # a name it left, if any
            return records, answer
        except Failure:
            if declared and self.present:
                raise
            self.warn("dns: there is no CloudDNS zone %s in this account, so no record of service %s is left there"
                      % (zone, self.declaration.name))
            return [], None

    def _declared_world(self, zone, records, conflicts):
        """The declared name's rrsets of ours; ``conflicts`` gets the records of the name that are not."""
        name = self.spec[1]
        at_name = self.claims.without_late(zone, name, [r for r in records if r.get("name") == name], self._foreign,
                                           self.warn)
        conflicts.extend(dict(zone=zone, name=name, fqdn=fqdn(name, zone), type=r["type"], value=r.get("rdata"),
                              comment=r.get("comment"), owner=mark_of(r.get("comment")))
                         for r in at_name if self._foreign(r))
        return _by_rrset(zone, at_name, self.comment, lambda r: r.get("type") in FAMILIES)

    def _foreign(self, record):
        """A record of the declared name the service may not share it with (a conflict)."""
        return record.get("type") in CLASHING and record.get("comment") != self.comment

    def _writes_name(self, world):
        return any(self._plan_name(world))

    # ---- plan -------------------------------------------------------------------------------------------------
    def plan(self, state, planned=()):
        self._conflicts(state.conflicts)
        actions = self._plan_name(state.world) if self.spec else []
        for key, obj in sorted(state.world.items()):
            if not self.spec or obj["zone"] != self.spec[0] or obj["name"] != self.spec[1] or not self.present:
                gone = self._desired(obj["zone"], obj["name"], obj["type"], None)
                actions.extend(plan_rrset({key: obj}, gone))
        more, waits = revision_plan(state.zones, state.world, actions)
        return Plan(actions + more, waits)

    def _conflicts(self, conflicts):
        if self.spec is None:
            return
        self.result["dns_conflicts"] = conflicts
        if not conflicts:
            return
        zone, name, _ttl = self.spec
        held = "; ".join("%s %s %s (%s)" % (c["fqdn"], c["type"], c["value"], _whose(c, self.mark)) for c in conflicts)
        if not self.present:
            self.warn("dns: records of %s that are not the service's are left alone: %s" % (fqdn(name, zone), held))
            return
        raise Failure("service %s: dns name %s is held by records it does not own: %s. The service changes and deletes only "
                      "records whose comment is its own (%s); remove them (or give the service another dns.name)"
                      % (self.declaration.name, fqdn(name, zone), held, self.comment), dns_conflicts=conflicts)

    def _desired(self, zone, name, rtype, values, ttl=None):
        d = self.declaration
        return DesiredRrset(zone, name, rtype, values, present=values is not None, ttl=ttl, comment=self.comment,
                            compare_comment=True, owner=d.name, tag_prefix=d.tag_prefix, clashing=CLASHING)

    def _plan_name(self, world):
        """The actions that make the declared name's A and AAAA rrsets as declared (none when absent: ``plan``)."""
        if not self.present:
            return []
        zone, name, ttl = self.spec
        actions = []
        for rtype in FAMILIES:
            actions.extend(plan_rrset(world, self._desired(zone, name, rtype, self.values[rtype], ttl)))
        return actions

    # ---- result -----------------------------------------------------------------------------------------------
    def summary(self, plan, done):
        mine = Plan([a for a in plan if a.kind is RRSET])
        return [mine.summary(done=done)] if mine.objects() else []

    def report(self, outcome):
        if self.spec is None:
            return
        zone, name, _ttl = self.spec
        self.result["dns"] = dict(zone=zone, name=name, fqdn=fqdn(name, zone), records=self.view(outcome.after))

    def shown(self, world):
        """The diff's ``dns`` block of ``world``: the declared name always, and each other name holding records of
        the service (a name or zone it left, in *before*)."""
        names = [(self.spec[0], self.spec[1])] if self.spec and self.present else []
        names += sorted(set((o["zone"], o["name"]) for o in world.values()
                            if o.get("kind") == RRSET.name and o.get("records") and (o["zone"], o["name"]) not in names))
        return dict((fqdn(n, z), dict((t, ["%s ttl=%s" % (r["value"], r["ttl"] or "zone") for r in rs])
                                      for t, rs in self.view(world, z, n).items())) for z, n in names)

    def view(self, world, zone=None, name=None):
        """{A: [values], AAAA: [values]} of our records at ``name`` of ``zone`` (default: the declared ones) in ``world``
        (a planned create keyed by its placeholder)."""
        zone = self.spec[0] if zone is None else zone
        name = self.spec[1] if name is None else name
        out = {}
        for obj in world.values():
            if obj.get("kind") == RRSET.name and obj.get("zone") == zone and obj.get("name") == name and obj.get("records"):
                out[obj["type"]] = [view(r) for r in sorted(obj["records"], key=lambda r: r["value"])]
        return dict((rtype, out[rtype]) for rtype in FAMILIES if rtype in out)

    def served(self, outcome, deadline):
        """``dns.wait: served``, after a real run: the zone's servers asked until each answers the name's A and AAAA
        records as the run left them (``_dns._served``); what each answered, or a Failure naming the server."""
        zone, name, ttl = self.spec
        desireds = [self._desired(zone, name, rtype, (self.values or {}).get(rtype) or None, ttl) for rtype in FAMILIES]
        rrsets = SimpleNamespace(plan=[a for a in outcome.plan if a.kind is RRSET],
                                 after=dict((k, o) for k, o in outcome.after.items() if o.get("kind") == RRSET.name))
        return served_outcome(self.client, zone, desireds, rrsets, self.nameservers, deadline)

    def operations(self, client):
        from .._dns._apply import RrsetOperations   # a real run that writes only (_reconcile._run)
        d = self.declaration
        return {RRSET.name: RrsetOperations(client, wait=d.wait, timeout=d.wait_timeout, claims=self.claims)}


def _whose(conflict, mark):
    if conflict["owner"] == mark:
        return "owner mark %s without the service's note: a dns_record of the same owner" % mark
    if is_service_record(conflict["comment"]):
        return "the dns name of service %s" % conflict["owner"].split("=", 1)[-1]
    return "owner mark %s" % conflict["owner"] if conflict["owner"] else "no owner mark"
