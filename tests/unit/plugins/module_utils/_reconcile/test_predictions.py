"""Check mode predictions across tasks (module_utils/_reconcile/_predictions.py, the mechanism, with the overlays of
_lbaas/_predicted.py and _addresses/_predicted.py): what a plan records, and how the predicting view lays the records
over each kind of observation, with the real observation code on top. The DNS overlay: _dns/test_predicted.py."""
import json

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._observe import AddressObserver, binds_using
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._predicted import AddressOverlay
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._plan import (
    ADDRESS, ADOPT, ALLOCATE, RELEASE, flat, plan_owner, placeholder as address_placeholder)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import Prefix
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._ipam import DELETING
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._client import WRITES
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import NotFoundError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._ownership import tag_names
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._predicted import LbaasOverlay
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._predictions import (
    Predictions, PredictedEngine, engine_key, record)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._loop import Outcome
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import (
    CREATE, DELETE, UPDATE, Action, Plan)

from ..fakes import RESOURCE_TYPES, FakeClient, state

URL = "http://127.0.0.1:8080"
OVERLAYS = [LbaasOverlay, AddressOverlay]
LB = "0a11ba1a000000000000000000000001"
PREFIX = "0a11ce11000000000000000000000001"


def fake():
    """A fake Engine with the prefix 127.0.10.0/24, whose tag listing matches whole tag names."""
    engine = FakeClient(tag_match="exact")
    engine.add_prefix("127.0.10.0/24", ident=PREFIX)
    return engine


def service(engine, owner="web", address="127.0.10.9"):
    """A service's four objects on the load balancer, tagged with its owner tag."""
    tag = ["anxlb-svc=%s" % owner]
    engine.add("backend", "80.web", ident="b" * 32, tags=tag, load_balancer=LB, mode="tcp")
    engine.add("frontend", "80.web", ident="f" * 32, tags=tag, load_balancer=LB, mode="tcp", default_backend="b" * 32)
    engine.add("bind", "v4.80.web", ident="c" * 32, tags=tag, frontend="f" * 32, address=address, port=80)
    engine.add("server", "n1.80.web", ident="d" * 32, tags=tag, backend="b" * 32, ip="127.0.0.2", port=8080, check="enabled")


def predicted(engine, records=None):
    return PredictedEngine(engine, Predictions(records or [], URL, OVERLAYS))


def flat_obj(engine, ident):
    return KINDS[engine.kinds[ident]].from_engine(engine.objects[ident])


def delete(engine, ident):
    obj = flat_obj(engine, ident)
    return Action(DELETE, obj["kind"], obj)


def outcome(plan):
    return Outcome(plan, {}, plan.predict({}), bool(plan), 0)


def reload(view):
    """The predictions as the action plugin carries them to the next task: JSON and back."""
    return predicted(view._client, json.loads(json.dumps(view.predictions.dump())))


# ---- the record ------------------------------------------------------------------------------------
def test_engine_key_has_no_userinfo():
    assert engine_key("https://user:secret@Engine.Example:8443/api/") == "https://engine.example:8443/api"
    assert engine_key("http://[::1]:9000") == "http://[::1]:9000"


def test_a_real_client_records_nothing():
    engine = fake()
    service(engine)
    record(engine, outcome(Plan([delete(engine, "c" * 32)])))   # not a PredictedEngine: a real run
    assert not hasattr(engine, "predictions")


def test_deletes_and_creates_survive_the_trip_to_the_next_task():
    engine = fake()
    service(engine)
    view = predicted(engine)
    new = {"kind": "backend", "id": "(new backend 81.web)", "name": "81.web", "load_balancer": LB, "mode": "tcp",
           "health_check": None, "server_timeout": None, "enabled": True, "raw": {"secret": "x"}}
    plan = Plan([delete(engine, "c" * 32), Action(CREATE, "backend", new, tags=["anxlb-svc=web"])])
    record(view, outcome(plan))
    dumped = view.predictions.dump()
    assert [r["api_url"] for r in dumped] == [URL]
    assert dumped[0]["objects"]["deleted"] == [{"id": "c" * 32, "kind": "bind"}]
    assert dumped[0]["objects"]["objects"] == [{"kind": "backend", "id": "(new backend 81.web)", "name": "81.web",
                                                "tags": ["anxlb-svc=web"], "load_balancer": LB, "mode": "tcp",
                                                "health_check": None, "server_timeout": None, "enabled": True}]
    nxt = reload(view)
    assert nxt.predictions.overlay("objects").deleted == {"c" * 32: "bind"}
    # created then deleted again in check mode: simply not there, and no delete of a placeholder recorded
    record(nxt, outcome(Plan([Action(DELETE, "backend", dict(new))])))
    lbaas = nxt.predictions.overlay("objects")
    assert lbaas.objects == {} and "(new backend 81.web)" not in lbaas.deleted


def test_other_engines_records_pass_untouched_and_an_empty_record_is_left_out():
    other = {"api_url": "https://engine.example", "objects": {"deleted": [{"id": "e" * 32, "kind": "bind"}], "objects": []}}
    view = PredictedEngine(fake(), Predictions([other], URL, OVERLAYS))
    assert view.predictions.overlay("objects").deleted == {}
    assert view.predictions.dump() == [other]


def test_a_family_the_module_does_not_install_passes_through_untouched():
    """dns_record installs only the DNS overlay: what a service predicted for LBaaS and addresses travels on."""
    mine = {"api_url": URL, "objects": {"deleted": [{"id": "e" * 32, "kind": "bind"}], "objects": []},
            "addresses": {"allocated": [], "released": [{"id": "a" * 32, "address": "127.0.10.7", "prefix_id": PREFIX}],
                          "tags": [], "rdns": []}}
    engine = fake()
    view = PredictedEngine(engine, Predictions([mine], URL, [LbaasOverlay]))
    assert view.predictions.dump() == [mine]
    assert view.address_list == engine.address_list   # not installed: the client's own read


def test_a_kind_whose_overlay_is_not_installed_is_refused_not_silently_dropped():
    view = PredictedEngine(fake(), Predictions([], URL, [AddressOverlay]))
    new = {"kind": "backend", "id": "(new backend 81.web)", "name": "81.web", "load_balancer": LB, "mode": "tcp",
           "health_check": None, "server_timeout": None}
    with pytest.raises(RuntimeError, match="installs no overlay of it"):
        record(view, outcome(Plan([Action(CREATE, "backend", new)])))


def test_two_overlays_cannot_share_a_section():
    with pytest.raises(ValueError):
        Predictions([], URL, [LbaasOverlay, LbaasOverlay])


def test_same_placeholder_under_another_parent_gets_its_own_key():
    view = predicted(fake())
    for lb in (LB, "0a11ba1a000000000000000000000002"):
        new = {"kind": "frontend", "id": "(new frontend 80.web)", "name": "80.web", "load_balancer": lb, "mode": "tcp",
               "default_backend": None, "client_timeout": None}
        record(view, outcome(Plan([Action(CREATE, "frontend", new)])))
    assert sorted(view.predictions.overlay("objects").objects) == ["(new frontend 80.web #2)", "(new frontend 80.web)"]
    assert named(view.lbaas_list("frontend", load_balancer="0a11ba1a000000000000000000000002")) == [
        ("(new frontend 80.web #2)", "80.web")]


def test_address_actions():
    prefix = Prefix({"identifier": PREFIX, "name": "127.0.10.0/24"})
    view = predicted(fake())
    new = flat(prefix, "127.0.10.2", address_placeholder(PREFIX, "127.0.10.2"), "one")
    old = flat(prefix, "127.0.10.7", "a" * 32, "one")
    loose = flat(prefix, "127.0.10.8", "9" * 32, "one")
    plan = Plan([Action(RELEASE, ADDRESS, old, reason="x"), Action(ADOPT, ADDRESS, loose, reason="y", tags=["anxlb-svc=one"]),
                 Action(ALLOCATE, ADDRESS, new, reason="z", tags=["anxlb-svc=one"])])
    record(view, outcome(plan))
    p = view.predictions.overlay("addresses")
    assert p.released == {"a" * 32: {"id": "a" * 32, "address": "127.0.10.7", "prefix_id": PREFIX}}
    assert p.tags == {"9" * 32: ["anxlb-svc=one"]}
    assert list(p.allocated) == [new["id"]] and p.allocated[new["id"]]["owner"] == "one"
    # releasing a predicted allocation again: it was never there
    record(view, outcome(Plan([Action(RELEASE, ADDRESS, dict(new), reason="again")])))
    assert p.allocated == {} and new["id"] not in p.released


# ---- the overlays ----------------------------------------------------------------------------------
def named(listing):
    """(identifier, name) of each listing entry."""
    return [(i["identifier"], i["name"]) for i in listing]


def test_lbaas_overlay_hides_deleted_and_shows_created_and_changed():
    engine = fake()
    service(engine)
    view = predicted(engine)
    frontend = flat_obj(engine, "f" * 32)
    new_bind = {"kind": "bind", "id": "(new bind v6.80.web)", "name": "v6.80.web", "frontend": "f" * 32, "address": "::1",
                "port": 80, "ssl": None, "ssl_certificate_path": None}
    plan = Plan([delete(engine, "c" * 32), Action(CREATE, "bind", new_bind),
                 Action(UPDATE, "frontend", frontend, {"client_timeout": (None, "5000")})])
    record(view, outcome(plan))
    view = reload(view)
    listed = view.lbaas_list("bind", frontend="f" * 32)
    assert named(listed) == [("(new bind v6.80.web)", "v6.80.web")]
    # whole, as its GET answers it here: a full listing needs no read of it
    assert listed == [view.lbaas_get("bind", "(new bind v6.80.web)")]
    assert [b["identifier"] for b in view.lbaas_list("bind")] == ["(new bind v6.80.web)"]
    with pytest.raises(NotFoundError):
        view.lbaas_get("bind", "c" * 32)
    got = view.lbaas_get("bind", "(new bind v6.80.web)")
    assert got["frontend"] == "f" * 32 and got["address"] == "::1" and got["state"] == state("Deployed")
    assert view.lbaas_get("frontend", "f" * 32)["client_timeout"] == "5000"
    assert [o["identifier"] for o in view.lbaas_get_many("bind", ["(new bind v6.80.web)"])] == ["(new bind v6.80.web)"]


def test_children_of_a_predicted_parent_never_reach_the_engine():
    engine = fake()
    view = predicted(engine)
    parent = {"kind": "frontend", "id": "(new frontend 80.new)", "name": "80.new", "load_balancer": LB, "mode": "tcp",
              "default_backend": None, "client_timeout": None}
    child = {"kind": "bind", "id": "(new bind v4.80.new)", "name": "v4.80.new", "frontend": parent["id"],
             "address": "127.0.10.8", "port": 80, "ssl": None, "ssl_certificate_path": None}
    record(view, outcome(Plan([Action(CREATE, "frontend", parent), Action(CREATE, "bind", child)])))
    assert named(view.lbaas_list("frontend", load_balancer=LB)) == [(parent["id"], "80.new")]
    assert named(view.lbaas_list("bind", frontend=parent["id"])) == [(child["id"], "v4.80.new")]
    assert ("LIST", "bind", (("frontend", parent["id"]),)) not in engine.calls
    assert not [c for c in engine.calls if c[0] == "GET" and c[1] in KINDS]


def test_tags_overlay():
    engine = fake()
    service(engine)
    engine.add("backend", "81.web", ident="e" * 32, load_balancer=LB, mode="tcp")
    view = predicted(engine)
    untagged = flat_obj(engine, "e" * 32)
    new = {"kind": "backend", "id": "(new backend 82.web)", "name": "82.web", "load_balancer": LB, "mode": "tcp",
           "health_check": None, "server_timeout": None}
    record(view, outcome(Plan([delete(engine, "c" * 32), Action("tag", "backend", untagged, tags=["anxlb-svc=web"]),
                               Action(CREATE, "backend", new, tags=["anxlb-svc=web"])])))
    listed = [r["identifier"] for r in view.resources_by_tag("anxlb-svc=web")]
    assert "c" * 32 not in listed and "e" * 32 in listed and new["id"] in listed
    assert view.resource_tags("e" * 32) == ["anxlb-svc=web"]
    assert view.resource_get(new["id"])["resource_type"] == {"identifier": RESOURCE_TYPES["backend"]}
    with pytest.raises(NotFoundError):
        view.resource_get("c" * 32)


def test_batch_reads_go_through_the_overlay_as_the_client_s_do():
    """resource_get_listed and lbaas_get_many answer as the client's (gone: None, or left out), and through
    the predictions: passed to the real client, they would read past them (a deleted bind still there, a
    predicted tag missing)."""
    engine = fake()
    service(engine)
    engine.add("backend", "81.web", ident="e" * 32, load_balancer=LB, mode="tcp")
    view = predicted(engine)
    record(view, outcome(Plan([delete(engine, "c" * 32),
                               Action("tag", "backend", flat_obj(engine, "e" * 32), tags=["anxlb-svc=web"])])))
    view = reload(view)
    listed = view.resource_get_listed(["c" * 32, "e" * 32, "0" * 32])
    assert listed[0] is None and listed[2] is None
    assert tag_names(listed[1]) == ["anxlb-svc=web"]
    assert [o["identifier"] for o in view.lbaas_get_many("bind", ["c" * 32])] == []
    assert [o["identifier"] for o in view.lbaas_get_many("backend", ["e" * 32, "b" * 32])] == ["e" * 32, "b" * 32]


def test_release_after_the_binds_are_predicted_gone():
    """Service absent, then ip_address absent: the binds on the address no longer count."""
    engine = fake()
    service(engine, address="127.0.10.9")
    assert list(binds_using(engine, ["127.0.10.9"])) == ["127.0.10.9"]
    view = predicted(engine)
    record(view, outcome(Plan([delete(engine, i) for i in ("c" * 32, "d" * 32, "f" * 32, "b" * 32)])))
    assert binds_using(reload(view), ["127.0.10.9"]) == {}


def test_second_owner_gets_the_next_address():
    """ip_address in a loop: the second owner's observation sees the first one's predicted allocation."""
    engine = fake()
    engine.add_address("127.0.10.0", ident="1" * 32, role="Network")
    engine.add_address("127.0.10.1", ident="2" * 32, role="Gateway")
    engine.add_address("127.0.10.255", ident="3" * 32, role="Broadcast")
    view = predicted(engine)
    picked = []
    for owner in ("one", "two"):
        view = reload(view)
        observer = AddressObserver(view, owner, "anxlb", pool=["127.0.10.0/24"], family="v4")
        observer.resolve()
        observer.resolve_pools((None, None, []))
        plan = plan_owner(observer.observe(), owner, 1, True, "anxlb-svc=%s" % owner)
        picked.append(plan[0].obj["address"])
        record(view, outcome(plan))
    assert picked == ["127.0.10.2", "127.0.10.3"]
    # the first owner asking again holds its predicted address: nothing to allocate
    view = reload(view)
    observer = AddressObserver(view, "one", "anxlb", pool=["127.0.10.0/24"], family="v4")
    observer.resolve()
    observer.resolve_pools((None, None, []))
    state = observer.observe()
    assert [o["address"] for o in state.held] == ["127.0.10.2"]
    assert plan_owner(state, "one", 1, True, "anxlb-svc=one") == []


def test_released_address_reads_as_being_deleted_and_a_claim_takes_the_unclaimed_object():
    engine = fake()
    engine.add_address("127.0.10.7", ident="a" * 32, description="anxcloud.lbaas: one", tags=["anxlb-svc=one"])
    engine.add_address("127.0.10.2", ident="b" * 32, status="Inactive")   # unclaimed (create_empty=false prefix)
    prefix = Prefix({"identifier": PREFIX, "name": "127.0.10.0/24"})
    view = predicted(engine)
    record(view, outcome(Plan([
        Action(RELEASE, ADDRESS, flat(prefix, "127.0.10.7", "a" * 32, "one"), reason="x"),
        Action(ALLOCATE, ADDRESS, flat(prefix, "127.0.10.2", address_placeholder(PREFIX, "127.0.10.2"), "two"), reason="y",
               tags=["anxlb-svc=two"])])))
    assert [s["identifier"] for s in view.address_list(prefix=PREFIX, status=DELETING)] == ["a" * 32]
    assert [s["identifier"] for s in view.address_list(prefix=PREFIX, status="Active")] == []
    assert view.address_get("a" * 32)["status"] == DELETING
    listing = dict((s["name"], s) for s in view.address_list(prefix=PREFIX))
    assert listing["127.0.10.7"]["identifier"] == "a" * 32   # still listed while it is being deleted
    assert listing["127.0.10.2"]["description_customer"] == "anxcloud.lbaas: two"
    assert view.address_get(listing["127.0.10.2"]["identifier"])["prefix"] == PREFIX


@pytest.mark.parametrize("write", WRITES)
@pytest.mark.parametrize("overlays", [OVERLAYS, []], ids=["installed", "none"])
def test_the_view_refuses_writes(write, overlays):
    """Every write the client declares is refused, whatever overlays the module installs."""
    engine = fake()
    with pytest.raises(RuntimeError, match="check mode must not write"):
        getattr(PredictedEngine(engine, Predictions([], URL, overlays)), write)("x", "y")
    assert engine.writes() == []


def test_every_client_method_that_sends_a_write_is_declared():
    """A method of EngineClient that passes a method other than GET to ``request`` is in WRITES (the view refuses
    it by that list: a bound method of the real client would reach the real ``request``)."""
    import ast
    import inspect
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine import _client
    tree = ast.parse(inspect.getsource(_client.EngineClient))
    sending = set()
    for fn in [n for n in tree.body[0].body if isinstance(n, ast.FunctionDef)]:   # the methods (with their inner functions)
        for call in [n for n in ast.walk(fn) if isinstance(n, ast.Call)]:
            name = getattr(call.func, "attr", None)
            if name == "request" and call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value != "GET":
                sending.add(fn.name)
            if name in WRITES:
                sending.add(fn.name)
    assert sending == set(WRITES)


def test_the_view_refuses_a_raw_write_request():
    view = predicted(fake())
    with pytest.raises(RuntimeError):
        view.request("DELETE", "/api/LBaaS/v1/bind.json/x")
