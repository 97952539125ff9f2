"""A service run whose plan was applied and whose marker write then failed (issue 30, point 4): it reports
``changed: true`` (the objects were written) and says what the missing or stale marker means; the next run
converges. The local Engine refuses the marker's tag writes by a fault script (tag paths hold the marker's
name, ``anxlb-reconciled.web=...``); everything is read back through the Engine's own API."""
import copy

from . import engine_state as es
from .conftest import warning_texts
from .test_service import SERVICE, names

SMALLER = dict(copy.deepcopy(SERVICE), servers=SERVICE["servers"][:1])


def refuse_marker_writes(engine, *methods):
    """Every marker tag write of these methods answers 503, retries included (the leases and owner tags pass)."""
    engine.set_faults({"script": [{"method": m, "path": "reconciled", "status": 503, "count": 100} for m in methods]})


def markers(engine, lb):
    return [t for t in es.tags(engine, lb) if t.startswith("anxlb-reconciled.web=")]


def test_a_marker_that_cannot_be_attached_leaves_the_run_changed_with_a_warning(engine, module):
    lb = es.lb_id(engine)
    refuse_marker_writes(engine, "POST")
    run = module("service", SERVICE)
    assert not run.failed and run["changed"] is True, run
    (warning,) = [w for w in warning_texts(run.result) if "marker" in w]
    assert warning.startswith("service web: its objects on load balancer lb1 are as declared, but the marker tag "
                              "'anxlb-reconciled.web=1,")
    assert "could not be attached" in warning and "HTTP 503" in warning and "the next run that changes something" in warning
    # the objects are there, and the load balancer carries neither a marker nor a lease
    assert names(engine, "server") == ["n1.http.web", "n1.https.web", "n2.http.web", "n2.https.web"]
    assert es.tags(engine, lb) == []
    engine.clear_faults()
    rerun = module("service", SERVICE)
    assert not rerun.failed and rerun["changed"] is False and rerun.writes(engine) == 0, rerun
    smaller = module("service", SMALLER)
    assert smaller["changed"] is True and warning_texts(smaller.result) == [], smaller
    (marker,) = markers(engine, lb)
    assert marker.startswith("anxlb-reconciled.web=1,0.1.0,%s," % smaller["declaration_hash"])


def test_a_replacement_that_cannot_be_attached_still_removes_the_replaced_marker(engine, module):
    lb = es.lb_id(engine)
    assert module("service", SERVICE)["changed"] is True
    (old,) = markers(engine, lb)
    refuse_marker_writes(engine, "POST")
    run = module("service", SMALLER)
    assert not run.failed and run["changed"] is True, run
    assert [w for w in warning_texts(run.result) if "could not be attached" in w], run
    # a marker of the earlier declaration would vouch for it: it is gone, and nothing stands in its place
    assert es.tags(engine, lb) == [] and old not in str(warning_texts(run.result))
    assert names(engine, "server") == ["n1.http.web", "n1.https.web"]
    engine.clear_faults()
    rerun = module("service", SMALLER)
    assert not rerun.failed and rerun["changed"] is False and rerun.writes(engine) == 0, rerun


def test_a_replaced_marker_that_cannot_be_removed_beside_the_new_one_is_a_warning(engine, module):
    lb = es.lb_id(engine)
    module("service", SERVICE)
    (old,) = markers(engine, lb)
    refuse_marker_writes(engine, "DELETE")
    run = module("service", SMALLER)
    assert not run.failed and run["changed"] is True, run
    (warning,) = [w for w in warning_texts(run.result) if "marker" in w]
    assert warning.startswith("service web: the replaced marker tag '%s' could not be removed from load balancer lb1 "
                              "(" % old)
    assert warning.endswith("the new marker is attached and the next writing run removes it")
    assert len(markers(engine, lb)) == 2 and old in markers(engine, lb)
    engine.clear_faults()
    module("service", SERVICE)   # the next writing run leaves one marker
    (new,) = markers(engine, lb)
    assert new != old


def test_a_replaced_marker_left_alone_fails_the_run_as_changed_naming_the_tag(engine, module):
    lb = es.lb_id(engine)
    module("service", SERVICE)
    (old,) = markers(engine, lb)
    refuse_marker_writes(engine, "POST", "DELETE")
    run = module("service", SMALLER)
    msg = run.message()
    # the marker's write is the plan's last action, after the objects (bookkeeping: not counted in the summary)
    assert run["changed"] is True and [a["action"] for a in run["plan"]] == ["delete", "delete", "mark"], run
    assert msg.startswith("service web: the plan was applied and its objects on load balancer lb1 are as declared, but "
                          "the marker tag 'anxlb-reconciled.web=1,")
    assert msg.endswith("nor the replaced marker tag '%s' removed: that tag names a declaration this run replaced and "
                        "later runs would trust it; remove it from the load balancer (%s) by hand" % (old, lb))
    # the objects are as declared, the old marker stays (as the message says), the lease is released
    assert names(engine, "server") == ["n1.http.web", "n1.https.web"]
    assert es.tags(engine, lb) == [old]
