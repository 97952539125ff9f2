"""Contract: fault injection (README.md, "Faults")."""
import time

import pytest
import requests

from .helpers import LB1, backend, error_of, lbaas, ok

LB = lbaas("loadbalancer", LB1)


def statuses(engine, count, method="GET", path=LB):
    return [engine.api(method, path).status_code for _attempt in range(count)]


def test_scripted_statuses_by_method_and_path_are_used_up(engine):
    engine.set_faults({"script": [{"method": "GET", "path": "/api/LBaaS/v1/backend", "status": 503, "count": 2},
                                  {"status": 500}]})
    error_of(engine.api("GET", lbaas("backend")), 503)
    error_of(engine.api("POST", lbaas("backend"), json={}), 500)   # method "*" and any path by default
    assert engine.admin("GET", "faults")["script"] == [
        {"method": "GET", "path": "/api/LBaaS/v1/backend", "status": 503, "count": 1},
        {"method": "*", "path": "", "status": 500, "count": 0}]
    assert statuses(engine, 1) == [200]
    error_of(engine.api("GET", lbaas("backend")), 503)
    assert statuses(engine, 1, path=lbaas("backend")) == [200]


def test_script_paths_are_substrings_or_globs(engine):
    engine.set_faults({"script": [{"path": "/api/LBaaS/v1/*.json", "status": 503, "count": 5},
                                  {"path": "/api/LBaaS/v1/*", "status": 504},
                                  {"path": "/api/core/v1/[r]esource.json", "status": 502}]})
    error_of(engine.api("GET", lbaas("backend")), 503)
    error_of(engine.api("GET", LB), 504)   # the whole path must match the glob: not "*.json" ...
    error_of(engine.api("GET", "/api/core/v1/resource.json", params={"tag_name": "x"}), 502)   # ... without query
    assert engine.api("GET", "/api/ipam/v1/prefix.json").status_code == 200


def test_a_dropped_connection_gets_no_answer(engine):
    engine.set_faults({"script": [{"method": "POST", "status": "drop"}]})
    with pytest.raises(requests.exceptions.ConnectionError):
        engine.api("POST", lbaas("backend"), json={"name": "x", "load_balancer": LB1})
    assert engine.api("GET", LB).status_code == 200   # the next connection is fine
    assert [e["status"] for e in engine.requests()["log"]] == [0, 200]
    assert ok(engine.api("GET", lbaas("backend")))["data"]["total_items"] == 0   # nothing was created


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_probabilistic_errors_have_the_engine_body(engine, status):
    engine.set_faults({"errors": {"GET": {str(status): 1.0}}})
    resp = engine.api("GET", LB)
    assert "Injected fault" in error_of(resp, status)["message"] and "Retry-After" not in resp.headers
    assert engine.api("POST", lbaas("backend"), json={}).status_code == 422   # other methods untouched


def test_retry_after_only_when_asked(engine):
    engine.set_faults({"errors": {"*": {"429": 1.0}}, "retry_after": 2})
    resp = engine.api("GET", LB)
    assert resp.status_code == 429 and resp.headers["Retry-After"] == "2"
    engine.set_faults({"errors": {"*": {"503": 1.0}}, "retry_after": 2})
    assert "Retry-After" not in engine.api("GET", LB).headers


def test_a_methods_own_rates_replace_the_star_ones(engine):
    engine.set_faults({"errors": {"*": {"503": 1.0}, "GET": {"503": 0}}})
    assert statuses(engine, 3) == [200] * 3
    assert statuses(engine, 1, "DELETE", lbaas("backend", "0" * 32)) == [503]


def test_probabilities_are_reproducible_with_a_seed(engine):
    runs = []
    for _attempt in range(2):
        engine.set_faults({"errors": {"GET": {"503": 0.5, "drop": 0}}, "seed": 3})
        runs.append(statuses(engine, 20))
    assert runs[0] == runs[1] and set(runs[0]) == {200, 503}


def test_faults_come_before_authentication(engine):
    engine.set_faults({"errors": {"GET": {"503": 1.0}}})
    assert requests.get(engine.url + LB, timeout=5).status_code == 503


def test_latency_overall_and_per_method(engine):
    engine.set_faults({"latency": 0.15})
    began = time.monotonic()
    engine.api("GET", LB)
    assert time.monotonic() - began >= 0.15
    engine.set_faults({"latency": {"POST": 0.15, "*": 0}})
    began = time.monotonic()
    engine.api("GET", LB)
    assert time.monotonic() - began < 0.15
    began = time.monotonic()
    backend(engine)
    assert time.monotonic() - began >= 0.15


def test_the_admin_api_is_never_faulted(engine):
    engine.set_faults({"errors": {"*": {"503": 1.0}}, "latency": 0.5})
    began = time.monotonic()
    assert engine.requests()["total"] == 0 and time.monotonic() - began < 0.5


def test_empty_faults_clear_everything(engine):
    engine.set_faults({"errors": {"*": {"503": 1.0}}})
    assert engine.clear_faults() == {"latency": 0, "errors": {}, "retry_after": None, "script": [],
                                     "tag_conflicts": 0, "deploy": [], "listing_omits": [], "seed": None}
    assert statuses(engine, 1) == [200]


@pytest.mark.parametrize("faults, text", [
    ({"latencyy": 1}, "unknown keys latencyy"), ({"latency": -1}, "latency"), ({"latency": {"GOT": 1}}, "GOT"),
    ({"errors": {"GET": {"503": 1.5}}}, "errors.GET.503"), ({"errors": {"GET": {"200": 1}}}, "400-599"),
    ({"errors": {"GET": 1}}, "mapping"), ({"script": [{"status": "nope"}]}, "script[0].status"),
    ({"script": [{"status": 503, "when": 1}]}, "unknown keys when"), ({"script": {"a": 1}}, "list"),
    ({"tag_conflicts": -1}, "tag_conflicts"), ({"deploy": [{"match": "x", "outcome": "ok"}]}, "outcome"),
    ({"deploy": [{"match": "x", "outcome": "error", "count": "2"}]}, "deploy[0].count"),
    ({"seed": "x"}, "seed"), ({"retry_after": "soon"}, "retry_after"), (["latency"], "mapping")])
def test_invalid_fault_configurations_are_422_and_change_nothing(engine, faults, text):
    engine.set_faults({"tag_conflicts": 1})
    err = error_of(requests.put(engine.url + "/_local/faults", json=faults, timeout=5), 422)
    assert text in err["message"]
    assert engine.admin("GET", "faults")["tag_conflicts"] == 1
