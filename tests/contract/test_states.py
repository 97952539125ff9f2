"""Contract: deployment states over time, DeploymentError and redeploy, asynchronous delete (4.2, 4.10)."""
import time

from .conftest import DELAY
from .test_lbaas import LB1, path


def state(engine, kind, ident):
    return engine.api("GET", path(kind, ident)).json()["state"]


def make(engine, name="web"):
    resp = engine.api("POST", path("backend"), json={"name": name, "mode": "tcp", "load_balancer": LB1})
    return resp.json()


def test_created_objects_are_newly_created_then_deployed(slow_engine):
    b = make(slow_engine)
    assert b["state"] == {"id": "4", "title": "NewlyCreated", "text": "NewlyCreated", "type": 2}
    time.sleep(DELAY + 0.1)
    assert state(slow_engine, "backend", b["identifier"]) == {"id": "3", "title": "Deployed", "text": "Deployed", "type": 1}


def test_updates_go_through_updating_to_updated(slow_engine):
    b = make(slow_engine)
    time.sleep(DELAY + 0.1)
    resp = slow_engine.api("PUT", path("backend", b["identifier"]), json={"mode": "http", "state": "0"}).json()
    assert resp["state"] == {"id": "0", "title": "Updating", "text": "Updating", "type": 1}   # type OK, not done
    time.sleep(DELAY + 0.1)
    assert state(slow_engine, "backend", b["identifier"])["title"] == "Updated"


def test_deployment_error_and_redeploy(engine):
    engine.set_faults({"deploy": [{"match": "fail-*", "outcome": "error", "count": 1}]})
    b = make(engine, "fail-once")
    assert b["state"] == {"id": "2", "title": "DeploymentError", "text": "DeploymentError", "type": 0}
    redeployed = engine.api("PUT", path("backend", b["identifier"]), json={"state": "0"}).json()
    assert redeployed["state"]["title"] == "Updated"   # count used up: the redeploy succeeds
    assert make(engine, "fine")["state"]["title"] == "Deployed"


def test_stuck_objects_stay_pending(slow_engine):
    slow_engine.set_faults({"deploy": [{"match": "stuck", "outcome": "stuck"}]})
    b = make(slow_engine, "stuck")
    time.sleep(DELAY + 0.1)
    assert state(slow_engine, "backend", b["identifier"])["title"] == "NewlyCreated"


def test_forced_states_through_the_admin_api(engine):
    b = make(engine)
    engine.set_state(b["identifier"], "DeploymentError")
    assert state(engine, "backend", b["identifier"])["title"] == "DeploymentError"
    engine.set_state(b["identifier"], None)
    assert state(engine, "backend", b["identifier"])["title"] == "Deployed"


def test_delete_is_asynchronous_and_repeatable(slow_engine):
    b = make(slow_engine)
    assert slow_engine.api("DELETE", path("backend", b["identifier"])).json() == {}
    assert slow_engine.api("GET", path("backend", b["identifier"])).status_code == 200   # still readable
    assert slow_engine.api("DELETE", path("backend", b["identifier"])).status_code == 200   # repeated: fine
    time.sleep(DELAY + 0.1)
    assert slow_engine.api("GET", path("backend", b["identifier"])).status_code == 404
    assert slow_engine.api("DELETE", path("backend", b["identifier"])).status_code == 404
