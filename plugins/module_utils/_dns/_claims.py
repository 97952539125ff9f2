# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What this run's own changesets' answers showed at the names it wrote: who came first when two writers race.

Two writers that each found a name free may both write it (two services on different load balancers hold no common
lease; two ``dns_record`` owners hold none at all). The Engine applies a zone's changesets one at a time and answers
each with the zone's records right after it, so the writer whose answer shows the other's records came second: it
takes its own back and fails (``_apply.RrsetOperations._claimed``). The first writer's answer showed none of them;
when it observes again after its write (the run's next round), the second writer's records may still be there, until
their take-back. They came after this run's write, so they are not a conflict of this run: counting them would fail
both runs and leave neither name. ``Claims`` remembers each answer, and ``late`` tells such records apart; only for a
name whose answer this run read (after a lost answer nothing tells who came first, and the next round judges all).
"""

from ._values import fqdn


def _key(record):
    return record.get("type"), record.get("rdata"), record.get("comment")


class Claims:
    """The records of each name (zone, name) as this run's last changeset there answered them, without a conflict."""

    def __init__(self):
        self.shown = {}

    def record(self, zone, name, records):
        self.shown[(zone, name)] = set(_key(r) for r in records if r.get("name") == name)

    def late(self, zone, name, records, foreign):
        """The records of ``name`` in ``records`` (raw, as the Engine lists them) that ``foreign(record)`` says are not
        this run's to share the name with and that came after this run's changeset answered (not in its answer)."""
        shown = self.shown.get((zone, name))
        if shown is None:
            return []
        return [r for r in records if r.get("name") == name and foreign(r) and _key(r) not in shown]

    def without_late(self, zone, name, records, foreign, warn):
        """``records`` without the late ones (``late``), which ``warn`` names: their writer takes them back."""
        late = self.late(zone, name, records, foreign)
        if late:
            held = ", ".join("%s %s (%s)" % (r.get("type"), r.get("rdata"), r.get("comment") or "no comment") for r in late)
            warn("%s: records another writer created after this task wrote the name are left alone: %s. Their writer "
                 "finds this task's records in its own changeset's answer and takes them back"
                 % (fqdn(name, zone), held))
        return [r for r in records if not any(r is x for x in late)]
