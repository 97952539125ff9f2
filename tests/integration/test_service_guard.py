"""What guards a service run's writes, against the local Engine: the lease on its load balancers,
the "last reconciled" marker, and stopping at the Engine's first 429."""
import copy
import time

import pytest

from . import engine_state as es
from .test_service import SERVICE, converge_next, converge_play, objects_of, set_up, setup_play, task

SMALLER = dict(copy.deepcopy(SERVICE), servers=SERVICE["servers"][:1])


def lease_tag(holder, expiry):
    return "anxlb-lease=%s@%d" % (holder, expiry)


def test_a_changing_run_leaves_the_marker_and_no_lease_and_absent_removes_the_marker(engine, ansible):
    plays = ansible.session([converge_play(SERVICE), converge_play(SMALLER), converge_play(dict(SMALLER, state="absent"))])
    check, real = converge_next(engine, plays)
    lb = es.lb_id(engine)
    (marker,) = es.tags(engine, lb)
    assert marker.startswith("anxlb-reconciled.web=1,0.1.0,%s," % real["declaration_hash"])
    assert real["declaration_hash"] == check["declaration_hash"]
    check, smaller = converge_next(engine, plays)
    assert smaller["declaration_hash"] != real["declaration_hash"]
    (marker,) = es.tags(engine, lb)
    assert marker.startswith("anxlb-reconciled.web=1,0.1.0,%s," % smaller["declaration_hash"])
    converge_next(engine, plays)
    assert es.tags(engine, lb) == []


def test_a_live_lease_of_another_run_stops_a_writing_run_but_not_check_mode_or_a_no_op(engine, ansible):
    # a no-op, check mode of a change, the real change: three tasks of one play, after the one that sets the scene
    plays = ansible.session([setup_play(SERVICE), ([task(SERVICE), dict(task(SMALLER), check_mode=True, diff=True),
                                                    dict(task(SMALLER), ignore_errors=True)], {})])
    set_up(plays.next())
    lb = es.lb_id(engine)
    expiry = int(time.time()) + 600
    held = lease_tag("web@ci-runner:4242", expiry)
    es.tag(engine, lb, held)
    before = es.snapshot(engine)
    engine.reset_requests()
    play = plays.next()
    noop, check, real = play[0], play[1], play[2]
    assert not play.failed(0) and noop["changed"] is False
    assert not play.failed(1) and check["changed"] is True
    until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expiry))
    assert check["warnings"] == ["load balancer lb1 is leased by web@ci-runner:4242 (until %s); a real run "
                                 "would fail until that run ends" % until]
    assert play.failed(2)
    assert real["msg"] == (
        "load balancer lb1 is leased by web@ci-runner:4242 (until %s): another run is reconciling it. Retry later, "
        "or if that run is gone, remove the tag '%s' from the load balancer (%s)"
        % (until, held, lb))
    assert real["lease_holder"] == "web@ci-runner:4242"
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before


def test_an_expired_lease_is_taken_over_with_a_warning(engine, ansible):
    plays = ansible.session([setup_play(SERVICE), setup_play(SMALLER)])
    set_up(plays.next())
    lb = es.lb_id(engine)
    stale = lease_tag("web@crashed-host:99", int(time.time()) - 5)
    es.tag(engine, lb, stale)
    run = plays.next()
    assert not run.failed(), run
    # (the two deletes in either order: the plan's order is not what this test is about)
    assert run.last["changed"] is True and sorted(a["name"] for a in objects_of(run.last)) == ["n2.http.web", "n2.https.web"]
    assert any(w.startswith("took over the expired lease of web@crashed-host:99") for w in run.last["warnings"])
    assert stale not in es.tags(engine, lb) and not [t for t in es.tags(engine, lb) if t.startswith("anxlb-lease=")]


def test_a_marker_of_a_newer_incompatible_collection_makes_the_module_refuse(engine, ansible):
    plays = ansible.session([setup_play(SERVICE),
                             ([dict(task(SMALLER), check_mode=check, ignore_errors=True) for check in (True, False)], {})])
    set_up(plays.next())
    lb = es.lb_id(engine)
    for tag in es.tags(engine, lb):
        engine.api("DELETE", "/api/core/v1/resource.json/%s/tags/%s" % (lb, tag)).raise_for_status()
    es.tag(engine, lb, "anxlb-reconciled.web=2,3.0.0,0123456789abcdef")
    engine.reset_requests()
    play = plays.next()
    assert len(play.records) == 2, play
    for index in (0, 1):   # check mode, then a real run
        assert play.failed(index)
        assert play[index]["msg"] == (
            "service web on load balancer lb1 was last reconciled by anxcloud.lbaas 3.0.0 with naming scheme 2; this "
            "collection (0.1.0) knows scheme 1 and would misread those objects: upgrade the collection")
    assert engine.mutating_requests() == 0


def test_the_first_429_ends_the_run_with_no_further_request(engine, ansible):
    plays = ansible.session([setup_play(SERVICE), setup_play(SMALLER)])
    set_up(plays.next())
    engine.set_faults({"errors": {"DELETE": {"429": 1.0}}})
    engine.reset_requests()
    run = plays.next()
    assert run.failed()
    log = engine.requests()["log"]
    deletes = [entry for entry in log if entry["method"] == "DELETE"]
    # The servers' deletes go out concurrently; after the first 429 nothing else is sent, and the
    # lease (removing it is a DELETE too) stays until it expires, which the run reports.
    assert deletes and all(entry["status"] == 429 for entry in deletes)
    first = min(i for i, entry in enumerate(log) if entry["status"] == 429)
    assert all(entry["method"] == "DELETE" for entry in log[first:]) and len(log[first:]) <= 2
    assert ("rate limited by the Engine; back off and retry later, with a lower api_concurrency or fewer forks "
            "(HTTP 429)") in run.last["msg"]
    assert any(w.startswith("the lease tag 'anxlb-lease=web@") and w.endswith(": it could not be removed")
               for w in run.last["warnings"])
    assert len(es.objects(engine, "server")) == 4


def test_writing_runs_leave_the_owner_tag_and_one_marker_and_no_lease_in_the_account(engine, ansible):
    # Tag names are account-level entities: a released lease and a replaced marker are deleted, so
    # what the service leaves behind stays bounded however many runs write (branch engine-strict).
    def created():
        resp = engine.api("GET", "/api/core/v1/tags.json", params={"page": 1, "limit": 1000, "query": ""})
        if resp.status_code == 404:
            pytest.skip("this local Engine has no tag entities (needs the engine-strict branch)")
        resp.raise_for_status()
        return sorted(t["name"] for t in resp.json()["data"] if t["name"] not in seeded)
    seeded = []
    seeded.extend(created())
    play = ansible.run([task(declaration) for declaration in (SERVICE, SMALLER, SERVICE)])   # three writing runs
    assert len(play.records) == 3 and not any(play.failed(i) for i in range(3)) and play[2]["changed"], play
    (marker,) = es.tags(engine, es.lb_id(engine))
    assert created() == sorted(["anxlb-svc=web", marker])
