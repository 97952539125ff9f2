# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The operations of the rrset kind (``_plan.RRSET``): how the shared ``Applier`` writes a DNS plan.

Every action, create, update or delete alike, is one changeset of the zone (all or nothing). CloudDNS
refuses writes while a revision validates and deploys (``is_editable`` false), so a write first waits for
the zone to be editable, as Terraform does; a refusal that still says "not editable" (another writer was
faster) is waited out and sent again, any other refusal fails naming the entry. With ``wait`` the write
is followed by a wait until its revision is live (``deployment_level`` 100); a revision that failed to
deploy fails the run.

A changeset whose answer was lost (5xx, a dropped connection) is an open outcome: the Reconciler observes
the rrset again and plans from what it then holds (records are found by value, so nothing is created twice).
"""

import time

from ._clouddns import CloudDNS, live, revision_state
from ._plan import changeset
from .._engine._errors import EngineError
from .._model._failure import Failure
from .._model._kind import Operations
from .._reconcile._apply import may_have_landed

NOT_EDITABLE = "not editable"
FAILED_STATES = ("failed", "error")


class RrsetOperations(Operations):
    sequential = True

    def __init__(self, client, wait=True, timeout=600, sleep=time.sleep, clock=time.monotonic, interval=0.2, cap=5.0):
        self.dns = CloudDNS(client)
        self.wait = wait
        self.timeout = timeout
        self.sleep, self.clock = sleep, clock
        self.interval, self.cap = interval, cap

    def create(self, applier, action, body):
        self._write(action)
        return action.id, None   # records have no lasting identifier: the rrset keeps its key

    def update(self, applier, action, body):
        self._write(action)
        return None

    def delete(self, applier, action):
        self._write(action)

    def tag(self, applier, action, ident):
        return None   # records carry no tags: the owner's mark is in the comment the changeset writes

    def settles_later(self, action, exc):
        return may_have_landed(exc)

    def _write(self, action):
        create, delete = changeset(action)
        self.send(action.obj["zone"], create, delete, lambda exc: _refused(exc, action))

    def send(self, zone, create, delete, refused):
        """One changeset of ``zone`` once it is editable, then (``wait``) until its revision is live; ``refused(exc)``
        is the Failure of a refusal (a 400 that is not "not editable")."""
        deadline = self.clock() + self.timeout
        while True:
            self.editable(zone, deadline)
            try:
                self.dns.changeset(zone, create, delete)
                break
            except EngineError as exc:
                if exc.status != 400 or NOT_EDITABLE not in (exc.message or "") or self.clock() > deadline:
                    raise refused(exc) if exc.status == 400 else exc
        if self.wait:
            self.editable(zone, deadline, written=True)

    def editable(self, zone, deadline, written=False):
        """Polls the zone until its newest revision is live; a revision that failed fails the run when it is
        the one this task wrote (else the zone is editable again and the write goes on)."""
        delay = self.interval
        while True:
            answer = self.dns.zone(zone)
            serial, state = revision_state(answer)
            if written and state in FAILED_STATES:
                raise Failure("zone %s: the revision %s with this task's changes failed to deploy (state %s)"
                              % (zone, serial, state))
            if live(answer) or (not written and answer.get("is_editable")):
                return answer
            if self.clock() > deadline:
                raise Failure("zone %s: timed out after %ds waiting for revision %s to go live (state %s, deployment_level %s)"
                              % (zone, self.timeout, serial, state, answer.get("deployment_level")))
            self.sleep(delay)
            delay = min(delay * 1.5, self.cap)


def _refused(exc, action):
    """A refused changeset as a Failure naming the values the Engine refused (its errors come by index)."""
    texts = []
    for side, records in (("create", action.creates), ("delete", action.deletes)):
        for key, text in sorted(exc.validation.items()):
            if key.startswith(side + "["):
                index = int(key[len(side) + 1:key.index("]")])
                value = records[index]["value"] if index < len(records) else "?"
                texts.append("%s of value %s: %s" % (side, value, text))
    return Failure("the Engine refused the changeset for %s %s in zone %s: %s" % (
        action.obj["name"], action.obj["type"], action.obj["zone"], "; ".join(texts) or exc.message),
        error=exc.to_dict())
