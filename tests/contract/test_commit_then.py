"""Contract: the commit_then fault, a write the Engine carries out before the client hears 504 or
nothing (a gateway timeout after the commit). No official client retries a write
(gac:pkg/api/errors.go only classifies; docs/engine-api-facts.md, Errors), so a client that does leaves duplicates."""
import pytest
import requests

from .helpers import ADDRESSES, FILTERED, LB1, RESOURCES, V4, error_of, items, lbaas, ok, tag_path

BACKEND = {"name": "web", "mode": "tcp", "load_balancer": LB1}


def backends(engine):
    return items(ok(engine.api("GET", lbaas("backend"), params={"limit": 100})))


def test_an_lbaas_create_is_committed_then_answered_504(engine):
    """gac:pkg/api/errors.go ErrorFromResponse turns the 504 into an error for the caller and nothing
    retries it (docs/engine-api-facts.md, Errors); a client that does creates a second backend."""
    engine.set_faults({"script": [{"method": "POST", "path": "/api/LBaaS/v1/*", "commit_then": 504}]})
    err = error_of(engine.api("POST", lbaas("backend"), json=BACKEND), 504)
    assert "after the request was carried out" in err["message"]
    assert [b["name"] for b in backends(engine)] == ["web"]   # created all the same
    ok(engine.api("POST", lbaas("backend"), json=BACKEND))   # count 1 used up: a retry duplicates
    assert len(backends(engine)) == 2
    assert [(e["method"], e["status"]) for e in engine.requests()["log"]][:2] == [("POST", 504), ("GET", 200)]


def test_or_the_connection_drops_after_the_commit(engine):
    """A dropped connection reaches the caller of the generic client as an error, not a retry
    (docs/engine-api-facts.md, Errors)."""
    engine.set_faults({"script": [{"method": "POST", "path": "/api/LBaaS/v1/backend", "commit_then": "drop"}]})
    with pytest.raises(requests.exceptions.ConnectionError):
        engine.api("POST", lbaas("backend"), json=BACKEND)
    assert len(backends(engine)) == 1
    assert engine.requests()["log"][0]["status"] == 0


def test_an_address_create_is_committed_then_answered_504(engine):
    """A specific address create (gac:pkg/ipam/address/address.go Create) under a gateway timeout."""
    engine.set_faults({"script": [{"method": "POST", "path": ADDRESSES, "commit_then": 504}]})
    error_of(engine.api("POST", ADDRESSES, json={"prefix": V4, "name": "127.0.10.40"}), 504)
    found = items(ok(engine.api("GET", FILTERED, params={"prefix": V4, "search": "127.0.10.40"})))
    assert [a["name"] for a in found] == ["127.0.10.40"]
    err = error_of(engine.api("POST", ADDRESSES, json={"prefix": V4, "name": "127.0.10.40"}), 422)
    assert "already in use" in err["validation"]["name"]   # a retry collides with its own first attempt


def test_a_tag_attach_is_committed_then_answered_504(engine):
    """A retried attach then hears the 422 "already tagged" (gac:pkg/apis/core/v1/resource_tags.go Tag
    counts it as success)."""
    engine.set_faults({"script": [{"method": "POST", "path": "/tags/", "commit_then": 504}]})
    error_of(engine.api("POST", tag_path(LB1, "t"), json=""), 504)
    assert [t["name"] for t in ok(engine.api("GET", RESOURCES + "/" + LB1))["tags"]] == ["t"]
    assert set(error_of(engine.api("POST", tag_path(LB1, "t"), json=""), 422)["validation"]) == {"tag"}


def test_a_failed_request_commits_nothing_and_keeps_the_count(engine):
    """Only a committed write can be lost in a gateway timeout (gac:pkg/api/errors.go)."""
    engine.set_faults({"script": [{"method": "POST", "commit_then": 504, "count": 1}]})
    error_of(engine.api("POST", lbaas("backend"), json={"name": "x"}), 422)
    assert engine.admin("GET", "faults")["script"] == [{"method": "POST", "path": "", "commit_then": 504,
                                                        "count": 1}]
    error_of(engine.api("POST", lbaas("backend"), json=BACKEND), 504)
    assert engine.admin("GET", "faults")["script"][0]["count"] == 0


def test_status_rules_still_answer_instead_of_handling(engine):
    """status faults (nothing done) and commit_then faults (done) stay apart, first match wins."""
    engine.set_faults({"script": [{"method": "POST", "commit_then": 504}, {"method": "POST", "status": 503}]})
    error_of(engine.api("POST", lbaas("backend"), json=BACKEND), 503)   # not carried out
    assert backends(engine) == []
    error_of(engine.api("POST", lbaas("backend"), json=BACKEND), 504)
    assert len(backends(engine)) == 1


@pytest.mark.parametrize("rule, text", [
    ({"status": 503, "commit_then": 504}, "either status"), ({"method": "POST"}, "either status"),
    ({"commit_then": 200}, "script[0].commit_then"), ({"commit_then": "later"}, "script[0].commit_then")])
def test_invalid_commit_then_rules_are_refused(engine, rule, text):
    """A rule is either status or commit_then, each an HTTP error status or drop (README.md, "Faults")."""
    err = error_of(requests.put(engine.url + "/_local/faults", json={"script": [rule]}, timeout=5), 422)
    assert text in err["message"]
