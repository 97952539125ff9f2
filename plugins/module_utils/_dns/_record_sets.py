# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Many rrsets of one zone in one task (``dns_record_sets``): the task's entries, what prune deletes and leaves (pure).

Each entry is one rrset as ``dns_record`` takes it (checked by the same ``_run.desired_from``, its messages naming the
entry) and planned by the same ``_plan.plan_rrset``: the plan holds an action per rrset that changes, and the run
writes all of them as one changeset (``_changeset``), so the task is one revision of the zone, all or nothing.

Prune deletes the records that carry this owner's mark (``<tag_prefix>-svc=<owner>``) in rrsets the list does not
name, and nothing else: never the zone's SOA and NS (nor an NS delegation), never an immutable record, a record without
a mark or another owner's (any prefix), also where they share an rrset with the owner's records (the prune of such an
rrset is its ``others: keep`` removal), nor the records the owner's service writes for its ``dns`` name (the service
manages those). What it leaves, and why, is counted per reason (``left_behind``).
Its deletes count against ``max_delete`` one per record, as gc counts them.
"""

from ._plan import FAIL, KEEP, DesiredRrset, flat_record, mark_of, plan_rrset, rrset_key, service_comment
from ._run import desired_from
from ._values import ZONE_OWN, fqdn, normal_zone
from .._model._failure import Failure
from .._model._names import check_owner, check_tag_prefix
from .._model._ownership import owner_tag
from .._reconcile._plan import Plan

LISTED = 20   # record sets named per reason in ``left``; the counts are whole
PRUNE_REASON = "prune: this owner's record set is not in record_sets"


def entry_label(index, name, rtype):
    """How messages name an entry: ``record_sets[3] (www A)``."""
    return "record_sets[%d] (%s %s)" % (index, name if name is not None else "@", rtype if rtype else "without type")


class RecordSetsRequest:
    """The task's options, checked before any request: ``zone``, ``sets`` (a ``DesiredRrset`` per entry, in the order
    given), ``owner``, ``tag_prefix``, ``prune``, ``max_delete``."""

    def __init__(self, options):
        """``options``: the task's ``_request.RecordSetsOptions``."""
        self.zone = normal_zone(options.zone)
        self.owner = options.owner
        if self.owner is not None:
            check_owner(self.owner, "owner")
        self.tag_prefix = check_tag_prefix(options.tag_prefix, "tag_prefix")
        self.prune = bool(options.prune)
        if self.prune and not self.owner:
            raise Failure("prune needs owner: it deletes only the record sets carrying the owner's mark that record_sets "
                          "does not name (records without a mark are never pruned); set owner")
        self.max_delete = options.max_delete
        if self.max_delete is not None and self.max_delete < 0:
            raise Failure("max_delete must be at least 0, got %d" % self.max_delete)
        self.sets = self._entries(options.record_sets or [], options.others or FAIL)
        self.named = dict(((d.name, d.type), d) for d in self.sets)

    @property
    def own(self):
        return owner_tag(self.owner, self.tag_prefix) if self.owner else None

    def prunes(self, record):
        """Whether prune may delete ``record`` (of an rrset the list does not name): this owner's mark, not immutable,
        and not the records a service of this owner writes for its ``dns`` option (the service manages those)."""
        comment = record.get("comment")
        return (self.own is not None and mark_of(comment) == self.own and not record.get("immutable")
                and comment != service_comment(self.owner, self.tag_prefix))

    def _entries(self, entries, others):
        sets, seen = [], {}
        for index, entry in enumerate(entries):
            label = entry_label(index, entry.get("name"), entry.get("type"))
            if not entry.get("type"):
                raise Failure("%s: type is required (one of A, AAAA, CNAME, TXT, MX, SRV, PTR)" % label)
            if not entry.get("values"):
                raise Failure("%s: values is required: give the record set's values (prune removes the record sets of "
                              "the owner that the list leaves out)" % label)
            try:
                desired = desired_from(dict(
                    zone=self.zone, name=entry.get("name") or "@", type=entry["type"], values=entry["values"],
                    ttl=entry.get("ttl"), comment=entry.get("comment"), owner=self.owner, tag_prefix=self.tag_prefix,
                    state="present", others=entry.get("others") or others))
            except Failure as exc:
                raise Failure("%s: %s" % (label, exc.msg))
            key = (desired.name, desired.type)
            if key in seen:
                raise Failure("record_sets[%d] and record_sets[%d] both name %s %s: one entry per name and type; merge "
                              "their values into one entry" % (seen[key], index, fqdn(desired.name, self.zone), desired.type))
            seen[key] = index
            sets.append(desired)
        return sets

    def listing_filter(self):
        """The filters of the one listing a run reads: every record of the zone with prune (it looks for the owner's
        record sets everywhere); else, where the API filters, only the name or the type all entries share."""
        if self.prune or not self.sets:
            return {}
        names = set(d.name for d in self.sets)
        types = set(d.type for d in self.sets)
        out = {}
        if len(names) == 1:
            out["name"] = names.pop()
        if len(types) == 1:
            out["rtype"] = types.pop()
        return out


class ZoneListing:
    """What a run observed, the Reconciler's state: the listing grouped by (name, type) as the Engine answered it
    (``groups``), and ``world``, the rrsets the task plans (its entries' and those prune looks at) as plans compare
    them. Only those are normalised: the other records of a large zone are only counted (``left_behind``)."""

    def __init__(self, request, records):
        self.groups = {}
        for record in records:
            self.groups.setdefault((record["name"], record["type"]), []).append(record)
        self.prunable = prunable(self.groups, request) if request.prune else set()
        self.world = {}
        for name, rtype in list(request.named) + sorted(self.prunable):
            found = [flat_record(r) for r in self.groups.get((name, rtype), ())]
            if found:
                found.sort(key=lambda r: (r["value"], r["ttl"] or 0, r["comment"] or ""))
                key = rrset_key(request.zone, name, rtype)
                self.world[key] = dict(kind="dns_record", id=key, zone=request.zone, name=name, type=rtype, records=found,
                                       values=sorted(set(r["value"] for r in found)))


def prunable(groups, request):
    """The (name, type) of the rrsets prune looks at: those the list does not name that hold records of this owner's
    mark that may go (not immutable; never SOA or NS)."""
    return set(key for key, records in groups.items() if key not in request.named and key[1] not in ZONE_OWN
               and any(request.prunes(r) for r in records))


def plan_sets(state, request):
    """The plan of the task: an action per entry that changes, then one per rrset prune empties of this owner's records
    (``action.pruned``); each action carries the ``DesiredRrset`` it was planned from (``action.desired``). An entry's
    rrset is planned as ``dns_record`` plans it, so its failures (another owner's record with ``others: fail``, an
    immutable one) are the same."""
    actions = []
    for desired in request.sets:
        for action in plan_rrset(state.world, desired):
            action.desired = desired
            actions.append(action)
    for name, rtype in sorted(state.prunable):
        desired = DesiredRrset(request.zone, name, rtype, None, present=False, owner=request.owner,
                               tag_prefix=request.tag_prefix, others=KEEP, spare=lambda r: not request.prunes(r))
        for action in plan_rrset(state.world, desired):
            action.desired, action.pruned = desired, True
            action.reason = PRUNE_REASON
            actions.append(action)
    return Plan(actions)


def pruned_records(plan):
    """How many records the plan's prune deletes (what ``max_delete`` caps)."""
    return sum(len(a.deletes) for a in plan if getattr(a, "pruned", False))


def cap_failure(count, max_delete, check_mode):
    """The text of a plan over ``max_delete``: a real run fails with it before any write, check mode warns."""
    head = "prune would delete %d records, more than max_delete (%d)" % (count, max_delete)
    if check_mode:
        return head + ": a real run stops there and writes nothing; check the list (record_sets), then raise max_delete"
    return head + "; nothing was written. Check that record_sets lists every record set of the owner you keep (run " \
                  "with --check --diff to see them), then raise max_delete to at least %d" % count


def why_left(key, record, request):
    """Why the task leaves ``record`` alone (its rrset ``key``), or None when the task manages it (an entry's rrset, or
    prune's): the reasons ``left`` counts."""
    name, rtype = key
    if rtype == "SOA" or (rtype == "NS" and name == "@"):
        return "the zone's own SOA and NS records"
    if rtype == "NS":
        return "an NS delegation (never managed or pruned)"
    if record.get("immutable"):
        return "immutable"
    mark = mark_of(record.get("comment"))
    desired = request.named.get(key)
    if desired is not None and (desired.others == FAIL or (request.own and mark == request.own)):
        return None
    if request.own and mark == request.own:
        if record.get("comment") == service_comment(request.owner, request.tag_prefix):
            return "the service's own DNS name (its dns option manages it)"
        return None if request.prune else "this owner's, not in record_sets (prune is off)"
    if not mark:
        return "no owner mark (made by hand or by a task without owner)"
    return "another owner's (%s)" % mark


def left_behind(state, request):
    """``[{reason, records, record_sets, more}]``: the records of the listing the task leaves alone, counted per reason,
    with the first ``LISTED`` record sets named (``fqdn TYPE``) and how many more there are."""
    found = {}
    for key, records in state.groups.items():
        for record in records:
            reason = why_left(key, record, request)
            if reason is not None:
                entry = found.setdefault(reason, [0, set()])
                entry[0] += 1
                entry[1].add(key)
    out = []
    for reason, (count, keys) in sorted(found.items()):
        labels = sorted("%s %s" % (fqdn(n, request.zone), t) for n, t in keys)
        item = dict(reason=reason, records=count, record_sets=labels[:LISTED])
        if len(labels) > LISTED:
            item["more"] = len(labels) - LISTED
        out.append(item)
    return out
