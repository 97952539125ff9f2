"""The service's marker says "this declaration is applied here", and later runs trust it (a port without an
allow-list is not listed again, gc reads its age): so it is written as the plan's last action, after the wait
for the objects' deployment, never before (issue 28, point 3). Read from the local Engine's request log, on an
Engine whose deployments take a while; ``wait: false`` keeps what the module always did: the marker follows
the writes at once (that run does not claim deployment, and neither did the marker before)."""
import pytest

from localengine.testing import MUTATING

from .conftest import Module
from .test_service import SERVICE

DELAY = 1.0


@pytest.fixture
def engine_delays():
    return {"deploy_delay": DELAY, "update_delay": DELAY, "delete_delay": DELAY}


def split(log):
    """(the marker's tag write, the object writes, the reads of LBaaS objects) of a run's request log."""
    (mark,) = [e for e in log if e["method"] == "POST" and "reconciled" in e["path"]]
    writes = [e for e in log if e["method"] in MUTATING and "/api/LBaaS/" in e["path"]]
    reads = [e for e in log if e["method"] == "GET" and "/api/LBaaS/" in e["path"]]
    return mark, writes, reads


def test_the_marker_is_written_after_the_wait_saw_every_object_deployed(slow_engine):
    module = Module(slow_engine)
    check = module("service", SERVICE, check=True)
    assert check["plan"][-1]["action"] == "mark" and check.writes(slow_engine) == 0, check
    run = module("service", SERVICE)
    assert not run.failed and run["changed"] is True and run["plan"] == check["plan"], run
    mark, writes, reads = split(run.requests(slow_engine))
    assert len([e for e in writes if e["method"] == "POST"]) == 10
    last_write = max(e["end"] for e in writes)
    polls = [e for e in reads if e["start"] >= last_write]
    # the wait polled the objects after the last write until they were deployed, and only then the marker
    assert polls and all(e["end"] <= mark["start"] for e in reads), (mark, polls[-1])
    assert mark["start"] - last_write >= DELAY   # the Engine deploys an object DELAY after its write
    rerun = module("service", SERVICE)
    assert rerun["changed"] is False and rerun["plan"] == [] and rerun.writes(slow_engine) == 0, rerun


def test_without_a_wait_the_marker_follows_the_writes(slow_engine):
    module = Module(slow_engine)
    run = module("service", dict(SERVICE, wait=False))
    assert not run.failed and run["changed"] is True, run
    mark, writes, _reads = split(run.requests(slow_engine))
    assert max(e["end"] for e in writes) <= mark["start"]
    assert mark["start"] - max(e["end"] for e in writes) < DELAY   # not waited for: still deploying then
