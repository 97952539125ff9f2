# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""DNS records as an object kind of the shared reconciler: the rrset and its plan (pure).

The object a task manages is an rrset: the records of one (zone, name, type). Its records are told apart by
their normalised value (``_values``), never by their identifier, which changes with every revision of the
zone. A plan holds at most one action per rrset, and the action carries the one changeset
(``{create, delete}``) that makes the rrset what was asked for: a changed value or TTL is a delete and a
create in the same all-or-nothing revision, so a failure never leaves a duplicate or a gap, and a value
held twice is kept once.

Ownership: records carry no tags, so the owner's mark is the start of the record's ``comment``
(``<tag_prefix>-svc=<owner>``, the owner tag's text, then ``; `` and the comment). A record carrying
another owner's mark (any prefix), or any mark when the task names no owner, is never changed or deleted;
nor is an immutable one. A record with no mark is the user's to manage by naming its rrset.
"""

from ._values import fqdn, stored_value
from .._model._failure import Failure
from .._model._kind import CREATE, DELETE, UPDATE, Kind, registered
from .._model._ownership import is_owner_tag, owner_tag, split_owner_tag
from .._reconcile._plan import Action, Placeholder, Plan

MARK_END = "; "
COMMENT_MAX = 255

# What the records of others in an rrset are to a task (the option ``others``): FAIL, the rrset is the task's alone and
# a record of another owner in it fails the task (``_check_may_touch``); KEEP, the task manages only its owner's records
# and keeps every other one, so that several owners hold values in one rrset (SPF and site verification TXT at the apex).
FAIL, KEEP = "fail", "keep"
OTHERS = (FAIL, KEEP)


def mark_of(comment):
    """The owner mark a comment starts with (``anxlb-svc=shop``), or None."""
    head = (comment or "").split(";", 1)[0].strip()
    return head if is_owner_tag(head) and " " not in head else None


# What follows the mark in the comment of the records a service writes for its ``dns`` option. It tells them from
# records a ``dns_record`` task made for the same owner (which dns_record refuses to write with this note): a
# service that moves its name deletes its old records, and only its own.
SERVICE_NOTE = "dns name of the service"


def service_comment(owner, tag_prefix):
    """The comment of the records a service writes for its ``dns`` option."""
    return comment_text(owner, tag_prefix, SERVICE_NOTE)


def is_service_record(comment):
    """Whether a record's comment is the one a service writes for its ``dns`` option (its mark, then SERVICE_NOTE)."""
    mark = mark_of(comment)
    return bool(mark) and (comment or "") == mark + MARK_END + SERVICE_NOTE


def comment_text(owner, tag_prefix, comment):
    """The comment a record of ``owner`` carries: the mark, then the comment."""
    if not owner:
        return comment or None
    mark = owner_tag(owner, tag_prefix)
    return mark + (MARK_END + comment if comment else "")


class RrsetKind(Kind):
    """The records of one name and type in a zone; identity (zone, name, type). Creating one, changing it
    and deleting it are each one changeset.

    Its place in a run of several families follows from what it depends on: a name's records point at the
    addresses binds carry, so they are written after the binds of the plan exist (``dependencies``: the bind kind;
    the applier writes them after the other creates) and deleted before them (``delete_level``: below every level
    of what it depends on). ``redeploy`` writes the rrset again as it is: a zone whose newest revision failed gets a
    new revision that the DNS servers may serve (``_revision``)."""

    recorded_as = "dns"
    terse_summary = True

    def dependencies(self):
        return ["bind"]

    @property
    def delete_level(self):
        levels = [k.delete_level for k in registered() if k.name in self.dependencies()]
        return min(levels) - 1 if levels else 0

    def place(self, action):
        return "dns %s" % fqdn(action.obj["name"], action.obj["zone"])

    def identity(self, obj):
        return (obj.get("zone"), obj.get("name"), obj.get("type"))

    def to_engine(self, desired):
        return dict(desired)   # the operations send the action's changeset, not a body of the object

    def update_body(self, obj, changes=None):
        return dict(obj)

    def predict(self, obj, action):
        obj["records"] = [dict(r) for r in action.records_after]
        obj["values"] = sorted(r["value"] for r in action.records_after)
        obj["planned"] = action.op
        return obj

    def entry(self, action):
        return dict(action=action.op, zone=action.obj["zone"], name=action.obj["name"], type=action.obj["type"],
                    create=[view(r) for r in action.creates], delete=[view(r) for r in action.deletes],
                    changes=dict((f, {"before": b, "after": a}) for f, (b, a) in sorted(action.changes.items())),
                    reason=action.reason)

    def label(self, action):
        return "%s rrset %s %s" % (action.op, fqdn(action.obj["name"], action.obj["zone"]), action.obj["type"])


RRSET = RrsetKind("dns_record", fields={"values": list, "ttl": int, "comment": str})


def rrset_key(zone, name, rtype):
    return "%s %s %s" % (zone, name, rtype)


def view(record):
    """A record as modules show it: its normalised value, ttl (None: the zone's default) and comment."""
    return dict(value=record["value"], ttl=record.get("ttl"), comment=record.get("comment"))


def flat_record(record):
    """A record the Engine answered, as plans compare it."""
    return dict(value=stored_value(record), rdata=record.get("rdata"), ttl=record.get("ttl") or None,
                comment=record.get("comment"), region=record.get("region") or "default",
                immutable=bool(record.get("immutable")), name=record["name"], type=record["type"])


def observed_rrset(zone, name, rtype, records):
    """The world of one rrset: ``{key: flat rrset}``, empty when it has no record."""
    mine = sorted((flat_record(r) for r in records if r.get("name") == name and r.get("type") == rtype),
                  key=lambda r: (r["value"], r["ttl"] or 0, r["comment"] or ""))
    if not mine:
        return {}
    key = rrset_key(zone, name, rtype)
    return {key: dict(kind=RRSET.name, id=key, zone=zone, name=name, type=rtype, records=mine,
                      values=sorted(set(r["value"] for r in mine)))}


class ZoneObservation:
    """What a DNS part observed: the rrsets as read (``world``) and, when the run waits, the zones' own answers
    (``zones``: zone -> the zone with its revisions' state, ``_revision``)."""

    def __init__(self, world, zones=None):
        self.world = world
        self.zones = dict(zones or {})


class DesiredRrset:
    """What a task asks for: ``values`` (normalised; None with state absent: every record), ``ttl`` (None:
    not compared), ``comment`` (the full comment with the owner's mark; ``compare_comment`` False: left as it is),
    ``others`` (``FAIL`` or ``KEEP``: what the records of others in the rrset are to the task, see ``shared_split``)."""

    def __init__(self, zone, name, rtype, values, present=True, ttl=None, comment=None, compare_comment=False,
                 owner=None, tag_prefix="anxlb", others=FAIL, spare=None, clashing=None):
        self.zone, self.name, self.type = zone, name, rtype
        self.values, self.present, self.ttl = values, present, ttl
        self.comment, self.compare_comment = comment, compare_comment
        self.owner, self.tag_prefix = owner, tag_prefix
        self.others = others   # FAIL: the rrset is the task's alone; KEEP: only the owner's records are (shared_split)
        self.spare = spare     # with KEEP, a test of the owner's records the task keeps too (prune: a service's name)
        # The record types of the name this task must hold alone (a service's name: A, AAAA and CNAME; an rrset: its type).
        self.clashing = tuple(clashing or (rtype,))

    def foreign(self, record):
        """Whether ``record`` (of this name) is one this task may neither change nor share the name with: of a clashing
        type, and another owner's (any prefix; not with ``others: keep``, where others' values are expected), or a
        service's name record when this task is not that service's, or, for a service's name, any record that is not
        its own."""
        if record.get("type") not in self.clashing:
            return False
        if is_service_record(self.comment):
            return record.get("comment") != self.comment
        if is_service_record(record.get("comment")):
            return True
        mark = mark_of(record.get("comment"))
        own = owner_tag(self.owner, self.tag_prefix) if self.owner else None
        return bool(mark and mark != own) and self.others != KEEP

    def fits(self, record):
        """Whether an existing record may stay as it is (its value aside)."""
        return ((self.ttl is None or record["ttl"] == self.ttl)
                and (not self.compare_comment or record["comment"] == self.comment))


def check_others(others, owner, rtype, where=""):
    """The option ``others`` (``where``: the entry it belongs to, as messages name it) or a Failure before any request:
    KEEP needs an owner (the mark is what tells the task's records from the others) and is no mode for a CNAME (a
    name is an alias of one name: two owners cannot each add a target)."""
    if others not in OTHERS:
        raise Failure("%sothers must be one of %s, got %r" % (where, ", ".join(OTHERS), others))
    if others == KEEP and not owner:
        raise Failure("%sothers: keep needs owner: the owner's mark in the records' comment is what tells its records from "
                      "the others it keeps; set owner" % where)
    if others == KEEP and rtype == "CNAME":
        raise Failure("%sothers: keep is not for a CNAME (a name is an alias of one name); manage it with others: fail"
                      % where)
    return others


def shared_split(records, desired):
    """(the records the task manages, the records it keeps as they are). With ``others: keep`` the task's are those
    carrying its owner's mark and every other record stays (another owner's, a hand-made one, an immutable one); else
    the whole rrset is the task's and the others list is empty (``_check_may_touch`` then refuses to delete theirs)."""
    if desired.others != KEEP:
        return records, []
    own = owner_tag(desired.owner, desired.tag_prefix)
    mine = [r for r in records if mark_of(r["comment"]) == own and not (desired.spare and desired.spare(r))]
    return mine, [r for r in records if not any(r is m for m in mine)]


def check_shared_ttl(others, desired):
    """DNS serves one TTL per rrset, so with ``others: keep`` a ``ttl`` is taken only when every record the task keeps
    has it: a TTL change is the whole rrset's, which no owner alone may make (it would rewrite the others' records).
    Without ``ttl`` the task's new records take the rrset's TTL (``_new``), so the rrset keeps one TTL."""
    if desired.ttl is None:
        return
    differ = [r for r in others if r["ttl"] != desired.ttl]
    if differ:
        raise Failure("%s %s: ttl %d differs from the TTL of records this task keeps (others: keep): %s; DNS serves one TTL "
                      "per rrset and one owner does not change the others' records: leave ttl out (new records take the "
                      "rrset's TTL), or change the TTL of every record of the rrset together"
                      % (fqdn(desired.name, desired.zone), desired.type, desired.ttl,
                         ", ".join("%s (ttl %s, %s)" % (
                             r["value"], r["ttl"] if r["ttl"] is not None else "the zone's default", _holder(r))
                             for r in differ)))


def _holder(record, tag_prefix=None):
    """Who holds a record, as messages say it (the mark's tag prefix too when it is not ``tag_prefix``)."""
    mark = mark_of(record["comment"])
    if record["immutable"]:
        return "immutable"
    if not mark:
        return "no owner mark"
    prefix, owner = split_owner_tag(mark)
    return "owner '%s'%s" % (owner, " of tag prefix '%s'" % prefix if tag_prefix and prefix != tag_prefix else "")


def plan_rrset(world, desired):
    """The plan (no action, or one) that makes the rrset in ``world`` what ``desired`` asks for."""
    key = rrset_key(desired.zone, desired.name, desired.type)
    obj = world.get(key)
    records = list(obj["records"]) if obj else []
    mine, others = shared_split(records, desired)
    if desired.present:
        check_shared_ttl(others, desired)
        keep, deletes = _kept(mine, desired)
        creates = [_new(value, records, keep, desired) for value in desired.values if value not in keep]
        after = sorted(list(keep.values()) + creates + others, key=lambda r: r["value"])
    else:
        (deletes, after), creates = _removed(records, mine, desired), []
    if not deletes and not creates:
        return Plan()
    _check_may_touch(deletes, desired)
    if obj is None:
        op, obj = CREATE, dict(kind=RRSET.name, id=Placeholder("dns_record", "%s %s" % (desired.name, desired.type),
                                                               desired.zone),
                               zone=desired.zone, name=desired.name, type=desired.type, records=[], values=[])
    else:
        op = DELETE if not after else UPDATE
    action = Action(op, RRSET, obj, changes=_changes(records, after), reason=_reason(mine, deletes, creates, desired))
    action.deletes, action.creates, action.records_after = deletes, creates, after
    action.desired = desired   # what the write checks the zone's answer against (_apply: two writers at once)
    return Plan([action])


def _removed(records, mine, desired):
    """(the records state absent deletes: the task's of its values, or all the task's; the records after)."""
    doomed = set(desired.values) if desired.values is not None else None
    deletes = [r for r in mine if doomed is None or r["value"] in doomed]
    return deletes, [r for r in records if not any(r is d for d in deletes)]


def _kept(records, desired):
    """The records that stay (one per wanted value, one that fits first) and those that go."""
    keep = {}
    for record in sorted(records, key=lambda r: not desired.fits(r)):
        if record["value"] in desired.values and record["value"] not in keep and desired.fits(record):
            keep[record["value"]] = record
    kept = [id(r) for r in keep.values()]
    return keep, [r for r in records if id(r) not in kept]


def _new(value, records, keep, desired):
    """A record to create for ``value``: the TTL asked for, else the one the rrset has (DNS serves one TTL per
    rrset), else the zone's default; the comment asked for, else the one its value had."""
    same = [r for r in records if r["value"] == value]
    ttl = desired.ttl
    if ttl is None:
        ttls = [r["ttl"] for r in list(keep.values()) + same + records]
        ttl = ttls[0] if ttls else None
    comment = desired.comment if desired.compare_comment else (same[0]["comment"] if same else None)
    return dict(value=value, rdata=value, ttl=ttl, comment=comment, region="default", immutable=False,
                name=desired.name, type=desired.type)


def _check_may_touch(deletes, desired):
    """Refuses a plan that changes or deletes an immutable record or another owner's (a change is a delete and
    a create: the delete is what touches it)."""
    own = owner_tag(desired.owner, desired.tag_prefix) if desired.owner else None
    where = fqdn(desired.name, desired.zone)
    for record in deletes:
        if record["immutable"]:
            raise Failure("%s %s record %s is immutable (CloudDNS keeps it as it is); dns_record does not change or delete it"
                          % (where, desired.type, record["value"]))
        if is_service_record(record["comment"]) and record["comment"] != desired.comment:
            raise Failure("%s %s record %s is the dns name of service '%s' (comment %r): it is that service's, kept by its "
                          "dns option; remove the name from the service, or give this task another name"
                          % (where, desired.type, record["value"], split_owner_tag(mark_of(record["comment"]))[1],
                             record["comment"]))
        mark = mark_of(record["comment"])
        if mark and mark != own:
            raise Failure("%s %s record %s belongs to %s (comment %r); dns_record never changes or deletes another "
                          "owner's record%s" % (where, desired.type, record["value"], _holder(record, desired.tag_prefix),
                                                record["comment"],
                                                "" if desired.owner else ": set owner to that owner if this task manages it"))


def _changes(before, after):
    out = {}
    for field, get in (("values", lambda rs: sorted(set(r["value"] for r in rs))),
                       ("ttl", lambda rs: sorted(set(r["ttl"] or 0 for r in rs))),
                       ("comment", lambda rs: sorted(set(r["comment"] or "" for r in rs)))):
        if get(before) != get(after):
            out[field] = (get(before), get(after))
    return out


def _reason(records, deletes, creates, desired):
    """Why, from the records the task manages (with ``others: keep`` the owner's only)."""
    if not desired.present:
        return "state is absent"
    if not records:
        return "the rrset has no record of owner '%s'" % desired.owner if desired.others == KEEP else "the rrset has no record"
    return "; ".join("%s %s" % (text, ", ".join(sorted(set(values)))) for text, values in _why(records, deletes, desired)
                     if values)


def _why(records, deletes, desired):
    """(what, values) of a change of a present rrset."""
    held = set(r["value"] for r in records)
    wanted = [r for r in deletes if r["value"] in desired.values]
    return (("missing value(s)", [v for v in desired.values if v not in held]),
            ("value(s) not asked for", [r["value"] for r in deletes if r["value"] not in desired.values]),
            ("ttl or comment differs for", [r["value"] for r in wanted if not desired.fits(r)]),
            ("held more than once", [r["value"] for r in wanted if desired.fits(r)]))


def _engine_key(record):
    """What the Engine matches a delete entry on: name, type, value, region and TTL (null and 0: the zone's default)."""
    return (record["name"], record["type"], record["rdata"], record.get("region") or "default", record.get("ttl") or 0)


def changeset(action):
    """The changeset body of an action: ``(create, delete)`` entries, deletes matching the records as the Engine
    stores them.

    A delete entry names no record by identity (identifiers change with every revision): the Engine removes the
    first record of that name, type, value, region and TTL, which need not be the one meant when another record of
    the rrset has all of these but its comment (a hand-made twin of an owner's record). So every such twin is
    deleted too and created again as it was, in the same all-or-nothing changeset: whichever the Engine picks, the
    records that stay are exactly those planned."""
    deletes = list(action.deletes)
    doomed = [_engine_key(r) for r in deletes]
    held = list(action.obj.get("records") or []) + list(action.obj.get("others") or [])   # others: not the task's
    twins = [r for r in held if _engine_key(r) in doomed and not any(r is d for d in deletes)]
    delete = [dict(name=r["name"], type=r["type"], rdata=r["rdata"], region=r["region"], ttl=r["ttl"] or 0)
              for r in deletes + twins]
    create = [dict(name=r["name"], type=r["type"], rdata=r["rdata"], region=r["region"], ttl=r["ttl"] or 0,
                   comment=r["comment"]) for r in twins + list(action.creates)]
    return create, delete


def owned_rrsets(zone, records, owned):
    """``{key: rrset}`` of the records for which ``owned(record)`` holds, by name and type; each rrset also keeps the
    others of its name and type (``others``: never deleted, but a changeset must know them, ``changeset``)."""
    ours = [r for r in records if owned(r)]
    world = {}
    for name, rtype in sorted(set((r["name"], r["type"]) for r in ours)):
        found = observed_rrset(zone, name, rtype, ours)
        rest = observed_rrset(zone, name, rtype, [r for r in records if not owned(r)])
        for key, obj in found.items():
            obj["others"] = rest.get(key, {}).get("records", [])
        world.update(found)
    return world


def removal(obj, reason, owner=None):
    """The action that deletes the records of ``obj`` (an rrset of ``owned_rrsets``), and only those."""
    action = Action(DELETE, RRSET, obj, changes=_changes(obj["records"], []), reason=reason, owner=owner)
    action.deletes, action.creates, action.records_after = list(obj["records"]), [], []
    return action
