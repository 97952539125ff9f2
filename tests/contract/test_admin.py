"""Contract: auth, the admin API, fault injection, persistence, seeding and the loopback rule."""
import subprocess
import sys

import pytest
import requests

from localengine.testing import RUN, LocalEngine

from .conftest import SEED
from .test_lbaas import LB1, backend, error_of, path


def test_auth(engine):
    error_of(requests.get(engine.url + path("loadbalancer"), timeout=5), 401)
    error_of(requests.get(engine.url + path("loadbalancer"), headers={"Authorization": "Token nope"}, timeout=5), 403)


def test_request_log_counts_by_method(engine):
    engine.reset_requests()
    backend(engine)
    engine.api("GET", path("loadbalancer", LB1))
    log = engine.requests()
    assert log["total"] == 2 and log["by_method"] == {"POST": 1, "GET": 1}
    assert log["log"][1] == {"method": "GET", "path": path("loadbalancer", LB1), "status": 200}
    assert engine.mutating_requests() == 1
    engine.reset_requests()
    assert engine.requests()["total"] == 0


def test_scripted_faults_latency_and_drops(engine):
    engine.set_faults({"script": [{"method": "GET", "status": 503, "count": 1}, {"method": "POST", "status": "drop"}],
                       "latency": 0.05})
    error_of(engine.api("GET", path("loadbalancer", LB1)), 503)
    with pytest.raises(requests.exceptions.ConnectionError):
        engine.api("POST", path("backend"), json={})
    assert engine.api("GET", path("loadbalancer", LB1)).elapsed.total_seconds() >= 0.05
    assert [e["status"] for e in engine.requests()["log"]][-3:] == [503, 0, 200]


def test_probabilistic_429_without_retry_after_unless_asked(engine):
    engine.set_faults({"errors": {"GET": {"429": 1.0}}})
    resp = engine.api("GET", path("loadbalancer", LB1))
    error_of(resp, 429)
    assert "Retry-After" not in resp.headers
    engine.set_faults({"errors": {"GET": {"429": 1.0}}, "retry_after": 2})
    assert engine.api("GET", path("loadbalancer", LB1)).headers["Retry-After"] == "2"
    engine.clear_faults()
    assert engine.api("GET", path("loadbalancer", LB1)).status_code == 200


def test_unknown_fault_keys_are_refused(engine):
    resp = requests.put(engine.url + "/_local/faults", json={"latencyy": 1}, timeout=5)
    assert resp.status_code == 422 and "latencyy" in resp.json()["error"]["message"]


def test_state_survives_a_restart_and_seeding_is_idempotent(tmp_path):
    state = str(tmp_path / "engine.db")
    with LocalEngine(seed=SEED, state=state) as first:
        ident = backend(first)["identifier"]
        first.api("POST", "/api/core/v1/resource.json/%s/tags/keep" % ident, json="")
    with LocalEngine(seed=SEED, state=state) as second:
        assert second.api("GET", path("backend", ident)).json()["name"] == "web"
        assert second.api("GET", "/api/core/v1/resource.json", params={"tag_name": "keep"}).json()["total_items"] == 1
        lbs = second.api("GET", path("loadbalancer"), params={"page": 1, "limit": 10}).json()["data"]["data"]
        assert [lb["name"] for lb in lbs] == ["lb1", "lb2"]


@pytest.mark.parametrize("listen", ["0.0.0.0:0", "10.1.2.3:80", "example.com:80"])
def test_listening_off_loopback_is_refused(listen):
    proc = subprocess.run([sys.executable, RUN, "--listen", listen, "--token", "t"], capture_output=True, text=True,
                          timeout=20, check=False)
    assert proc.returncode == 2 and "loopback addresses only" in proc.stderr


def test_ipv6_loopback_works():
    args = [sys.executable, RUN, "--listen", "[::1]:0", "--token", "t"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line:   # no IPv6 on this machine
            pytest.skip("no IPv6 loopback here: %s" % proc.stderr.read()[-200:])
        assert line.startswith("local engine listening on http://[::1]:")
        url = line.split()[-1]
        assert requests.get(url + "/_local/requests", timeout=5).json()["total"] == 0
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()
