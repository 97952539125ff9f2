# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The record sets of one zone, the ``dns_record_sets`` module: a run of one part (``RecordSetsPart``, ``_reconcile._run``).

observe (one GET: with ``wait`` the zone itself, its current revision's records and its state; without, the zone's
records, filtered where the API filters, ``RecordSetsRequest.listing_filter``) -> plan (``_record_sets.plan_sets``:
``plan_rrset`` per entry, prune; and what the zone's newest revision needs, ``_revision``) -> check mode: predict |
apply (``_changeset.ZoneChangeset``: the whole plan as one changeset, one revision) -> observe and plan again, which
must find nothing left to do -> with ``wait: served``, the zone's servers asked until they answer (``_served``). Every
option is checked before the first request, so bad input writes nothing; a prune over ``max_delete`` fails before any
write.
"""

import time

from ._plan import RRSET, view
from ._record_sets import (
    RecordSetsRequest, ZoneListing, cap_failure, left_behind, plan_sets, pruned_records)
from ._revision import read_zone, revision_plan
from ._run import check_dnspython, with_result
from ._served import SERVED, check_nameservers, served_outcome, wait_mode
from ._values import fqdn
from .._model._diff_text import as_text
from .._model._failure import Failure
from .._reconcile._plan import Plan
from .._reconcile._run import Part, Run


def by_name_type(world):
    """``{(name, type): flat rrset}`` of a world (a planned create is keyed by its placeholder, not by its name)."""
    return dict(((o["name"], o["type"]), o) for o in world.values() if o.get("kind") == RRSET.name)


class RecordSetsPart(Part):
    key = "dns record sets"

    def __init__(self, client, request, check_mode, wait=True, wait_timeout=600, warn=None):
        self.client = client
        self.request = request   # a RecordSetsRequest
        self.check_mode = check_mode
        self.wait, self.wait_timeout = wait, wait_timeout
        self.warn = warn or (lambda text: None)
        self.result = {"changed": False}
        self.first = None      # the first observation: what ``left`` and the NS of ``wait: served`` are read from
        self.over = None       # the records a check-mode prune would delete above max_delete

    def observe(self, earlier=()):
        listing = self.request.listing_filter()
        records, answer = read_zone(self.client, self.request.zone, self.wait, name=listing.get("name"),
                                    rtype=listing.get("rtype"))
        state = ZoneListing(self.request, records)
        state.zones = {self.request.zone: answer} if answer else {}
        if self.first is None:
            self.first = state
        return state

    def plan(self, state, planned=()):
        plan = plan_sets(state, self.request)
        count = pruned_records(plan)
        cap = self.request.max_delete
        if cap is not None and count > cap:
            if not self.check_mode:
                raise Failure(cap_failure(count, cap, False), over_max_delete=True)
            self.over = count
        more, waits = revision_plan(state.zones, state.world, list(plan))
        out = Plan(list(plan) + more, waits)
        return out

    def operations(self, client):
        # write code (it imports ._apply and _reconcile._apply at its top): a real run that writes only (_reconcile._run)
        from ._changeset import ZoneChangeset
        return {RRSET.name: ZoneChangeset(client, wait=self.wait, timeout=self.wait_timeout)}

    # ---- the result ----------------------------------------------------------------------------------------------
    def report(self, outcome, diff):
        request, plan = self.request, outcome.plan
        after = by_name_type(outcome.after)
        entries = []
        for action in plan:
            entry = action.to_dict()
            if getattr(action, "pruned", False):
                entry["pruned"] = True
            entries.append(entry)
        self.result.update(
            changed=outcome.changed, plan=entries, summary=self._summary(plan),
            record_sets=[self._rrset(d.name, d.type, after.get((d.name, d.type))) for d in request.sets],
            pruned=[dict(self._rrset(a.obj["name"], a.obj["type"], None), records=[view(r) for r in a.deletes])
                    for a in plan if getattr(a, "pruned", False)],
            left=left_behind(self.first, request))
        if self.over is not None:
            self.result["over_max_delete"] = True
            self.warn(cap_failure(self.over, request.max_delete, True))
        if diff:
            touched = set((a.obj["name"], a.obj["type"]) for a in plan)
            self.result["diff"] = dict(before=self._tree(by_name_type(outcome.before), touched),
                                       after=self._tree(after, touched))
        return self.result

    def _rrset(self, name, rtype, obj):
        records = [view(r) for r in sorted((obj or {}).get("records") or [], key=lambda r: r["value"])]
        return dict(name=name, fqdn=fqdn(name, self.request.zone), type=rtype,
                    values=sorted(set(r["value"] for r in records)), records=records)

    def _tree(self, world, touched):
        """One tree per name the plan touches: ``{fqdn: {type: [records]}}``, a record per line."""
        tree = {}
        for name, rtype in sorted(touched):
            obj = world.get((name, rtype))
            if obj and obj.get("records"):
                tree.setdefault(fqdn(name, self.request.zone), {})[rtype] = [
                    view(r) for r in sorted(obj["records"], key=lambda r: r["value"])]
        return as_text(tree, inline_leaves=True) if tree else ""

    def _summary(self, plan):
        """"zone example.com: 2 to create, 1 to change, 0 to delete (3 records pruned), one changeset"; the past tense
        once a real run applied it."""
        done = bool(plan) and not self.check_mode
        counts = dict((op, len([a for a in plan if a.op == op])) for op in ("create", "update", "delete"))
        words = ("created", "changed", "deleted") if done else ("to create", "to change", "to delete")
        text = "zone %s: %d record sets %s, %d %s, %d %s" % (
            self.request.zone, counts["create"], words[0], counts["update"], words[1], counts["delete"], words[2])
        pruned = pruned_records(plan)
        if pruned:
            text += " (%d records pruned)" % pruned
        return text + (", in one changeset" if plan else "")


def run_record_sets(client, options, check_mode, warn=None, diff=False):
    """The ``dns_record_sets`` module's run (``options``: its ``_request.RecordSetsOptions``): its result; with
    ``wait: served`` what each server answered."""
    check_dnspython()
    started = time.monotonic()
    request = RecordSetsRequest(options)
    mode = wait_mode(options.wait)
    nameservers = check_nameservers(options.nameservers, mode)
    part = RecordSetsPart(client, request, check_mode, wait=bool(mode), wait_timeout=options.wait_timeout, warn=warn)
    outcome = Run(client, check_mode, [part], wait=bool(mode), wait_timeout=options.wait_timeout).run()
    result = part.report(outcome, diff)
    if mode == SERVED and not check_mode:
        # every entry's rrset as the run left it, and those prune emptied of the owner's records
        desireds = request.sets + [a.desired for a in outcome.plan if getattr(a, "pruned", False)]
        with_result(result, lambda: served_outcome(client, request.zone, desireds, outcome, nameservers,
                                                   started + options.wait_timeout, part.first.groups.get(("@", "NS"))),
                    "served")
    return result
