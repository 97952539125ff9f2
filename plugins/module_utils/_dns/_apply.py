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
from ._plan import changeset, flat_record
from ._revision import FAILED_STATES, current_records
from ._values import fqdn
from .._engine._errors import EngineError
from .._model._failure import Failure
from .._model._kind import DELETE, Operations
from .._reconcile._apply import may_have_landed
from .._reconcile._plan import Action

NOT_EDITABLE = "not editable"


class RrsetOperations(Operations):
    sequential = True

    def __init__(self, client, wait=True, timeout=600, sleep=time.sleep, clock=time.monotonic, interval=0.2, cap=5.0,
                 claims=None):
        self.dns = CloudDNS(client)
        self.claims = claims   # a _claims.Claims of the part: what each answer showed, for its next round
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

    def redeploy(self, applier, action):
        self._write(action)   # the rrset written again as it is (_revision): a new revision of the zone

    def tag(self, applier, action, ident):
        return None   # records carry no tags: the owner's mark is in the comment the changeset writes

    def settles_later(self, action, exc):
        return may_have_landed(exc)

    def _write(self, action):
        create, delete = changeset(action)
        self.send(action.obj["zone"], create, delete, lambda exc: _refused(exc, action),
                  claimed=lambda answer, deadline: self._claimed(action, answer, deadline))

    def send(self, zone, create, delete, refused, claimed=None):
        """One changeset of ``zone`` once it is editable, then (``wait``) until its revision is live; ``refused(exc)``
        is the Failure of a refusal (a 400 that is not "not editable"); ``claimed(answer, deadline)``, when given,
        reads the changeset's answer before the wait (``_claimed``)."""
        deadline = self.clock() + self.timeout
        while True:
            self.editable(zone, deadline)
            try:
                answer = self.dns.changeset(zone, create, delete)
                break
            except EngineError as exc:
                if exc.status != 400 or NOT_EDITABLE not in (exc.message or "") or self.clock() > deadline:
                    raise refused(exc) if exc.status == 400 else exc
        if claimed is not None:
            claimed(answer, deadline)
        if self.wait:
            self.editable(zone, deadline, written=True)

    def _claimed(self, action, answer, deadline):
        """Two writers that each found a name free may both write it (two services on different load balancers hold
        no common lease). The changeset's answer is the zone's records right after it (the Engine applies changesets
        one at a time): a record there that this task must not share the name with (``DesiredRrset.foreign``) was
        written by another writer first, who keeps the name. This task then takes back what it created, in one more
        changeset, and fails naming the other's records; the first writer's answer showed none of this task's, so
        exactly one keeps the name."""
        desired = getattr(action, "desired", None)
        records = _answer_records(answer)
        if desired is None or not action.creates or records is None:
            return
        name, zone = action.obj["name"], action.obj["zone"]
        theirs = _written_first(action, desired, records)
        if theirs:
            left = self._take_back(action, [flat_record(r) for r in records if r.get("name") == name
                                            and r.get("type") == action.obj["type"]], deadline)
            raise _taken(zone, name, theirs, left)
        if self.claims is not None:
            self.claims.record(zone, name, records)

    def _take_back(self, action, held, deadline):
        """Deletes the records ``action`` created from the rrset (``held``: its records now); '' or what failed."""
        back = Action(DELETE, action.kind, dict(action.obj, records=held))
        back.deletes, back.creates = [r for r in held if any(_same_record(r, c) for c in action.creates)], []
        if not back.deletes:
            return ""
        try:
            self.editable(action.obj["zone"], deadline)
            self.dns.changeset(action.obj["zone"], *changeset(back))
        except EngineError as exc:
            return "; taking them back failed too (%s): delete them by hand" % exc
        if self.wait:   # the task promised what is served: the other's records alone, once the take-back is live
            try:
                self.editable(action.obj["zone"], deadline, written=True)
            except Failure as exc:
                return "; the revision that takes them back did not go live (%s)" % exc.msg
        return ""

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


def _written_first(action, desired, records):
    """The records of ``records`` (a changeset's answer) at ``action``'s name that it must not share the name with
    and that its plan did not see: another writer's, written between the plan's read and this write."""
    seen = action.obj.get("records") or []   # what the plan was made from: foreign records there were its to judge
    return [r for r in records if r.get("name") == action.obj["name"] and desired.foreign(flat_record(r))
            and not any(_same_record(flat_record(r), o) and o["type"] == r.get("type") for o in seen)]


def _answer_records(answer):
    """The records a changeset's answer holds (a list, or a zone with its current revision's), None when it says none."""
    if isinstance(answer, list):
        return answer
    return current_records(answer) if isinstance(answer, dict) else None


def _same_record(record, created):
    return (record["value"] == created["value"] and (record.get("ttl") or 0) == (created.get("ttl") or 0)
            and record.get("comment") == created.get("comment"))


def _taken(zone, name, theirs, left):
    """The failure of a task that found, in its own changeset's answer, another writer's records at the name."""
    where = fqdn(name, zone)
    held = "; ".join("%s %s (%s)" % (r.get("type"), r.get("rdata"), r.get("comment") or "no comment") for r in theirs)
    return Failure("%s is held by records another writer created at the same time as this task: %s. This task created "
                   "its own records there too and took them back%s; the name stays the other's" % (where, held, left),
                   dns_conflicts=[dict(zone=zone, name=name, fqdn=where, type=r.get("type"), value=r.get("rdata"),
                                       comment=r.get("comment")) for r in theirs])
