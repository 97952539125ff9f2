import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._objects import BACKEND, BIND, FRONTEND, SERVER
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile import (
    CREATE, DELETE, UPDATE, Action, Applier, Plan, Reconciler, placeholder)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._wait import Waiter

from .fakes import FakeClient

LB = "a" * 32


def flat(kind, client, ident):
    return kind.from_engine(client.objects[ident])


def new(kind, name, **fields):
    obj = {"kind": kind.name, "id": placeholder(kind.name, name), "name": name}
    obj.update(fields)
    return obj


def test_plan_orders_deletes_children_first_then_creates_parents_first():
    plan = Plan([
        Action(CREATE, SERVER, new(SERVER, "s")), Action(DELETE, BACKEND, {"id": "1", "name": "b"}),
        Action(CREATE, BACKEND, new(BACKEND, "b2")), Action(DELETE, BIND, {"id": "2", "name": "x"}),
        Action(UPDATE, FRONTEND, {"id": "3", "name": "f"}), Action(DELETE, SERVER, {"id": "4", "name": "s"}),
    ]).ordered()
    assert [(a.op, a.kind.name) for a in plan] == [
        ("delete", "bind"), ("delete", "server"), ("delete", "backend"),
        ("create", "backend"), ("update", "frontend"), ("create", "server")]


def test_predict_applies_changes_without_touching_the_input():
    world = {"1": {"kind": "backend", "id": "1", "name": "b", "mode": "http", "state": {"title": "Deployed"}}}
    plan = Plan([Action(UPDATE, BACKEND, world["1"], {"mode": ("http", "tcp")}, tags=["anxlb-svc=x"])])
    out = plan.predict(world)
    assert out["1"]["mode"] == "tcp" and out["1"]["state"]["title"] == "Updating"
    assert out["1"]["tags"] == ["anxlb-svc=x"]
    assert world["1"]["mode"] == "http"


def test_applier_resolves_placeholders_of_parents_created_in_the_same_run():
    client = FakeClient()
    backend = new(BACKEND, "80.web", load_balancer=LB, mode="tcp")
    server = new(SERVER, "n1.80.web", backend=backend["id"], ip="192.0.2.1", port=80)
    plan = Plan([Action(CREATE, SERVER, server, tags=["t"]), Action(CREATE, BACKEND, backend, tags=["t"])]).ordered()
    targets = Applier(client, Waiter(client, 1)).apply(plan)
    backend_id = targets[0].id
    server_obj = client.objects[targets[1].id]
    assert server_obj["backend"] == backend_id
    assert [c[0] for c in client.writes()] == ["POST", "TAG", "POST", "TAG"]


class State(object):
    def __init__(self, world):
        self.world = world


def test_check_mode_predicts_and_writes_nothing():
    client = FakeClient()
    calls = []

    def observe():
        calls.append("observe")
        return State({})

    def planner(state):
        return Plan([Action(CREATE, BACKEND, new(BACKEND, "b", load_balancer=LB))])

    outcome = Reconciler(client, check_mode=True).run(observe, planner)
    assert outcome.changed and calls == ["observe"]
    assert list(outcome.after) == ["(new backend b)"]
    assert client.writes() == []


def test_no_second_observation_when_the_wait_read_every_written_object_as_planned():
    client = FakeClient()
    plans = [[Action(CREATE, BACKEND, new(BACKEND, "b", load_balancer=LB, mode="tcp"), tags=["t"])], [], []]
    looks = []

    def observe():
        looks.append(1)
        return State(dict((i, BACKEND.from_engine(o)) for i, o in client.objects.items()))

    reconciler = Reconciler(client, check_mode=False, waiter=Waiter(client, 5, sleep=lambda s: None))
    outcome = reconciler.run(observe, lambda state: Plan(plans.pop(0)))
    assert outcome.changed and outcome.rounds == 1
    ((ident, obj),) = outcome.after.items()
    assert ident in client.objects and obj["id"] == ident               # the real identifier, not the placeholder
    assert (obj["name"], obj["mode"], obj["load_balancer"], obj["tags"]) == ("b", "tcp", LB, ["t"])
    assert obj["state"]["title"] == "Deployed"                          # as the wait read it
    assert looks == [1] and len(plans) == 2                             # observed and planned once
    assert [c[0] for c in client.calls if c[1] == "backend"] == ["POST", "GET"]   # the wait's one read


def test_the_run_observes_and_plans_again_when_a_read_back_differs_from_the_plan():
    client = FakeClient()
    plans = [[Action(CREATE, BACKEND, new(BACKEND, "b", load_balancer=LB, mode="tcp"))], [], []]
    looks = []
    create = client.lbaas_create

    def engine_stores_http(kind, body):   # an Engine that stores another value than the one sent
        return create(kind, dict(body, mode="http"))
    client.lbaas_create = engine_stores_http

    def observe():
        looks.append(1)
        return State(dict((i, BACKEND.from_engine(o)) for i, o in client.objects.items()))

    outcome = Reconciler(client, check_mode=False, waiter=Waiter(client, 5, sleep=lambda s: None)).run(
        observe, lambda state: Plan(plans.pop(0)))
    assert outcome.rounds == 1 and looks == [1, 1] and len(plans) == 1   # looked and planned again
    assert [o["mode"] for o in outcome.after.values()] == ["http"]       # what the Engine holds


def test_a_plan_that_never_converges_fails_after_bounded_rounds():
    client = FakeClient()
    ident = client.add("backend", "b", load_balancer=LB, mode="http")

    def observe():
        return State({ident: flat(BACKEND, client, ident)})

    def planner(state):
        return Plan([Action(UPDATE, BACKEND, state.world[ident], {"mode": ("http", "tcp")})])

    update = client.lbaas_update

    def changed_back(kind, ident, body):   # something keeps changing the object back
        answer = update(kind, ident, body)
        client.objects[ident]["mode"] = "http"
        return answer
    client.lbaas_update = changed_back

    with pytest.raises(Failure, match="did not converge after 3 rounds"):
        Reconciler(client, check_mode=False, waiter=Waiter(client, 5, sleep=lambda s: None)).run(observe, planner)
