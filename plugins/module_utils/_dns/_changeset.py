# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A plan of many rrsets of one zone written as one changeset: one revision, all or nothing (``dns_record_sets``).

The operations of the rrset kind in such a run: ``batched`` (``_model._kind.Operations``), so the one ``Applier``
hands them every action of the plan at once (``write_all``), where the rrset operations of ``dns_record`` write a
changeset per action. They join the changesets of the actions (``_plan.changeset``) into one, sent as the rrset
operations send one (``RrsetOperations.send``: the zone editable first, then with ``wait`` until the revision is
live). The actions touch distinct rrsets, so their
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


class ZoneChangeset(RrsetOperations):
    """Writes the rrset actions of a plan of one zone as one changeset."""

    batched = True

    def write_all(self, applier, actions):
        actions = [a for a in actions if not a.kind.bookkeeping]
        if not actions:
            return []
        create, delete = [], []
        for action in actions:
            more_create, more_delete = changeset(action)
            create += more_create
            delete += more_delete
        zone = actions[0].obj["zone"]
        try:
            self.send(zone, create, delete, lambda exc: refused(exc, zone, create, delete))
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
