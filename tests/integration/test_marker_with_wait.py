"""The service's marker says "this declaration is applied here", and later runs trust it: a port without an
allow-list is not listed again (its ACLs and rules), gc reads its age. What it vouches for is configuration
written and tagged, not deployment (a deployment that fails shows on the object, which every run reads), so it
is written as soon as every object write of the plan returned and the owner tags of its load balancer are
written, alongside the wait for the deployments, not after it (issue 28: a writing run one round trip shorter).
Never before: no marker while a write or a tag write of its load balancer is outstanding or failed. A run whose
wait then fails takes its marker back, so none vouches for a run that did not end well.

Read from the local Engine's request log, on an Engine whose deployments take DELAY seconds: the marker's POST
starts after the last object and owner-tag write ended and ends before the wait's last poll started."""
import pytest

from localengine.testing import MUTATING

from . import engine_state as es
from .conftest import ForkedModule
from .test_service import SERVICE, names

DELAY = 1.0


@pytest.fixture
def engine_delays():
    return {"deploy_delay": DELAY, "update_delay": DELAY, "delete_delay": DELAY}


def split(log):
    """(the marker's tag writes, the LBaaS object writes, the owner-tag writes, the reads of LBaaS objects) of a run's
    request log."""
    marks = [e for e in log if e["method"] in MUTATING and "reconciled" in e["path"]]
    writes = [e for e in log if e["method"] in MUTATING and "/api/LBaaS/" in e["path"]]
    owner_tags = [e for e in log if e["method"] == "POST" and "/tags/" in e["path"] and "svc" in e["path"]]
    reads = [e for e in log if e["method"] == "GET" and "/api/LBaaS/" in e["path"]]
    return marks, writes, owner_tags, reads


def test_the_marker_follows_the_writes_and_their_tags_during_the_wait(slow_engine, module_fork_server):
    module = ForkedModule(slow_engine, module_fork_server)
    check = module("service", SERVICE, check=True)
    assert check["plan"][-1]["action"] == "mark" and check.writes(slow_engine) == 0, check
    run = module("service", SERVICE)
    assert not run.failed and run["changed"] is True and run["plan"] == check["plan"], run
    (mark,), writes, owner_tags, reads = split(run.requests(slow_engine))
    assert mark["method"] == "POST" and len([e for e in writes if e["method"] == "POST"]) == 10
    assert len(owner_tags) == 4   # backends and frontends carry the owner tag; binds and servers are theirs by containment
    # after every object write and every owner tag write had its answer ...
    assert max(e["end"] for e in writes + owner_tags) <= mark["start"]
    # ... and before the wait saw the objects deployed: it polled on after the marker was written
    last_poll = max(reads, key=lambda e: e["start"])
    assert mark["end"] <= last_poll["start"], (mark, last_poll)
    assert last_poll["start"] - max(e["end"] for e in writes) >= DELAY * 0.9   # the Engine deploys DELAY after a write
    (marker,) = [t for t in es.tags(slow_engine, es.lb_id(slow_engine)) if "reconciled" in t]
    assert marker.startswith("anxlb-reconciled.web=1,0.1.0,%s," % run["declaration_hash"])
    rerun = module("service", SERVICE)
    assert rerun["changed"] is False and rerun["plan"] == [] and rerun.writes(slow_engine) == 0, rerun


def test_without_a_wait_the_marker_follows_the_writes(slow_engine, module_fork_server):
    module = ForkedModule(slow_engine, module_fork_server)
    run = module("service", dict(SERVICE, wait=False))
    assert not run.failed and run["changed"] is True, run
    (mark,), writes, owner_tags, _reads = split(run.requests(slow_engine))
    assert max(e["end"] for e in writes + owner_tags) <= mark["start"]
    assert mark["start"] - max(e["end"] for e in writes) < DELAY   # not waited for: still deploying then


def test_a_run_whose_wait_fails_takes_its_marker_back(slow_engine, module_fork_server):
    """A server fails to deploy, also after the redeploy the wait asks for: the run fails, changed, and the marker
    it wrote during the wait is removed again (the lease too); the next run finds no marker, lists everything,
    redeploys the server and writes the marker."""
    module = ForkedModule(slow_engine, module_fork_server)
    lb = es.lb_id(slow_engine)
    slow_engine.set_faults({"deploy": [{"match": "n1.http.web", "outcome": "error", "count": 2}]})
    run = module("service", SERVICE)
    assert run.failed and run["changed"] is True and "n1.http.web" in run.message(), run
    marks, _writes, _owner_tags, _reads = split(run.requests(slow_engine))
    assert [e["method"] for e in marks] == ["POST", "DELETE"], marks   # written during the wait, taken back after it
    assert es.tags(slow_engine, lb) == [], es.tags(slow_engine, lb)    # neither a marker nor a lease stays
    assert not [t for t in slow_engine.tag_entities() if "reconciled" in t["name"] or "lease" in t["name"]]
    slow_engine.clear_faults()
    rerun = module("service", SERVICE)
    assert not rerun.failed and rerun["changed"] is True, rerun
    assert [a["action"] for a in rerun["plan"]] == ["redeploy", "mark"], rerun["plan"]
    assert names(slow_engine, "server") == ["n1.http.web", "n1.https.web", "n2.http.web", "n2.https.web"]
    (marker,) = [t for t in es.tags(slow_engine, lb) if "reconciled" in t]
    assert marker.startswith("anxlb-reconciled.web=1,0.1.0,%s," % rerun["declaration_hash"])
