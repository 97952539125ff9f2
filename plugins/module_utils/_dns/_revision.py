# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Whether what a zone's records say is what its DNS servers serve: the state of the zone's newest revision.

CloudDNS lists the records of a zone's newest revision, whether or not that revision went live
(docs/engine-api-facts.md, CloudDNS: every write makes a revision that is validated and deployed). A revision
that failed, or never finishes deploying, leaves the DNS servers answering the revision before it, while the
listing already shows the new records: a run that compared only the listing would pass while the names do not
resolve as declared. So a run that waits (``wait``, which promises that the records resolve) reads the zone's
state beside its records, one more request in the same round trip, and plans from it (``revision_plan``):

* live: nothing to do;
* failed, and the run writes the zone anyway: its new revision replaces the failed one (nothing more);
* failed, and the run would write nothing: it writes its own records again as they are (a ``redeploy`` of each
  rrset it manages there, one changeset: a new revision), or, when it holds no record there (a removal), fails
  naming the zone and the revision: only a new revision can be served, and this run has nothing to write;
* validating or deploying: the run waits for it like for an object still deploying (``waits``: the zone kind
  ``ZONE`` below, polled by the one ``Waiter``); one that stays there fails the run at ``wait_timeout``, naming
  the zone, its revision and its deployment level.
"""

from ._clouddns import CloudDNS, live, revision_state
from .._model._failure import Failure
from .._model._kind import REDEPLOY, Kind
from .._reconcile._plan import Action

FAILED_STATES = ("failed", "error")
OK = {"id": "3", "title": "Deployed", "type": 1}
PENDING = {"id": "0", "title": "Updating", "type": 2}
FAILED = {"id": "2", "title": "DeploymentError", "type": 0}


def zone_state(answer):
    """The zone's newest revision as the Waiter reads an object's deployment: OK, pending or failed."""
    _serial, state = revision_state(answer)
    if live(answer):
        return OK
    if state in FAILED_STATES:
        return FAILED
    return PENDING


def describe(zone, answer):
    serial, state = revision_state(answer)
    return "zone %s: its newest revision %s is %s (deployment_level %s)" % (
        zone, serial, state or "in an unknown state", answer.get("deployment_level"))


class ZoneKind(Kind):
    """A zone as something a run waits for (never written): read is the zone's GET, deployed when its newest
    revision is live. A failed revision cannot be redeployed by asking (there is no such request): the wait fails
    naming it, and the next run writes the records again (``revision_plan``)."""

    bookkeeping = True

    def read(self, client, ident):
        answer = CloudDNS(client).zone(ident)
        return dict(identifier=ident, name=ident, state=zone_state(answer), zone=answer)

    def redeploy(self, client, ident, obj):
        raise Failure("%s; the DNS servers still serve the revision before it. Rerun to write the records again, or "
                      "look at the zone in the Engine" % describe(ident, obj.get("zone") or {}))

    def still_waiting(self, label, obj):
        # the revision and its level, so that the rerun's failure and the Engine's zone can be matched to this one
        return describe(obj["name"], obj.get("zone") or {}) if obj else label

    def from_engine(self, obj):
        return dict(kind=self.name, id=obj.get("identifier"), name=obj.get("name"), zone=obj.get("zone"))


ZONE = ZoneKind("dns_zone")


def current_records(answer):
    """The records of the zone's current revision as its own answer holds them (go-anxcloud's ``Zone.Revisions``,
    each with its ``Records``), or None when the answer does not hold them."""
    for revision in answer.get("revisions") or []:
        if revision.get("identifier") == answer.get("current_revision") and isinstance(revision.get("records"), list):
            return revision["records"]
    return None


def read_zone(client, zone, with_state, name=None, rtype=None, option="zone"):
    """``(records, answer)``: the zone's records (of ``name`` and ``type`` when given) and, ``with_state``, the zone's own
    answer (None without). With the state, one request: the zone's answer holds its current revision's records, which
    are what the records listing answers; only an answer without them costs the listing too."""
    dns = CloudDNS(client)
    if not with_state:
        return dns.records(zone, name=name, rtype=rtype, option=option), None
    answer = dns.zone(zone, option=option)
    records = current_records(answer)
    if records is None:
        return dns.records(zone, name=name, rtype=rtype, option=option), answer
    return [r for r in records if (name is None or r.get("name") == name) and (rtype is None or r.get("type") == rtype)], answer


def revision_plan(zones, world, planned):
    """``(actions, waits)`` that make what ``world`` (the rrsets a part manages) says be what the DNS servers
    serve, for the zones whose answers ``zones`` holds ({zone: answer}); ``planned``: the part's actions so far
    (a zone they write gets a new revision anyway)."""
    actions, waits = [], []
    writing = set(a.obj["zone"] for a in planned)
    for zone, answer in sorted(zones.items()):
        state = zone_state(answer)
        if state is OK or zone in writing:
            continue
        if state is PENDING:
            waits.append((ZONE.name, zone, zone))
            continue
        ours = [obj for obj in world.values() if obj.get("zone") == zone and obj.get("records")]
        if not ours:
            raise Failure("%s; the DNS servers still serve the revision before it, which may hold records this task "
                          "removes, and the task has nothing to write there that would make a new one. Fix the zone "
                          "(a new revision deploys all its records), then run the task again" % describe(zone, answer))
        for obj in sorted(ours, key=lambda o: o["id"]):
            action = Action(REDEPLOY, obj["kind"], obj, reason="%s: its records are written again" % describe(zone, answer))
            action.deletes, action.creates, action.records_after = list(obj["records"]), list(obj["records"]), list(obj["records"])
            actions.append(action)
    return actions, waits
