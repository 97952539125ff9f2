"""Adding an object type is declaring a kind: a kind declared only here (an ACL-like object under a
frontend) plans, predicts in check mode (also across tasks) and applies through the one Reconciler and
Applier, with no change to the loop, the applier or the prediction."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import FRONTEND
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kind import Kind, kind_named
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._predicted import LbaasOverlay
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._loop import Reconciler
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import (
    CREATE, DELETE, UPDATE, Action, Plan, is_placeholder, placeholder)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._predictions import (
    PredictedEngine, Predictions, record)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Waiter

from ..fakes import FakeClient

LB = "a" * 32
URL = "http://127.0.0.1:8080"


class ToyAcl(Kind):
    """Created after its frontend, deleted before it."""
    create_rank = 10
    delete_rank = -1


ACL = ToyAcl("test_acl", parent="frontend", parent_kind="frontend", fields={"criterion": str, "verdict": str})


class State:
    def __init__(self, world):
        self.world = world


def observe(client):
    """Every object of the fake Engine, flat, as an observer would give them."""
    def look():
        world = {}
        for ident, raw in client.objects.items():
            kind = kind_named(client.kinds[ident])
            world[ident] = dict(kind.from_engine(raw), tags=sorted(client.tags.get(ident, ())))
        return State(world)
    return look


def planner(state):
    """Wants frontend 80.web with one ACL 'deny-bots' (verdict deny) under it."""
    frontends = [o for o in state.world.values() if o["kind"] == "frontend" and o["name"] == "80.web"]
    plan = Plan()
    if frontends:
        fe_id = frontends[0]["id"]
    else:
        fe = {"kind": "frontend", "id": placeholder("frontend", "80.web"), "name": "80.web", "load_balancer": LB,
              "mode": "http", "default_backend": None, "client_timeout": None, "enabled": True}
        plan.append(Action(CREATE, FRONTEND, fe, tags=["anxlb-svc=web"]))
        fe_id = fe["id"]
    acls = [o for o in state.world.values() if o["kind"] == ACL.name and o["frontend"] == fe_id]
    if not acls:
        acl = {"kind": ACL.name, "id": placeholder(ACL.name, "deny-bots"), "name": "deny-bots", "frontend": fe_id,
               "criterion": "hdr(user-agent) -i bot", "verdict": "deny"}
        plan.append(Action(CREATE, ACL, acl))
    elif acls[0]["verdict"] != "deny":
        plan.append(Action(UPDATE, ACL, acls[0], {"verdict": (acls[0]["verdict"], "deny")}))
    return plan


def reconciler(client, check_mode):
    return Reconciler(client, check_mode, waiter=Waiter(client, 5, sleep=lambda s: None))


def test_the_kind_is_known_by_its_name_and_orders_after_its_parent():
    assert kind_named("test_acl") is ACL and ACL.references() == ["frontend"]
    plan = Plan([Action(DELETE, FRONTEND, {"id": "1", "name": "f"}), Action(DELETE, ACL, {"id": "2", "name": "a"}),
                 Action(CREATE, ACL, {"id": "3", "name": "b"}), Action(CREATE, FRONTEND, {"id": "4", "name": "g"})])
    assert [(a.op, a.kind.name) for a in plan.ordered()] == [
        ("delete", "test_acl"), ("delete", "frontend"), ("create", "frontend"), ("create", "test_acl")]


def test_check_mode_predicts_the_new_kind_and_writes_nothing():
    client = FakeClient()
    outcome = reconciler(client, True).run(observe(client), planner)
    assert client.writes() == []
    acl = [o for o in outcome.after.values() if o["kind"] == ACL.name][0]
    assert acl["planned"] == "create" and acl["state"]["title"] == "NewlyCreated"
    assert is_placeholder(acl["frontend"]) and str(acl["frontend"]) == "(new frontend 80.web)"


def test_a_later_check_mode_task_sees_the_predicted_object_of_the_new_kind():
    client = FakeClient()
    view = PredictedEngine(client, Predictions([], URL, [LbaasOverlay]))
    record(view, reconciler(view, True).run(observe(client), planner))
    later = PredictedEngine(client, Predictions(view.predictions.dump(), URL, [LbaasOverlay]))   # the record travels as JSON-able data
    listed = later.lbaas_list(ACL.name, frontend="(new frontend 80.web)")
    assert [(i["identifier"], i["name"]) for i in listed] == [("(new test_acl deny-bots)", "deny-bots")]
    got = later.lbaas_get(ACL.name, listed[0]["identifier"])
    assert got["verdict"] == "deny" and got["frontend"] == "(new frontend 80.web)"


def test_a_real_run_creates_parent_then_child_confirms_by_the_wait_and_converges():
    client = FakeClient()
    outcome = reconciler(client, False).run(observe(client), planner)
    posts = [c for c in client.calls if c[0] == "POST"]
    assert posts == [("POST", "frontend", "80.web"), ("POST", ACL.name, "deny-bots")]
    fe_id = [i for i in client.objects if client.kinds[i] == "frontend"][0]
    acl = [o for o in outcome.after.values() if o["kind"] == ACL.name][0]
    assert acl["frontend"] == fe_id and acl["confirmed"] and not is_placeholder(acl["id"])
    before = len(client.writes())
    again = reconciler(client, False).run(observe(client), planner)
    assert not again.changed and len(client.writes()) == before


def test_a_real_run_updates_the_new_kind_with_a_whole_object_body():
    client = FakeClient()
    fe = client.add("frontend", "80.web", load_balancer=LB, mode="http")
    acl = client.add(ACL.name, "deny-bots", frontend=fe, criterion="hdr(user-agent) -i bot", verdict="allow")
    outcome = reconciler(client, False).run(observe(client), planner)
    assert outcome.changed and client.objects[acl]["verdict"] == "deny"
    assert client.bodies == [(ACL.name, acl, {"identifier": acl, "name": "deny-bots", "frontend": fe,
                                              "criterion": "hdr(user-agent) -i bot", "verdict": "deny"})]
