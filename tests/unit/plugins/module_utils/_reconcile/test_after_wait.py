"""What a kind declares to run after the plan's other writes (``Kind.runs``: a record of what the plan achieved, such
as a service's marker): ``AFTER_WAIT`` once every other write of the plan returned, was waited for and had its tags
written; ``AFTER_WRITES`` once every other write returned and the tag writes of its load balancer succeeded,
alongside the wait (never when a write or a tag write of its load balancer failed). A bookkeeping kind
(``Kind.bookkeeping``) is shown in the plan but counted and predicted as no object. Kind-agnostic: toy kinds
declared only here."""
import threading
import time

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import ConflictError, ServerError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kind import AFTER_WAIT, AFTER_WRITES, Kind, Operations
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import BACKEND
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._loop import Reconciler
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import (
    CREATE, DELETE, TAG, Action, Plan, placeholder)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Waiter

from ..fakes import STATES, FakeClient

LB = {"id": "a" * 32, "name": "lb1"}
LB2 = {"id": "b" * 32, "name": "lb2"}


class ToyNote(Kind):
    bookkeeping = True
    effects = {"note": TAG}
    runs = {"note": AFTER_WAIT}


class ToyStamp(Kind):
    bookkeeping = True
    effects = {"stamp": TAG, DELETE: DELETE}
    runs = {"stamp": AFTER_WRITES}   # its DELETE is not declared: it runs by its dependencies


NOTE = ToyNote("test_note")
STAMP = ToyStamp("test_stamp")


class RecordWrites(Operations):
    """Writes a record as a call of the fake client, so its place among the requests shows."""
    sequential = True

    def __init__(self, client):
        self.client = client

    def tag(self, applier, action, ident):
        self.client.calls.append((action.op.upper(), action.obj["name"], ident))


def record(kind, op, lb=None):
    lb = lb or LB
    return Action(op, kind, {"kind": kind.name, "id": "%s/%s" % (op, lb["name"]), "name": lb["name"]}, lb=lb,
                  reason="a record")


def note():
    return record(NOTE, "note")


def stamp(lb=None):
    return record(STAMP, "stamp", lb)


def backend(name="80.web", lb=None):
    lb = lb or LB
    return Action(CREATE, BACKEND, {"kind": "backend", "id": placeholder("backend", name), "name": name,
                                    "load_balancer": lb["id"], "mode": "tcp"}, tags=["anxlb-svc=web"], lb=lb)


class State:
    def __init__(self, world):
        self.world = world


def run(client, plan_once, wait=True, timeout=5, sleep=lambda s: None):
    plans = iter([plan_once, Plan()])

    def applier(client_, waiter):
        from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import Applier
        ops = RecordWrites(client_)
        return Applier(client_, waiter, operations={NOTE.name: ops, STAMP.name: ops})
    reconciler = Reconciler(client, False, wait=wait, waiter=Waiter(client, timeout, sleep=sleep), applier=applier)
    return reconciler.run(lambda: State({}), lambda state: next(plans))


def test_what_runs_after_the_writes_is_listed_last_and_is_no_object():
    plan = Plan([note(), stamp(), backend()]).ordered()
    assert [a.kind.name for a in plan] == ["backend", "test_note", "test_stamp"]
    assert [a.later for a in plan] == [None, AFTER_WAIT, AFTER_WRITES]
    assert plan.summary([LB]) == "lb1: 1 to add, 0 to change, 0 to destroy"
    assert [o["kind"] for o in plan.predict({}).values()] == ["backend"]
    assert plan.to_list()[-1]["action"] == "stamp" and plan.objects() == plan[:1]
    gone = Action(DELETE, STAMP, {"kind": STAMP.name, "id": "x", "name": "x"})
    assert gone.later is None   # only the operations the kind names run after the writes


def test_after_the_wait_it_runs_once_the_wait_read_the_objects_back_and_after_their_tags():
    client = FakeClient()
    outcome = run(client, Plan([note(), backend()]).ordered())
    assert outcome.changed
    calls = [c[:2] for c in client.calls]
    last_poll = max(i for i, c in enumerate(calls) if c[0] == "GET" and c[1] == "backend")
    assert calls.index(("NOTE", "lb1")) > last_poll
    assert calls.index(("NOTE", "lb1")) > max(i for i, c in enumerate(calls) if c[0] == "TAG")
    assert calls[-1] == ("NOTE", "lb1")


def test_without_a_wait_both_follow_the_writes():
    client = FakeClient()
    run(client, Plan([note(), stamp(), backend()]).ordered(), wait=False)
    calls = [c[0] for c in client.calls]
    assert "GET" not in calls and calls.index("NOTE") > calls.index("STAMP") > calls.index("TAG") > calls.index("POST")


def test_a_delete_then_the_note():
    client = FakeClient()
    gone = client.add("backend", "81.web")
    plan = Plan([note(), Action(DELETE, BACKEND, {"kind": "backend", "id": gone, "name": "81.web"}, lb=LB)]).ordered()
    run(client, plan)
    calls = [c[0] for c in client.calls]
    assert calls.index("NOTE") > max(i for i, c in enumerate(calls) if c == "GET") > calls.index("DELETE")


class DeploysAfterTheStamp(FakeClient):
    """A created object stays NewlyCreated until a stamp was written: a wait that ends proves the stamp ran while
    it polled (a stamp only after the wait would leave it waiting until its timeout)."""

    def __init__(self):
        super().__init__()
        self.stamped = threading.Event()

    def lbaas_create(self, kind, body):
        created = super().lbaas_create(kind, body)
        self.scripts.pop(created["identifier"])
        return created

    def lbaas_get(self, kind, ident):
        obj = super().lbaas_get(kind, ident)
        any_stamp = any(c[0] == "STAMP" for c in list(self.calls))
        obj["state"] = dict(STATES["Deployed" if any_stamp else "NewlyCreated"])
        self.objects[ident]["state"] = obj["state"]
        return obj


def test_after_the_writes_it_runs_behind_its_tags_and_during_the_wait():
    client = DeploysAfterTheStamp()
    outcome = run(client, Plan([stamp(), backend()]).ordered(), sleep=lambda s: time.sleep(0.01))
    assert outcome.changed
    calls = [c[:2] for c in client.calls]
    polls = [i for i, c in enumerate(calls) if c == ("GET", "backend")]
    at = calls.index(("STAMP", "lb1"))
    assert calls.index(("TAG", "anxlb-svc=web")) < at < polls[-1]   # behind the tag write, before the wait ended
    assert calls.index(("POST", "backend")) < at


class RefusesTags(FakeClient):
    """Refuses every tag write to the objects of one load balancer (a definite 409, after retries)."""

    def __init__(self, lb_id):
        super().__init__()
        self.lb_id = lb_id

    def tag_add(self, ident, tag):
        if self.objects.get(ident, {}).get("load_balancer") == self.lb_id:
            self.calls.append(("TAG REFUSED", tag, ident))
            raise ConflictError("tag write refused", status=409, method="POST", path="/tags")
        super().tag_add(ident, tag)


def test_not_when_a_tag_write_of_its_load_balancer_failed_but_where_they_succeeded():
    client = RefusesTags(LB2["id"])
    run(client, Plan([stamp(LB), stamp(LB2), backend("80.web", LB), backend("80.web", LB2)]).ordered())
    stamps = [c[1] for c in client.calls if c[0] == "STAMP"]
    assert stamps == ["lb1"], client.calls   # the round was interrupted (the next plan here has nothing left)
    assert any(c[0] == "TAG REFUSED" for c in client.calls)


class LosesCreates(FakeClient):
    """A create whose answer is lost (a 5xx: it may have landed)."""

    def lbaas_create(self, kind, body):
        self.calls.append(("POST", kind, body.get("name")))
        raise ServerError("lost", status=502, method="POST", path="/backend", may_have_landed=True)


def test_not_when_an_object_write_failed():
    client = LosesCreates()
    outcome = run(client, Plan([stamp(), backend()]).ordered())
    assert outcome.interruptions and not [c for c in client.calls if c[0] in ("STAMP", "TAG")]


def test_a_wait_that_fails_after_it_ran():
    """It runs alongside the wait: a wait that then fails does not undo it (the caller decides what that means;
    a service takes its marker back, ``_service._guard.ServiceGuard.abandon``)."""
    client = FakeClient()
    plan = Plan([stamp(), backend()]).ordered()
    original = client.lbaas_create

    def never_deployed(kind, body):
        created = original(kind, body)
        client.scripts[created["identifier"]] = ["NewlyCreated"] * 100
        return created
    client.lbaas_create = never_deployed
    with pytest.raises(Failure, match="timed out"):
        run(client, plan, timeout=0, sleep=lambda s: None)
    assert [c[1] for c in client.calls if c[0] == "STAMP"] == ["lb1"]
