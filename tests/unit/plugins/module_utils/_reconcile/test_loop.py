import threading
import time

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import BACKEND, BIND, FRONTEND, SERVER
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import Applier
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._loop import Reconciler
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import (
    CREATE, DELETE, UPDATE, Action, Plan, placeholder)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._pool import SharedPool
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Waiter

from ..fakes import FakeClient

LB = "a" * 32


def flat(kind, client, ident):
    return kind.from_engine(client.objects[ident])


def new(kind, name, **fields):
    """A create's object as the planner makes it (_lbaas._planner.create): the kind's defaults, then ``fields``."""
    obj = {"kind": kind.name, "id": placeholder(kind.name, name), "name": name}
    obj.update(getattr(kind, "defaults", {}))
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


class State:
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


# ---- writes by dependency, tag writes in their own lane -----------------------------------------
class Timed(FakeClient):
    """A FakeClient on a real shared pool that records when each create and tag write happened."""

    def __init__(self, tag_seconds=0.0):
        super().__init__()
        self.map = SharedPool(4).map
        self.tag_seconds = tag_seconds
        self.times = {}        # (event, name or tag) -> time.monotonic()
        self.tags_in_flight = self.tag_peak = 0
        self.lock = threading.Lock()

    def lbaas_create(self, kind, body):
        self.times[("start", body["name"])] = time.monotonic()
        with self.lock:
            created = FakeClient.lbaas_create(self, kind, body)
        self.times[("end", body["name"])] = time.monotonic()
        return created

    def tag_add(self, ident, tag):
        with self.lock:
            self.tags_in_flight += 1
            self.tag_peak = max(self.tag_peak, self.tags_in_flight)
        time.sleep(self.tag_seconds)
        with self.lock:
            self.tags_in_flight -= 1
            FakeClient.tag_add(self, ident, tag)
        self.times[("tagged", ident)] = time.monotonic()


def service_plan():
    backend = new(BACKEND, "80.web", load_balancer=LB, mode="tcp")
    frontend = new(FRONTEND, "80.web", load_balancer=LB, mode="tcp", default_backend=backend["id"])
    bind = new(BIND, "v4.80.web", frontend=frontend["id"], address="192.0.2.1", port=80)
    servers = [new(SERVER, "n%d.80.web" % i, backend=backend["id"], ip="10.0.0.%d" % i, port=80) for i in range(3)]
    return Plan([Action(CREATE, BIND, bind, tags=["t"])] + [Action(CREATE, SERVER, s, tags=["t"]) for s in servers]
                + [Action(CREATE, FRONTEND, frontend, tags=["t"]), Action(CREATE, BACKEND, backend, tags=["t"])]).ordered()


def test_a_server_starts_when_its_backend_exists_not_after_frontends_and_binds():
    client = Timed()
    plan = service_plan()
    original = client.lbaas_create

    def slow_frontend(kind, body):   # the frontend's create takes 0.2 s
        if kind == "frontend":
            time.sleep(0.2)
        return original(kind, body)
    client.lbaas_create = slow_frontend
    targets = Applier(client, Waiter(client, 1)).apply(plan)
    assert len(targets) == 6
    servers_done = max(client.times[("end", "n%d.80.web" % i)] for i in range(3))
    assert servers_done < client.times[("start", "v4.80.web")]                  # before the bind even started
    assert client.times[("end", "80.web")] <= client.times[("start", "v4.80.web")]   # the bind after its frontend
    server = [t for t in targets if t.kind == "server"][0]
    backend = [t for t in targets if t.kind == "backend"][0]
    assert client.objects[server.id]["backend"] == backend.id


def test_tag_writes_queue_in_their_own_lane_one_at_a_time_while_creates_go_on():
    client = Timed(tag_seconds=0.05)
    targets = Applier(client, Waiter(client, 1)).apply(service_plan())
    creates_done = max(t for (event, _n), t in client.times.items() if event == "end")
    last_tag = max(t for (event, _n), t in client.times.items() if event == "tagged")
    assert client.tag_peak == 1                            # serialised (ENGSUP-5902)
    assert creates_done < last_tag - 0.1                   # the creates did not wait for the tag writes
    assert sorted(client.tags) == sorted(t.id for t in targets) and all(v == ["t"] for v in client.tags.values())


def test_a_failed_tag_write_interrupts_the_round_after_everything_else_ran():
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import ServerError
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import Interrupted
    client = Timed()
    tag = client.tag_add

    def failing(ident, name):
        if client.objects[ident]["name"] == "80.web" and client.kinds[ident] == "backend":
            raise ServerError("boom", status=502, method="POST", path="/tags/")
        return tag(ident, name)
    client.tag_add = failing
    with pytest.raises(Interrupted) as err:
        Applier(client, Waiter(client, 1)).apply(service_plan())
    assert "create backend '80.web'" in str(err.value)
    assert len([c for c in client.calls if c[0] == "POST"]) == 6      # every create ran; the next look adopts
