# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The record sets of one zone, reconciled through the shared ``Reconciler`` (the ``dns_record_sets`` module).

observe (one GET: the zone's records, filtered where the API filters, ``RecordSetsRequest.listing_filter``) -> plan
(``_record_sets.plan_sets``: ``plan_rrset`` per entry, prune) -> check mode: predict | apply (``_changeset``: the whole
plan as one changeset, one revision) -> observe and plan again, which must find nothing left to do -> with
``wait: served``, the zone's servers asked until they answer (``_served``). Every option is checked before the first
request, so bad input writes nothing; a prune over ``max_delete`` fails before any write.
"""

import time

from ._clouddns import CloudDNS
from ._plan import view
from ._record_sets import (
    RecordSetsRequest, ZoneListing, cap_failure, left_behind, plan_sets, pruned_records)
from ._served import SERVED, check_nameservers, served_outcome, wait_mode
from ._values import fqdn, has_dnspython
from .._model._diff_text import as_text
from .._model._failure import Failure
from .._reconcile._loop import Reconciler


def by_name_type(world):
    """``{(name, type): flat rrset}`` of a world (a planned create is keyed by its placeholder, not by its name)."""
    return dict(((o["name"], o["type"]), o) for o in world.values())


class DnsRecordSetsRun:
    def __init__(self, client, params, check_mode, warn=None):
        self.client = client
        self.params = params
        self.check_mode = check_mode
        self.warn = warn or (lambda text: None)
        self.result = {"changed": False}
        self.request = None
        self.first = None      # the first observation: what ``left`` and the NS of ``wait: served`` are read from
        self.over = None       # the records a check-mode prune would delete above max_delete

    def run(self, diff=False):
        if not has_dnspython():
            from ansible.module_utils.basic import missing_required_lib
            raise Failure(missing_required_lib("dnspython"))
        started = time.monotonic()
        self.request = RecordSetsRequest(self.params)
        mode = wait_mode(self.params["wait"])
        nameservers = check_nameservers(self.params.get("nameservers"), mode)
        reconciler = Reconciler(self.client, self.check_mode, wait=bool(mode), wait_timeout=self.params["wait_timeout"],
                                applier=self._applier)
        outcome = reconciler.run(self.observe, self.plan)
        self._report(outcome, diff)
        if mode == SERVED and not self.check_mode:
            # every entry's rrset as the run left it, and those prune emptied of the owner's records
            desireds = self.request.sets + [a.desired for a in outcome.plan if getattr(a, "pruned", False)]
            self.result["served"] = served_outcome(self.client, self.request.zone, desireds, outcome, nameservers,
                                                   started + self.params["wait_timeout"], self.first.groups.get(("@", "NS")))
        return self.result

    # ---- the Reconciler's parts ----------------------------------------------------------------------------------
    def observe(self):
        records = CloudDNS(self.client).records(self.request.zone, **self.request.listing_filter())
        state = ZoneListing(self.request, records)
        if self.first is None:
            self.first = state
        return state

    def plan(self, state):
        plan = plan_sets(state, self.request)
        count = pruned_records(plan)
        cap = self.request.max_delete
        if cap is not None and count > cap:
            if not self.check_mode:
                raise Failure(cap_failure(count, cap, False), over_max_delete=True)
            self.over = count
        return plan

    def _applier(self, client, waiter):
        """The Reconciler's applier, made only when a real run writes: the whole plan as one changeset."""
        from ._changeset import ChangesetApplier
        return ChangesetApplier(client, waiter, wait=bool(wait_mode(self.params["wait"])),
                                timeout=self.params["wait_timeout"])

    # ---- the result ----------------------------------------------------------------------------------------------
    def _report(self, outcome, diff):
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
