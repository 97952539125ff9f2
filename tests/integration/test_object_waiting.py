"""Waiting through Engine deployment states, each run a module process (waiting is the module's own doing)."""
import time

import pytest

from . import engine_state as es
from .conftest import ForkedModule

DELAY = 1.5


@pytest.fixture
def engine_delays():
    return {"deploy_delay": DELAY, "update_delay": DELAY}


@pytest.fixture
def slow(slow_engine, module_fork_server):
    return slow_engine, ForkedModule(slow_engine, module_fork_server)


def backend(**args):
    base = {"load_balancer": "lb1", "name": "80.web", "mode": "tcp"}
    base.update(args)
    return base


def test_waits_through_the_deploy_delay(slow):
    engine, module = slow
    started = time.monotonic()
    run = module("backend", backend())
    assert not run.failed, run
    assert time.monotonic() - started >= DELAY
    assert run["backend"]["state"] == "Deployed"
    polls = [e for e in engine.requests()["log"] if e["method"] == "GET" and run["backend"]["id"] in e["path"]]
    assert 2 <= len(polls) <= 10   # capped backoff, not a busy loop


def test_without_wait_returns_at_once_with_the_pending_object(slow):
    engine, module = slow
    # a deployment that never ends, so a loaded machine cannot make the check racy
    engine.set_faults({"deploy": [{"match": "80.web", "outcome": "stuck"}]})
    run = module("backend", backend(wait=False))
    assert not run.failed, run
    assert run["backend"]["state"] == "NewlyCreated"
    assert es.by_name(engine, "backend")["80.web"]["state"]["title"] == "NewlyCreated"


def test_an_object_still_newly_created_is_waited_for_without_a_change(slow):
    engine, module = slow
    es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=es.lb_id(engine))
    run = module("backend", backend())
    assert not run.failed, run
    assert run["changed"] is False and run["backend"]["state"] == "Deployed"


def test_wait_timeout_names_the_object(slow):
    engine, module = slow
    engine.set_faults({"deploy": [{"match": "80.web", "outcome": "stuck"}]})
    run = module("backend", backend(wait_timeout=2))
    assert run.failed, run
    ident = es.by_name(engine, "backend")["80.web"]["identifier"]
    assert run.message() == "timed out after 2s waiting for backend '80.web' (%s)" % ident
    assert run["pending_objects"] == [{"type": "backend", "id": ident, "name": "80.web", "waiting_for": "ok"}]


def test_deployment_error_is_redeployed_once(engine, module):
    engine.set_faults({"deploy": [{"match": "80.web", "outcome": "error", "count": 1}]})
    run = module("backend", backend())
    assert not run.failed, run
    assert run["backend"]["state"] == "Updated"
    redeploys = [e for e in engine.requests()["log"] if e["method"] == "PUT"]
    assert len(redeploys) == 1


def test_deployment_error_twice_fails_naming_the_object(engine, module):
    engine.set_faults({"deploy": [{"match": "80.web", "outcome": "error"}]})
    run = module("backend", backend())
    assert run.failed, run
    ident = es.by_name(engine, "backend")["80.web"]["identifier"]
    # The local Engine, like the documented one, answers only the state {id, title, type}: the object's fields
    # stand in for a reason.
    assert run.message().startswith("backend '80.web' (%s) failed to deploy (DeploymentError) again after a "
                                    "redeploy request: the Engine gives no reason; its fields: mode=" % ident)
    assert run["failed_object"] == {"type": "backend", "id": ident, "name": "80.web", "state": "DeploymentError",
                                    "reason": None}


def test_an_existing_failed_object_is_redeployed_and_check_mode_says_so(engine, module):
    ident = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=es.lb_id(engine))
    engine.set_state(ident, "DeploymentError")
    # check mode, then for real: the redeploy request starts a new, successful deployment
    before = engine.dump()
    engine.reset_requests()
    check = module("backend", backend(), check=True)
    assert engine.dump() == before
    run = module("backend", backend())
    assert not check.failed and not run.failed, (check, run)
    assert check["changed"] is True and check["plan"][0]["action"] == "redeploy"
    assert check.writes(engine) == 0
    assert run["changed"] is True and run["backend"]["state"] == "Updated"
    assert run.writes(engine) == 1
