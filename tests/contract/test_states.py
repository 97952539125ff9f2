"""Contract: deployment states over time, DeploymentError and redeploy, forced states, asynchronous
delete (docs/engine-api-facts.md, Deployment states and Asynchronous writes)."""
import pytest

from ..engine_states import state
from .helpers import (LB1, RESOURCES, V4, after_delay, backend, create, error_of, get, items, lbaas, ok,
                      put_full, state_title, tag_path)

NEWLY_CREATED = state("NewlyCreated", text=True)
DEPLOYED = state("Deployed", text=True)
UPDATING = state("Updating", text=True)   # type OK, yet not finished
UPDATED = state("Updated", text=True)
ERROR = state("DeploymentError", text=True)


def put(engine, ident, **changes):
    """A whole-object PUT of a backend, as the generic client sends it (state only when given)."""
    return put_full(engine, "backend", ident, **changes)


def test_new_objects_are_newly_created_then_deployed(slow_engine):
    b = backend(slow_engine)
    assert b["state"] == NEWLY_CREATED and get(slow_engine, "backend", b["identifier"])["state"] == NEWLY_CREATED
    after_delay()
    assert get(slow_engine, "backend", b["identifier"])["state"] == DEPLOYED


def test_load_balancers_deploy_too_and_seeded_ones_are_deployed(slow_engine):
    assert get(slow_engine, "loadbalancer", LB1)["state"] == DEPLOYED
    lb = create(slow_engine, "loadbalancer", name="lb3", ip_address="lb3.test")
    assert lb["state"] == NEWLY_CREATED
    after_delay()
    assert state_title(slow_engine, "loadbalancer", lb["identifier"]) == "Deployed"


def test_updates_go_through_updating_to_updated(slow_engine):
    b = backend(slow_engine)
    after_delay()
    assert put(slow_engine, b["identifier"], mode="http", state="0")["state"] == UPDATING
    assert get(slow_engine, "backend", b["identifier"])["state"] == UPDATING
    after_delay()
    assert get(slow_engine, "backend", b["identifier"])["state"] == UPDATED


def test_a_put_that_changes_nothing_starts_no_deployment_unless_state_0(slow_engine):
    b = backend(slow_engine)
    after_delay()
    assert put(slow_engine, b["identifier"], mode="tcp", state="1")["state"] == DEPLOYED
    assert put(slow_engine, b["identifier"], state="0")["state"] == UPDATING   # redeploy request
    after_delay()
    assert state_title(slow_engine, "backend", b["identifier"]) == "Updated"


def test_deployment_error_and_redeploy(engine):
    engine.set_faults({"deploy": [{"match": "fail-*", "outcome": "error", "count": 1}]})
    b = backend(engine, name="fail-once")
    assert b["state"] == ERROR
    assert put(engine, b["identifier"], mode="tcp")["state"] == ERROR   # no change: still failed
    assert put(engine, b["identifier"], state="0")["state"] == UPDATED   # count used up
    assert backend(engine, name="fail-twice")["state"] == DEPLOYED


def test_fail_n_times_then_succeed(engine):
    engine.set_faults({"deploy": [{"match": "flaky", "outcome": "error", "count": 2}]})
    b = backend(engine, name="flaky")
    assert [b["state"]["title"]] + [put(engine, b["identifier"], state="0")["state"]["title"] for _attempt in range(2)] == [
        "DeploymentError", "DeploymentError", "Updated"]
    assert engine.admin("GET", "faults")["deploy"][0]["count"] == 0


def test_fail_always(engine):
    engine.set_faults({"deploy": [{"match": "broken", "outcome": "error"}]})
    b = backend(engine, name="broken")
    assert [put(engine, b["identifier"], state="0")["state"]["title"] for _attempt in range(3)] == ["DeploymentError"] * 3


def test_stuck_objects_stay_pending_by_name_or_identifier(slow_engine):
    b = backend(slow_engine)
    slow_engine.set_faults({"deploy": [{"match": "stuck*", "outcome": "stuck"},
                                       {"match": b["identifier"], "outcome": "stuck"}]})
    stuck = backend(slow_engine, name="stuck-web")
    put(slow_engine, b["identifier"], mode="http", state="0")
    after_delay()
    assert state_title(slow_engine, "backend", stuck["identifier"]) == "NewlyCreated"
    assert state_title(slow_engine, "backend", b["identifier"]) == "Updating"


def test_forced_states_through_the_admin_api(engine):
    b = backend(engine)
    for title in ("DeploymentError", "NewlyCreated", "Updating"):
        assert engine.set_state(b["identifier"], title) == {"identifier": b["identifier"], "state": title}
        assert state_title(engine, "backend", b["identifier"]) == title
    engine.set_state(b["identifier"], None)
    assert state_title(engine, "backend", b["identifier"]) == "Deployed"
    engine.set_state(b["identifier"], "DeploymentError")
    assert put(engine, b["identifier"], state="0")["state"] == UPDATED   # the next deployment ends it


@pytest.mark.parametrize("ident, body, status", [
    (None, {"state": "Broken"}, 422), (None, ["DeploymentError"], 422), ("0" * 32, {"state": "Deployed"}, 404),
    (V4, {"state": "Deployed"}, 422)])
def test_forcing_a_state_needs_a_known_title_and_an_lbaas_object(engine, ident, body, status):
    ident = ident or backend(engine)["identifier"]
    error_of(engine.http.put(engine.url + "/_local/objects/%s/state" % ident, json=body, timeout=5), status)


def test_delete_is_asynchronous_and_repeatable(slow_engine):
    b = backend(slow_engine)
    ok(slow_engine.api("POST", tag_path(b["identifier"], "gone-soon"), json=""))
    assert ok(slow_engine.api("DELETE", lbaas("backend", b["identifier"]))) == {}
    assert state_title(slow_engine, "backend", b["identifier"]) == "NewlyCreated"   # keeps its state
    assert [i["identifier"] for i in items(ok(slow_engine.api("GET", lbaas("backend"))))] == [b["identifier"]]
    assert ok(slow_engine.api("GET", RESOURCES + "/" + b["identifier"]))["tags"][0]["name"] == "gone-soon"
    assert ok(slow_engine.api("DELETE", lbaas("backend", b["identifier"]))) == {}   # repeated: fine
    after_delay()
    error_of(slow_engine.api("GET", lbaas("backend", b["identifier"])), 404)
    error_of(slow_engine.api("DELETE", lbaas("backend", b["identifier"])), 404)
    error_of(slow_engine.api("GET", RESOURCES + "/" + b["identifier"]), 404)
    error_of(slow_engine.api("GET", RESOURCES, params={"tag_name": "gone-soon"}), 422)   # tags vanish with it
    assert items(ok(slow_engine.api("GET", lbaas("backend")))) == []
