# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Garbage collection decisions (pure): which owners go, and which of their objects stay and why.

Input is a snapshot (``_gc_run``): per owner to collect, the delete actions its own removal plan has
(the service planner run to "absent" on every load balancer its tag is found on: ownership by owner
tag, or containment under a frontend or backend of ours) and its address objects. The rules, each
a reason in ``skipped``:

* an owner younger than ``min_age`` stays whole; so does one whose age nothing tells while
  ``min_age`` is set (a run that has created objects but not yet written its marker looks exactly
  like that, and a wrong delete is an outage, a leftover is not);
* on a load balancer outside ``load_balancers``, or leased by another run, or whose lease this run
  could not take, the owner's objects stay;
* an object that also carries the owner tag of an owner not being collected (of any prefix) keeps the owner's
  objects on that load balancer (deleting its parent would take a live owner's object with it);
* objects whose load balancer is unknown (their parent is gone) go only with ``prune_orphans``:
  without a load balancer there is no scope to check and no lease to take;
* an address a bind still listens on stays (that bind is not deleted by this plan);
* over ``max_delete`` removals a real run fails before writing anything; check mode shows the whole plan as its
  preview and says that the real run would stop there.
"""

import calendar
import time

from .._model._failure import Failure
from .._lbaas._lease import when
from .._model._ownership import foreign_tags, owner_tag
from .._reconcile._plan import DELETE, Action, Plan
from .._dns._plan import RRSET, view
from .._dns._values import fqdn
from .._service._marker import MARKER, MARKER_KIND   # the service's marker, as gc removes it


def select(found, keep, remove):
    """``(collect, kept)``: with ``keep``, every found owner not in it goes; ``remove`` goes in any case."""
    if keep is None:
        return sorted(set(remove)), []
    collect = sorted((set(found) - set(keep)) | set(remove))
    return collect, sorted(set(found) & set(keep))


def parse_created(text):
    """A core resource's ``created_at`` ("YYYY-MM-DD HH:MM:SS") read as UTC, or None. The Engine does not say
    its zone; read as UTC, a time written in a zone east of UTC (the Engine's own, CET) looks younger, never older."""
    try:
        return calendar.timegm(time.strptime(str(text), "%Y-%m-%d %H:%M:%S"))
    except (TypeError, ValueError):
        return None


def youngest(stamps):
    known = [s for s in stamps if s]
    return max(known) if known else None


def age_reason(now, stamps, min_age):
    """Why an owner is too young to collect, or None. ``stamps``: marker times and creation times known."""
    if not min_age:
        return None
    newest = youngest(stamps)
    if newest is None:
        return ("its age is unknown (no marker on a load balancer, no creation time on its objects) and min_age is "
                "%ds; collect it with min_age: 0" % min_age)
    if now - newest < min_age:
        return "last written %s (%ds ago), younger than min_age (%ds)" % (when(newest), max(0, int(now - newest)), min_age)
    return None


def owner_reason(owner, removing):
    """Why everything of a collected owner goes: named in ``remove``, or absent from the live set."""
    if removing:
        return "owner '%s' is named in remove" % owner
    return "owner '%s' is not in the live set" % owner


def marker_removal(lb, tag, owner, reason=None):
    """Removing a collected owner's marker from a load balancer (and its tag entity); ``reason``: why the owner goes."""
    return Action(DELETE, MARKER_KIND, dict(kind=MARKER, id="%s/%s" % (lb["id"], tag), name=tag), lb=lb, owner=owner,
                  reason=("%s; its marker goes once nothing of it is left on the load balancer" % reason) if reason
                  else "the owner's marker; nothing of it is left on the load balancer")


class GcPlan(Plan):
    """Delete actions of every owner collected (LBaaS objects children first, then markers, then addresses),
    owner by owner within each rank; ``decision`` holds what stays and why."""

    def __init__(self, actions=(), decision=None):
        super().__init__(actions)
        self.decision = decision

    @classmethod
    def joined(cls, plans):
        out = super().joined(plans)
        out.decision = next((p.decision for p in plans if getattr(p, "decision", None) is not None), None)
        return out

    def to_list(self):
        return [entry for a in self for entry in removed_entries(a)]


def removed_entries(action):
    """How an action of gc's plan reads in ``removed``: one entry per object, address or marker; one per DNS record
    (an rrset action deletes the owner's records of one name and type)."""
    if action.kind.name == RRSET.name:
        return [dict(type=action.obj["type"], name="%s %s" % (fqdn(action.obj["name"], action.obj["zone"]), r["value"]),
                     id=None, owner=action.owner, zone=action.obj["zone"], reason=action.reason) for r in action.deletes]
    return [removed_entry(action)]


def removed_entry(action):
    out = dict(type=action.kind.name, name=action.obj.get("name"), id=action.id, owner=action.owner,
               reason=action.reason)
    if action.kind.name == "address":
        out.update(prefix=action.obj["prefix"], name=action.obj["address"])
    else:
        out["load_balancer"] = (action.lb or {}).get("name")
    if action.kind.name == MARKER:
        out["id"] = None
    return out


def dns_removed(plan):
    """The ``dns_removed`` result: per owner and rrset, the records gc deletes."""
    return [dict(owner=a.owner, zone=a.obj["zone"], name=a.obj["name"], type=a.obj["type"],
                 records=[view(r) for r in a.deletes]) for a in plan if a.kind.name == RRSET.name]


def skip(owner, reason, load_balancer=None, prefix=None, objects=()):
    out = dict(owner=owner, reason=reason, objects=[dict(type=o["kind"], name=o.get("name"), id=o["id"]) for o in objects])
    if load_balancer is not None:
        out["load_balancer"] = load_balancer
    if prefix is not None:
        out["prefix"] = prefix
    return out


def protected(objs, collecting, prefix):
    """Objects that carry the owner tag of an owner not being collected, of this prefix or any other
    (``_ownership.foreign_tags``; read from their own tags)."""
    own = [owner_tag(owner, prefix) for owner in collecting]
    return [o for o in objs if foreign_tags(o.get("tags"), own)]


def _count(action):
    """How many removals an action is: a marker none (a tag, not counted against the cap), an rrset action one per
    record it deletes (a record is what the Engine stores and a resolver answers), anything else one."""
    if action.kind.name == MARKER:
        return 0
    return len(action.deletes) if action.kind.name == RRSET.name else 1


def removals(plan):
    """How many objects, addresses and DNS records the plan removes (the number ``max_delete`` bounds)."""
    return sum(_count(a) for a in plan)


def over_cap(plan, max_delete):
    """The number of removals when it is above ``max_delete``, else None."""
    count = removals(plan)
    return count if max_delete is not None and count > max_delete else None


def _owners_text(owners, shown=8):
    """``a, b, c`` or, for many, ``a, b, ... and 12 more``: a message stays one readable line."""
    if len(owners) <= shown:
        return ", ".join(owners)
    return "%s and %d more" % (", ".join(owners[:shown]), len(owners) - shown)


def removals_by_owner(plan):
    """{owner: number of removals} (markers not counted, DNS records one each)."""
    per_owner = {}
    for action in plan:
        if _count(action):
            per_owner[action.owner] = per_owner.get(action.owner, 0) + _count(action)
    return per_owner


def cap_message(plan, count, max_delete, check_mode):
    """The sentence that says the cap stops the run (a real run's failure, check mode's warning)."""
    owners = sorted(removals_by_owner(plan))
    dns = any(a.kind.name == RRSET.name for a in plan)
    what = "%d %s of %d owner(s) (%s), more than max_delete (%d)" % (
        count, "objects, addresses and DNS records" if dns else "objects and addresses", len(owners),
        _owners_text(owners), max_delete)
    if check_mode:
        return ("gc would remove %s: the real run would stop there and delete nothing. The preview shows what would "
                "go; check the live set (keep), then raise max_delete to at least %d to go ahead" % (what, count))
    return ("gc would remove %s, so nothing was deleted; preview them with --check --diff, check the live set "
            "(keep), then raise max_delete to at least %d to go ahead" % (what, count))


def check_cap(plan, max_delete):
    """A real run over the cap fails before any write: one sentence, with the counts per owner as data (the
    whole plan would be printed on the task's ``fatal:`` line; check mode shows it as a preview instead)."""
    count = over_cap(plan, max_delete)
    if count is not None:
        raise Failure(cap_message(plan, count, max_delete, check_mode=False), would_remove=count, removed=[],
                      would_remove_by_owner=removals_by_owner(plan), over_max_delete=True)


def _counts_by_place(plan, done):
    """[((place, what), count)] in the order first met: load balancers, prefixes, zones (in the plan's order)."""
    places = []
    counts = {}
    destroy, release = ("destroyed", "released") if done else ("to destroy", "to release")
    records = "DNS record(s) deleted" if done else "DNS record(s) to delete"
    for action in plan:
        if action.kind.name == MARKER:
            continue
        if action.kind.name == "address":
            key = (action.obj["prefix"], release)
        elif action.kind.name == RRSET.name:
            key = ("zone %s" % action.obj["zone"], records)
        else:
            key = ((action.lb or {}).get("name") or "(unknown load balancer)", destroy)
        if key not in counts:
            places.append(key)
        counts[key] = counts.get(key, 0) + _count(action)
    return [(key, counts[key]) for key in places]


def summary(plan, skipped, kept, done=False):
    """One readable line: what goes where (``done``: what went, in a real run), then who stays; DNS records counted
    per zone."""
    places = _counts_by_place(plan, done)
    owners = sorted(removals_by_owner(plan))
    text = "; ".join("%s: %d %s" % (place, count, what) for (place, what), count in places) or "nothing to collect"
    text += " | owners collected: %s" % (", ".join(owners) or "none")
    text += " | kept: %d owner(s)" % len(kept)
    skipped_owners = sorted(set(s["owner"] for s in skipped))
    text += " | skipped: %s" % (", ".join(skipped_owners) or "nothing")
    return text
