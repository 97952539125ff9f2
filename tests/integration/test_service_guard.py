"""What guards a service run's writes, against the local Engine: the lease on its load balancers,
the "last reconciled" marker, and stopping at the Engine's first 429. Each run is the module as its own process
(the ``module`` fixture): what guards its writes is the module's own behaviour."""
import copy
import time

import pytest

from . import engine_state as es
from .conftest import warning_texts
from .test_service import SERVICE, apply, converge, objects_of

SMALLER = dict(copy.deepcopy(SERVICE), servers=SERVICE["servers"][:1])


def lease_tag(holder, expiry):
    return "anxlb-lease=%s@%d" % (holder, expiry)


def test_a_changing_run_leaves_the_marker_and_no_lease_and_absent_removes_the_marker(engine, module):
    check, real = converge(module, engine, SERVICE)
    lb = es.lb_id(engine)
    (marker,) = es.tags(engine, lb)
    assert marker.startswith("anxlb-reconciled.web=1,0.1.0,%s," % real["declaration_hash"])
    assert real["declaration_hash"] == check["declaration_hash"]
    check, smaller = converge(module, engine, SMALLER)
    assert smaller["declaration_hash"] != real["declaration_hash"]
    (marker,) = es.tags(engine, lb)
    assert marker.startswith("anxlb-reconciled.web=1,0.1.0,%s," % smaller["declaration_hash"])
    converge(module, engine, dict(SMALLER, state="absent"))
    assert es.tags(engine, lb) == []


def test_a_live_lease_of_another_run_stops_a_writing_run_but_not_check_mode_or_a_no_op(engine, module):
    apply(module, SERVICE)
    lb = es.lb_id(engine)
    expiry = int(time.time()) + 600
    held = lease_tag("web@ci-runner:4242", expiry)
    es.tag(engine, lb, held)
    before = es.snapshot(engine)
    engine.reset_requests()
    # a no-op, check mode of a change, the real change
    noop, check, real = (module("service", SERVICE), module("service", SMALLER, check=True, diff=True),
                         module("service", SMALLER))
    assert not noop.failed and noop["changed"] is False
    assert not check.failed and check["changed"] is True
    until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expiry))
    assert warning_texts(check.result) == ["service web: load balancer lb1 is leased by web@ci-runner:4242 (until %s); a real run "
                                           "would fail until that run ends" % until]
    assert real.message() == (
        "load balancer lb1 is leased by web@ci-runner:4242 (until %s): another run is reconciling it. Retry later, "
        "or if that run is gone, remove the tag '%s' from the load balancer (%s)"
        % (until, held, lb))
    assert real["lease_holder"] == "web@ci-runner:4242"
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before


def test_an_expired_lease_is_taken_over_with_a_warning(engine, module):
    apply(module, SERVICE)
    lb = es.lb_id(engine)
    stale = lease_tag("web@crashed-host:99", int(time.time()) - 5)
    es.tag(engine, lb, stale)
    run = apply(module, SMALLER)
    # (the two deletes in either order: the plan's order is not what this test is about)
    assert run["changed"] is True and sorted(a["name"] for a in objects_of(run)) == ["n2.http.web", "n2.https.web"]
    assert any(w.startswith("service web: took over the expired lease of web@crashed-host:99") for w in warning_texts(run))
    assert stale not in es.tags(engine, lb) and not [t for t in es.tags(engine, lb) if t.startswith("anxlb-lease=")]


def test_a_marker_of_a_newer_incompatible_collection_makes_the_module_refuse(engine, module):
    apply(module, SERVICE)
    lb = es.lb_id(engine)
    for tag in es.tags(engine, lb):
        engine.api("DELETE", "/api/core/v1/resource.json/%s/tags/%s" % (lb, tag)).raise_for_status()
    es.tag(engine, lb, "anxlb-reconciled.web=2,3.0.0,0123456789abcdef")
    engine.reset_requests()
    for check in (True, False):   # check mode, then a real run
        assert module("service", SMALLER, check=check).message() == (
            "service web on load balancer lb1 was last reconciled by anxcloud.lbaas 3.0.0 with naming scheme 2; this "
            "collection (0.1.0) knows scheme 1 and would misread those objects: upgrade the collection")
    assert engine.mutating_requests() == 0


def test_the_first_429_ends_the_run_with_no_further_request(engine, module):
    apply(module, SERVICE)
    engine.set_faults({"errors": {"DELETE": {"429": 1.0}}})
    engine.reset_requests()
    run = module("service", SMALLER)
    assert run.failed, run
    log = engine.requests()["log"]
    deletes = [entry for entry in log if entry["method"] == "DELETE"]
    # The servers' deletes go out concurrently, and so may the lookups of the tag entities the run's end deletes
    # (sent once the lease is held, _guard._look_ahead: the lease's and the replaced marker's, each a listing by
    # name and a read of the entity found, _tag_entities.lookup); after the first 429 nothing else is sent (what
    # follows it in the log was on its way), and the lease (removing it is a DELETE too) stays until it expires,
    # which the run reports.
    assert deletes and all(entry["status"] == 429 for entry in deletes)
    first = min(i for i, entry in enumerate(log) if entry["status"] == 429)
    later = log[first:]
    lookups = [e for e in log if e["method"] == "GET" and e["path"].startswith("/api/core/v1/tags.json")]
    on_their_way = [e for e in later if e in lookups]
    assert all(entry["method"] == "DELETE" for entry in later if entry not in on_their_way)
    assert len(later) - len(on_their_way) <= 2
    # the run's lookups, before the 429 or after it: at most the two names, each one listing and one read
    listings = [e for e in lookups if "?" in e["path"]]
    assert len(listings) <= 2 and len(lookups) <= 2 * len(listings)
    assert all("query=anxlb-lease%3Dweb%40" in e["path"] or "query=anxlb-reconciled.web%3D" in e["path"] for e in listings)
    assert ("rate limited by the Engine; back off and retry later, with a lower api_concurrency or fewer forks "
            "(HTTP 429)") in run.message()
    assert any(w.startswith("service web: the lease tag 'anxlb-lease=web@") and w.endswith(": it could not be removed")
               for w in warning_texts(run.result))
    assert len(es.objects(engine, "server")) == 4


def test_writing_runs_leave_the_owner_tag_and_one_marker_and_no_lease_in_the_account(engine, module):
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
    assert [apply(module, declaration)["changed"] for declaration in (SERVICE, SMALLER, SERVICE)] == [True] * 3
    (marker,) = es.tags(engine, es.lb_id(engine))
    assert created() == sorted(["anxlb-svc=web", marker])
