# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A service's name in CloudDNS (``dns: {zone, name, ttl}``): the A and AAAA rrsets of its addresses.

The service declares the DNS kind and reuses it whole: the rrsets are planned by ``_dns._plan.plan_rrset`` and
written by ``_dns._apply.RrsetOperations`` through a ``Reconciler`` of their own, one changeset per rrset that
changes. The records carry the owner's mark in their comment (``<tag_prefix>-svc=<name>``, records have no tags).

Order, so that a conflict fails before any write: ``prepare`` (before the load balancers are touched) checks
the option, reads the name's records once (one GET, both types) and fails on a record of the name that is not
ours: an A, AAAA or CNAME without our mark or with another owner's. ``apply`` (after the load balancers) plans
from that same reading, so a no-op costs that one request, writes in a real run and predicts in check mode.

State absent deletes only the records carrying our mark; the others of the name are left alone (a warning).

A new ``dns.name`` moves the name: the service's A and AAAA records at other names of the zone (comment exactly what the
service writes: its mark and ``SERVICE_NOTE``; a ``dns_record`` of the same owner never carries that note) are
deleted, and those of the new name created. They are found by reading the whole zone, which a run does only when the
name's own records are not as declared (``_others_wanted``): the first run after a rename (or an address change, or
state absent) is a writing run anyway, and a no-op costs the one GET of the name as before. The deletes go before the
creates (the shared ``Applier`` sends deletes first), so a run that fails in between leaves the new name not as
declared, and the next run reads the zone again: old records can not outlive a rename unseen. A rename back and
forth within one zone is covered the same way. Not covered: a change of ``dns.zone``, or ``dns`` removed from the
declaration: the service does not know the zone its records were in (nothing it reads on every run records it),
so those records stay until the service is removed (gc collects them from the zones it is told of).
"""

from .._dns._clouddns import CloudDNS
from .._dns._plan import DesiredRrset, ZoneObservation, mark_of, service_comment, observed_rrset, plan_rrset, view
from .._dns._values import fqdn, has_dnspython, normal_name, normal_values, normal_zone
from .._model._diff_text import as_text
from .._model._failure import Failure
from .._model._kinds import normalize_ip
from .._model._ownership import owner_tag
from .._reconcile._loop import Reconciler
from .._reconcile._plan import Plan

FAMILIES = ("A", "AAAA")   # the record types of a service's addresses, IPv4 then IPv6
CLASHING = ("A", "AAAA", "CNAME")   # a CNAME cannot stand beside the service's records
TTL_MIN, TTL_MAX = 60, 604800   # what CloudDNS takes (else null: the zone's default); checked before any write


def check_dns(dns):
    """The ``dns`` option as (zone, name, ttl), None without one; a Failure naming the bad key (no request yet)."""
    if not dns:
        return None
    if not dns.get("zone") or not dns.get("name"):
        raise Failure("dns needs zone and name (for example dns: {zone: example.com, name: shop}), got %r" % (dns,))
    zone = normal_zone(dns["zone"], "dns.zone")
    name = normal_name(dns["name"], zone, "dns.name")
    ttl = dns.get("ttl")
    if ttl is not None and not TTL_MIN <= ttl <= TTL_MAX:
        raise Failure("dns.ttl must be between %d and %d seconds (CloudDNS's range), got %d; leave it out for the zone's default"
                      % (TTL_MIN, TTL_MAX, ttl))
    return zone, name, ttl


def family_values(addresses):
    """The service's addresses by record type: {A: [...], AAAA: [...]} (normalised, as the records store them)."""
    out = dict((rtype, []) for rtype in FAMILIES)
    for index, address in enumerate(addresses or ()):
        # netaddr's canonical text, as the declaration checks the addresses (_declaration._check_addresses)
        canonical = normalize_ip(str(address).split("/", maxsplit=1)[0], "addresses[%d]" % index)
        out["AAAA" if ":" in canonical else "A"].append(canonical)
    return dict((rtype, normal_values(rtype, values, "addresses") if values else []) for rtype, values in out.items())


class ServiceNames:
    """The DNS names of one service run (a ``ServiceDeclaration``); inert (no request) for a service without ``dns``."""

    def __init__(self, client, declaration, check_mode, warn):
        self.client = client
        self.declaration = declaration
        self.check_mode = check_mode
        self.warn = warn
        self.spec = None
        self.records = None
        self.first = None

    def prepare(self, result):
        """Checks the option, reads the name's records and fails on a conflict: all before any write."""
        d = self.declaration
        self.spec = check_dns(d.dns)
        if self.spec is None:
            return
        if not has_dnspython():
            from ansible.module_utils.basic import missing_required_lib
            raise Failure(missing_required_lib("dnspython") + " (for the option dns)")
        zone, name, _ttl = self.spec
        self.mark = owner_tag(d.name, d.tag_prefix)
        self.comment = service_comment(d.name, d.tag_prefix)   # the mark, and that the service wrote it
        self.values = family_values(d.addresses) if d.state == "present" else None
        self.first = self._observe_all()
        foreign = [r for r in self.records if r["type"] in CLASHING and mark_of(r.get("comment")) != self.mark]
        conflicts = [dict(zone=zone, name=name, fqdn=fqdn(name, zone), type=r["type"], value=r.get("rdata"),
                          comment=r.get("comment"), owner=mark_of(r.get("comment"))) for r in foreign]
        result["dns_conflicts"] = conflicts
        if not conflicts:
            return
        held = "; ".join("%s %s %s (%s)" % (c["fqdn"], c["type"], c["value"],
                                            "owner mark %s" % c["owner"] if c["owner"] else "no owner mark") for c in conflicts)
        if d.state == "absent":
            self.warn("dns: records of %s not carrying %s are left alone: %s" % (fqdn(name, zone), self.mark, held))
            return
        raise Failure("service %s: dns name %s is held by records it does not own: %s. The service never changes or deletes "
                      "a record without its mark %s in the comment; remove them (or give the service another dns.name)"
                      % (d.name, fqdn(name, zone), held, self.mark), dns_conflicts=conflicts)

    def _observe_all(self):
        """One GET of the name's records; the world of our rrsets (the records carrying our mark). When those are
        not as declared, a second GET of the whole zone adds our records at other names (a name left by a rename)."""
        zone, name, _ttl = self.spec
        dns = CloudDNS(self.client)
        self.records = dns.records(zone, name=name, option="dns.zone")
        ours = [r for r in self.records if mark_of(r.get("comment")) == self.mark]
        world = {}
        for rtype in FAMILIES:
            world.update(observed_rrset(zone, name, rtype, ours))
        if self._others_wanted(world):
            world.update(self._left_elsewhere(dns.records(zone, option="dns.zone")))
        return ZoneObservation(world)

    def _others_wanted(self, world):
        """Whether this run writes the name (its plan is not empty): the only runs that read the whole zone."""
        return any(self._plan_name(world))

    def _left_elsewhere(self, records):
        """The rrsets of our A and AAAA records at other names than the declared one. Ours is exact here: the
        comment the service writes, its mark and ``SERVICE_NOTE``; a ``dns_record`` task with ``owner`` (an alias
        of the same owner, say) writes the mark alone or with its own comment, and is never taken for a name left."""
        zone, name, _ttl = self.spec
        left = [r for r in records if r.get("type") in FAMILIES and r.get("name") != name and r.get("comment") == self.comment]
        world = {}
        for other, rtype in sorted(set((r["name"], r["type"]) for r in left)):
            world.update(observed_rrset(zone, other, rtype, left))
        return world

    def observe(self):
        if self.first is not None:
            state, self.first = self.first, None   # prepare's reading is the first observation
            return state
        return self._observe_all()

    def plan(self, state):
        """The declared name's rrsets, and the deletes of our rrsets at other names (a rename's old name)."""
        zone, name, _ttl = self.spec
        actions = self._plan_name(state.world)
        for key, obj in sorted(state.world.items()):
            if obj["name"] != name:
                gone = DesiredRrset(zone, obj["name"], obj["type"], None, present=False, owner=self.declaration.name,
                                    tag_prefix=self.declaration.tag_prefix)
                actions.extend(plan_rrset({key: obj}, gone))
        return Plan(actions)

    def _plan_name(self, world):
        """The actions that make the declared name's A and AAAA rrsets as declared."""
        zone, name, ttl = self.spec
        actions = []
        for rtype in FAMILIES:
            if self.values is None:
                desired = DesiredRrset(zone, name, rtype, None, present=False, owner=self.declaration.name,
                                       tag_prefix=self.declaration.tag_prefix)
            else:
                desired = DesiredRrset(zone, name, rtype, self.values[rtype], ttl=ttl, comment=self.comment, compare_comment=True,
                                       owner=self.declaration.name, tag_prefix=self.declaration.tag_prefix)
            actions.extend(plan_rrset(world, desired))
        return actions

    def apply(self, result, diff=False):
        """Reconciles the records (after the load balancers) and adds them to ``result``."""
        if self.spec is None:
            return
        d = self.declaration
        reconciler = Reconciler(self.client, self.check_mode, wait=d.wait, wait_timeout=d.wait_timeout,
                                applier=self._applier)
        outcome = reconciler.run(self.observe, self.plan)
        zone, name, _ttl = self.spec
        after = self.view(outcome.after)
        result["changed"] = bool(result.get("changed")) or outcome.changed
        result["plan"] = list(result.get("plan") or []) + outcome.plan.to_list()
        result["dns"] = dict(zone=zone, name=name, fqdn=fqdn(name, zone), records=after)
        if diff and isinstance(result.get("diff"), dict):
            for side, world in (("before", outcome.before), ("after", outcome.after)):
                result["diff"][side] = (result["diff"].get(side) or "") + as_text({"dns": self._shown(world)},
                                                                                  inline_leaves=True)

    def _shown(self, world):
        """The diff's ``dns`` block of ``world``: the declared name always, and each other name holding records of
        ours (a rename's old name, in *before*)."""
        zone, name, _ttl = self.spec
        names = [name] + sorted(set(o["name"] for o in world.values() if o.get("zone") == zone
                                    and o.get("name") != name and o.get("records")))
        return dict((fqdn(n, zone), dict((t, ["%s ttl=%s" % (r["value"], r["ttl"] or "zone") for r in rs])
                                         for t, rs in self.view(world, n).items())) for n in names)

    def view(self, world, name=None):
        """{A: [values], AAAA: [values]} of our records at ``name`` (default: the declared one) in ``world`` (a
        planned create keyed by its placeholder)."""
        zone, declared, _ttl = self.spec
        name = declared if name is None else name
        out = {}
        for obj in world.values():
            if obj.get("zone") == zone and obj.get("name") == name and obj.get("records"):
                out[obj["type"]] = [view(r) for r in sorted(obj["records"], key=lambda r: r["value"])]
        return dict((rtype, out[rtype]) for rtype in FAMILIES if rtype in out)

    def _applier(self, client, waiter):
        from .._dns._apply import RrsetOperations
        from .._reconcile._apply import Applier
        operations = RrsetOperations(client, wait=self.declaration.wait, timeout=self.declaration.wait_timeout)
        return Applier(client, waiter, operations={"dns_record": operations})
