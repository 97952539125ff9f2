"""Reads a writing run of the service needs only for a warning or for its own end go out alongside its work, not
in a row before or after it (issue 28: ``make bench`` round trips no worse than before the marker and the prefix
check were added):

* the account's IPAM prefix listing behind the warning for a bind outside every prefix goes out with the plan,
  and the lease is attached while it is still out; the warning is said as before;
* the tag entities of the lease and of the marker the run replaces are looked up once the lease is held, while the
  run writes and waits; its end detaches the lease, checks that no load balancer carries the replaced marker
  (alongside the detach), and deletes the entities: no lookup after the release began.

Read from the local Engine's request log, with a latency on reads and deletes so that what overlaps shows, on an
Engine whose deployments take DELAY seconds (the run's wait, which the lookups must not outlast)."""
import urllib.parse

import pytest

from . import engine_state as es
from .conftest import ForkedModule, warning_texts
from .test_service import SERVICE

DELAY = 1.0

LATENCY = {"GET": 0.15, "DELETE": 0.15}
OUTSIDE = dict(SERVICE, addresses=["127.0.20.5"])   # loopback, in no IPAM prefix of the account
WARNING = ("service web: addresses: 127.0.20.5 is in no IPAM prefix of this account, so the Engine will most likely not route it to "
           "the load balancer; the bind is made anyway. Check the address for a typo, or take one from a prefix of the "
           "account (anxcloud.lbaas.ip_address)")


@pytest.fixture
def engine_delays():
    return {"deploy_delay": DELAY, "update_delay": DELAY, "delete_delay": DELAY}


def lease_request(log, method):
    (entry,) = [e for e in log if e["method"] == method and "/tags/" in e["path"] and "-lease=" in e["path"]]
    return entry


def entity_reads(log, name=None):
    """The reads of tag entities (``name``: the listings asking for it)."""
    reads = [e for e in log if e["method"] == "GET" and e["path"].startswith("/api/core/v1/tags.json")]
    if name is None:
        return reads
    return [e for e in reads if "query=" + urllib.parse.quote(name, safe="") in e["path"]]


def after_release_began(log):
    release = lease_request(log, "DELETE")
    return release, [e for e in log if e["start"] >= release["start"] and e is not release]


def test_the_prefix_listing_and_the_lease_lookup_go_out_alongside_the_run(slow_engine, module_fork_server):
    engine, module = slow_engine, ForkedModule(slow_engine, module_fork_server)
    engine.set_faults({"latency": LATENCY})
    run = module("service", OUTSIDE)
    assert not run.failed and run["changed"] is True and warning_texts(run.result) == [WARNING], run
    log = run.requests(engine)
    (listing,) = [e for e in log if e["path"].startswith("/api/ipam/v1/prefix.json")]
    assert lease_request(log, "POST")["start"] < listing["end"]   # the lease did not wait for the listing
    # the lease's entity was looked up after it was attached, alongside the object writes ...
    reads = entity_reads(log)
    writes = [e for e in log if e["method"] == "POST" and e["path"].startswith("/api/LBaaS/")]
    assert len(reads) == 2 and lease_request(log, "POST")["end"] <= min(e["start"] for e in reads)
    assert min(e["start"] for e in reads) < max(e["end"] for e in writes)
    # ... so the end is the detach, then the entity's delete
    release, after = after_release_began(log)
    assert max(e["end"] for e in reads) <= release["start"]
    assert [(e["method"], e["path"].split("/")[4].split("?")[0]) for e in after] == [("DELETE", "tags.json")]
    assert [t for t in engine.tag_entities() if "-lease=" in t["name"]] == []
    assert es.by_name(engine, "bind")["v4.http.web"]["address"] == "127.0.20.5"


def test_a_replaced_markers_entity_is_looked_up_ahead_and_deleted_once_no_load_balancer_carries_it(slow_engine, module_fork_server):
    engine, module = slow_engine, ForkedModule(slow_engine, module_fork_server)
    first = module("service", SERVICE)
    assert not first.failed and first["changed"] is True, first
    lb = es.lb_id(engine)
    (old,) = [t for t in es.tags(engine, lb) if "-reconciled." in t]
    engine.set_faults({"latency": LATENCY})
    added = dict(SERVICE, servers=SERVICE["servers"] + [{"name": "n3", "address": "127.0.0.3"}])
    run = module("service", added)
    assert not run.failed and run["changed"] is True and warning_texts(run.result) == [], run
    log = run.requests(engine)
    assert [e for e in log if e["path"].startswith("/api/ipam/v1/prefix.json")] == []   # no bind made: not asked
    release, after = after_release_began(log)
    # the old marker's entity was looked up before the release, once the lease was held
    (looked,) = entity_reads(log, old)
    assert lease_request(log, "POST")["end"] <= looked["start"] and looked["end"] <= release["start"]
    # whether a load balancer still carries it is asked alongside the detach; then only deletes
    (carried,) = [e for e in log if "tag_name=" + urllib.parse.quote(old, safe="") in e["path"]]
    assert carried["start"] < release["end"]
    assert entity_reads(log) and max(e["end"] for e in entity_reads(log)) <= release["start"]
    assert set(e["method"] for e in after if e is not carried) == {"DELETE"}
    names = [t["name"] for t in engine.tag_entities()]
    (new,) = [t for t in es.tags(engine, lb) if "-reconciled." in t]
    assert new != old and new in names and old not in names and not [n for n in names if "-lease=" in n]
