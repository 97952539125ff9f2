# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The run of the ``gc`` module: its one part (``_collection.Collection``) in the one run protocol
(``_reconcile._run.Run``), applied owner by owner under its leases, and its result (``report``)."""

from .._model._failure import Failure
from .._reconcile._run import Run
from ._collection import Collection, GcLeases
from ._plan import GcPlan, cap_message, dns_removed, owner_reason, removals, summary
from ._preview import preview


def gc_run(client, request, check_mode, warn):
    """The run of a ``GcRequest``: its options checked and its pools resolved; nothing else requested yet.
    ``run.result`` is the module's result, filled by ``report``."""
    collection = Collection(client, request, check_mode, warn)
    collection.prepare()
    run = Run(client, check_mode, [collection], wait=True, wait_timeout=request.wait_timeout, guard=GcLeases(collection),
              plan_type=GcPlan, isolate=lambda action: action.owner, failed=collection.failed)
    run.result = collection.result
    return run


def report(run, diff=False):
    """Runs gc and fills its result: what went (check mode: would go), what stays and why, per owner."""
    outcome = run.run()
    collection = run.parts[0]
    result, request = run.result, collection.request
    plan = outcome.plan
    decision = plan.decision
    failed = dict(collection.failed)
    done = GcPlan([a for a in plan if a.owner not in failed])
    removed = done.to_list()
    result.update(
        changed=bool(removed) or run.wrote,   # an owner that failed half-way was changed all the same
        removed=removed,
        dns_removed=dns_removed(done),
        kept=decision["kept"],
        skipped_items=decision["skipped"],
        failed_owners=[dict(owner=o, msg=m) for o, m in sorted(failed.items())],
        summary=summary(done, decision["skipped"], decision["kept"], done=not collection.check_mode),
        would_remove=removals(plan),
        over_max_delete=False,
    )
    if collection.capped is not None:
        # check mode over max_delete: the plan stays the preview, and the warning and the summary say that the real
        # run stops before its first delete
        collection.warn(cap_message(plan, collection.capped, request.max_delete, check_mode=True))
        result.update(over_max_delete=True, summary="over max_delete (%d > %d), the real run would stop there and "
                      "delete nothing | %s" % (collection.capped, request.max_delete, result["summary"]))
    if outcome.interruptions:
        result["interruptions"] = outcome.interruptions
    if diff:
        owners = set(s.owner for s in collection.decided.owners)
        reasons = dict((owner, owner_reason(owner, owner in (request.remove or []))) for owner in owners)
        result["diff"] = dict(prepared=preview(removed, decision["skipped"], reasons, done=not collection.check_mode))
    if failed:
        raise Failure("gc could not remove everything of %s: %s" % (
            ", ".join(sorted(failed)), "; ".join("%s: %s" % (o, m) for o, m in sorted(failed.items()))))
    return result
