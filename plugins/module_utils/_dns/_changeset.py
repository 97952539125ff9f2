# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A plan of many rrsets of one zone written as one changeset: one revision, all or nothing (``dns_record_sets``).

The Reconciler's applier for such a plan. The shared ``Applier`` writes each action on its own (a changeset per
rrset: fine for ``dns_record``'s one action, a revision per rrset for a zone task); this one joins the changesets of
every action of the plan (``_plan.changeset``) into one, sent by the rrset operations (``RrsetOperations.send``: the
zone editable first, then with ``wait`` until the revision is live). The actions touch distinct rrsets, so their
deletes and creates do not meet: the joined changeset does what the actions would one after another, and check mode's
predictions, which replay them one by one (``_predicted``), read the same.

A changeset whose answer was lost (5xx, a dropped connection) may have been committed: the round ends as an open
outcome (``Interrupted``) and the Reconciler observes again, never sends it blindly twice; records are found by
value, so a committed changeset plans as done. A refusal names the entries it refused, by the index of its answer.
"""

from ._apply import RrsetOperations
from ._plan import changeset
from ._values import fqdn
from .._engine._errors import EngineError, RateLimitedError
from .._model._failure import Failure
from .._reconcile._apply import Interrupted, may_have_landed


class ChangesetApplier:
    """Writes a plan of rrset actions of one zone as one changeset."""

    def __init__(self, client, waiter=None, wait=True, timeout=600, operations=None):
        self.operations = operations or RrsetOperations(client, wait=wait, timeout=timeout)
        self.ids, self.objects = {}, {}   # what the Reconciler reads after a write: nothing of the kind here

    def confirms_by_wait(self, plan):
        return False   # the revision's state says nothing of its records: the Reconciler observes them again

    def apply(self, plan, wait=None):
        actions = plan.objects()
        if not actions:
            return []
        create, delete = [], []
        for action in actions:
            more_create, more_delete = changeset(action)
            create += more_create
            delete += more_delete
        zone = actions[0].obj["zone"]
        try:
            self.operations.send(zone, create, delete, lambda exc: refused(exc, zone, create, delete))
        except EngineError as exc:
            if not isinstance(exc, RateLimitedError) and may_have_landed(exc):
                raise Interrupted([(actions[0], exc)])
            raise
        return []


def refused(exc, zone, create, delete):
    """A refused changeset as a Failure naming each entry the Engine refused (its errors come by index)."""
    texts = []
    entries = {"create": create, "delete": delete}
    for key, text in sorted(exc.validation.items()):
        side = key.split("[", 1)[0]
        if side in entries and "]" in key:
            index = int(key[len(side) + 1:key.index("]")])
            entry = entries[side][index] if index < len(entries[side]) else None
            what = "%s %s %s" % (fqdn(entry["name"], zone), entry["type"], entry["rdata"]) if entry else "?"
            texts.append("%s of %s: %s" % (side, what, text))
    return Failure("the Engine refused the changeset of zone %s (%d to create, %d to delete; nothing was written): %s"
                   % (zone, len(create), len(delete), "; ".join(texts) or exc.message), error=exc.to_dict())
