"""An action declared ``after_wait`` (a record of what the plan achieved, such as a service's marker) runs once every
other write of the plan returned, was waited for and had its tags written; a bookkeeping kind (``Kind.bookkeeping``)
is shown in the plan but counted and predicted as no object. Kind-agnostic: a toy kind declared only here."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kind import Kind, Operations
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import BACKEND
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._loop import Reconciler
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import (
    CREATE, DELETE, TAG, Action, Plan, placeholder)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Waiter

from ..fakes import FakeClient

LB = {"id": "a" * 32, "name": "lb1"}


class ToyNote(Kind):
    bookkeeping = True
    effects = {"note": TAG}


NOTE = ToyNote("test_note")


class NoteWrites(Operations):
    """Writes a note as a call of the fake client, so its place among the requests shows."""
    sequential = True

    def __init__(self, client):
        self.client = client

    def tag(self, applier, action, ident):
        self.client.calls.append(("NOTE", action.obj["name"], ident))


def note():
    action = Action("note", NOTE, {"kind": NOTE.name, "id": "note/lb1", "name": "applied"}, lb=LB, reason="a record")
    action.after_wait = True
    return action


def backend():
    return Action(CREATE, BACKEND, {"kind": "backend", "id": placeholder("backend", "80.web"), "name": "80.web",
                                    "load_balancer": LB["id"], "mode": "tcp"}, tags=["anxlb-svc=web"], lb=LB)


class State:
    def __init__(self, world):
        self.world = world


def run(client, plan_once, wait=True):
    plans = iter([plan_once, Plan()])

    def applier(client_, waiter):
        from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import Applier
        return Applier(client_, waiter, operations={NOTE.name: NoteWrites(client_)})
    reconciler = Reconciler(client, False, wait=wait, waiter=Waiter(client, 5, sleep=lambda s: None), applier=applier)
    return reconciler.run(lambda: State({}), lambda state: next(plans))


def test_an_after_wait_action_is_listed_last_and_is_no_object():
    plan = Plan([note(), backend()]).ordered()
    assert [a.kind.name for a in plan] == ["backend", "test_note"]
    assert plan.summary([LB]) == "lb1: 1 to add, 0 to change, 0 to destroy"
    assert [o["kind"] for o in plan.predict({}).values()] == ["backend"]
    assert plan.to_list()[-1]["action"] == "note" and plan.objects() == plan[:1]


def test_it_runs_after_the_wait_read_the_objects_back_and_after_their_tags():
    client = FakeClient()
    outcome = run(client, Plan([note(), backend()]).ordered())
    assert outcome.changed
    calls = [c[:2] for c in client.calls]
    made = [c for c in client.calls if c[0] == "POST"][0]
    last_poll = max(i for i, c in enumerate(calls) if c[0] == "GET" and c[1] == "backend")
    assert calls.index(("NOTE", "applied")) > last_poll
    assert calls.index(("NOTE", "applied")) > max(i for i, c in enumerate(calls) if c[0] == "TAG")
    assert made and calls[-1] == ("NOTE", "applied")


def test_without_a_wait_it_follows_the_writes():
    client = FakeClient()
    run(client, Plan([note(), backend()]).ordered(), wait=False)
    calls = [c[0] for c in client.calls]
    assert "GET" not in calls and calls.index("NOTE") > calls.index("POST") and calls[-1] == "NOTE"


def test_a_delete_then_the_note():
    client = FakeClient()
    gone = client.add("backend", "81.web")
    plan = Plan([note(), Action(DELETE, BACKEND, {"kind": "backend", "id": gone, "name": "81.web"}, lb=LB)]).ordered()
    run(client, plan)
    calls = [c[0] for c in client.calls]
    assert calls.index("NOTE") > max(i for i, c in enumerate(calls) if c == "GET") > calls.index("DELETE")
