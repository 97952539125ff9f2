"""The Engine client against the local Engine over real HTTP on loopback."""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine import EngineClient, RetryPolicy
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine_errors import (
    AccessDeniedError, ConflictError, EngineConnectionError, NotFoundError, RateLimitedError, ServerError,
    ValidationFailedError)

LB1 = "0a11ba1a000000000000000000000001"


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


def client(engine, token=None, retries=3, **kw):
    sleeps = Sleeps()
    policy = RetryPolicy(retries=retries, base=0.001, cap=0.01, tag_conflict_delay=0.001, sleep=sleeps)
    c = EngineClient(api_url=engine.url + "/", token=token or engine.token, timeout=5, policy=policy, **kw)
    c.sleeps = sleeps
    return c


def make_backends(engine, n, lb=LB1):
    for i in range(n):
        engine.api("POST", "/api/LBaaS/v1/backend.json", json={"name": "b%02d" % i, "mode": "tcp", "load_balancer": lb})


def test_pages_to_the_end_without_a_trailing_empty_page(engine):
    make_backends(engine, 7)
    c = client(engine, page_size=3)
    engine.reset_requests()
    items = c.lbaas_list("backend", load_balancer=LB1)
    assert [i["name"] for i in items] == ["b%02d" % i for i in range(7)]
    log = engine.requests()["log"]
    assert len(log) == 3   # pages 1-3 of 3: total_pages known, so no page 4
    assert "filters=load_balancer%3D" + LB1 in log[0]["path"] and "limit=3" in log[0]["path"]
    assert c.request_counts == {"total": 3, "by_method": {"GET": 3}}


def test_exact_multiple_of_the_page_size(engine):
    make_backends(engine, 4)
    c = client(engine, page_size=2)
    engine.reset_requests()
    assert len(c.lbaas_list("backend")) == 4
    assert engine.requests()["total"] == 2


def test_other_envelopes(engine):
    c = client(engine, page_size=1)
    engine.reset_requests()
    assert {p["name"] for p in c.prefix_list()} == {"127.0.10.0/24", "fd00:10::/64"}   # top-level data array
    assert [r["identifier"] for r in c.resources_by_tag("anxlb-pool=demo")] == [
        "0a11ce11000000000000000000000001", "0a11ce11000000000000000000000002"]          # bare page
    assert engine.requests()["total"] == 4


class PlainArray(BaseHTTPRequestHandler):
    """Shape 3 of ENGINE_API.md 2.2: a plain JSON array; the page size decides the end."""

    def do_GET(self):   # noqa: N802 - http.server's naming
        page = int(self.path.split("page=")[1].split("&")[0])
        data = json.dumps([{"identifier": str(i)} for i in range((page - 1) * 2, min(page * 2, 5))]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_plain_array_pages_end_on_a_short_page():
    server = HTTPServer(("127.0.0.1", 0), PlainArray)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        c = EngineClient(api_url="http://127.0.0.1:%d" % server.server_address[1], token="t", page_size=2)
        assert [i["identifier"] for i in c.pages("/x")] == ["0", "1", "2", "3", "4"]
        assert c.request_counts["total"] == 3
    finally:
        server.shutdown()
        server.server_close()


def test_error_classes_carry_status_method_path_and_message(engine):
    c = client(engine)
    with pytest.raises(NotFoundError) as err:
        c.lbaas_get("backend", "0" * 32)
    assert (err.value.status, err.value.method, err.value.path) == (404, "GET", "/api/LBaaS/v1/backend.json/" + "0" * 32)
    assert "not found" in err.value.message
    with pytest.raises(ValidationFailedError) as err:
        c.lbaas_create("backend", {"name": "x", "mode": "udp", "load_balancer": LB1})
    assert err.value.status == 422 and "mode" in err.value.validation
    assert "[mode: Must be one of tcp, http.]" in str(err.value)
    c.lbaas_create("backend", {"name": "x", "mode": "tcp", "load_balancer": LB1})
    with pytest.raises(ConflictError):
        c.lbaas_delete("loadbalancer", LB1)   # still has a backend
    with pytest.raises(AccessDeniedError) as err:
        client(engine, token="wrong-secret-token").lbaas_list("loadbalancer")
    assert err.value.status == 403
    no_token = EngineClient(api_url=engine.url, token=None)
    with pytest.raises(AccessDeniedError) as err:
        no_token.lbaas_list("loadbalancer")
    assert err.value.status == 401


def test_delete_and_untag_of_what_is_gone_are_not_errors(engine):
    c = client(engine)
    assert c.lbaas_delete("backend", "0" * 32) is False
    c.tag_remove(LB1, "never-there")
    c.tag_add(LB1, "t")
    c.tag_add(LB1, "t")   # 422 already tagged = success
    assert [t["name"] for t in c.resource_get(LB1)["tags"]] == ["t"]


@pytest.mark.parametrize("method, status", [("POST", 502), ("POST", 503), ("POST", 504), ("GET", 500)])
def test_retried_statuses(engine, method, status):
    engine.set_faults({"script": [{"method": method, "path": "/api/LBaaS", "status": status, "count": 2}]})
    c = client(engine)
    if method == "POST":
        assert c.lbaas_create("backend", {"name": "r", "mode": "tcp", "load_balancer": LB1})["name"] == "r"
    else:
        assert c.lbaas_get("loadbalancer", LB1)["name"] == "lb1"
    assert c.request_counts["by_method"] == {method: 3}
    assert len(c.sleeps) == 2 and all(0 <= s <= 0.01 for s in c.sleeps)


def test_500_is_not_retried_on_writes(engine):
    engine.set_faults({"script": [{"method": "POST", "status": 500, "count": 1}]})
    c = client(engine)
    with pytest.raises(ServerError) as err:
        c.lbaas_create("backend", {"name": "r", "mode": "tcp", "load_balancer": LB1})
    assert err.value.status == 500 and c.request_counts["total"] == 1


def test_attempts_are_bounded(engine):
    engine.set_faults({"script": [{"method": "GET", "status": 503, "count": 10}]})
    c = client(engine, retries=2)
    with pytest.raises(ServerError):
        c.lbaas_get("loadbalancer", LB1)
    assert c.request_counts["total"] == 3 and engine.requests()["total"] == 3


def test_dropped_connections_are_retried_then_reported(engine):
    engine.set_faults({"script": [{"method": "POST", "status": "drop", "count": 1}]})
    c = client(engine)
    assert c.lbaas_create("backend", {"name": "d", "mode": "tcp", "load_balancer": LB1})["name"] == "d"
    engine.set_faults({"script": [{"method": "GET", "status": "drop", "count": 9}]})
    with pytest.raises(EngineConnectionError) as err:
        client(engine, retries=1).lbaas_get("loadbalancer", LB1)
    assert "after 2 attempts" in str(err.value)


def test_429_without_retry_after_fails_fast_with_one_request(engine):
    engine.set_faults({"errors": {"GET": {"429": 1.0}}})
    c = client(engine)
    with pytest.raises(RateLimitedError) as err:
        c.lbaas_get("loadbalancer", LB1)
    assert "rate limited by the Engine" in str(err.value)
    assert c.request_counts["total"] == 1 and c.sleeps == []


def test_429_with_retry_after_is_honoured_within_bounds(engine):
    engine.set_faults({"script": [{"method": "GET", "status": 429, "count": 1}], "retry_after": 1})
    c = client(engine)
    assert c.lbaas_get("loadbalancer", LB1)["name"] == "lb1"
    assert c.sleeps == [1.0] and c.request_counts["total"] == 2
    engine.set_faults({"script": [{"method": "GET", "status": 429, "count": 1}], "retry_after": 3600})
    c = client(engine)
    with pytest.raises(RateLimitedError):
        c.lbaas_get("loadbalancer", LB1)   # asked to wait an hour: fail instead of sleeping
    assert c.sleeps == []


def test_tag_conflicts_are_retried_three_times(engine):
    engine.set_faults({"tag_conflicts": 2})
    c = client(engine)
    c.tag_add(LB1, "contended")
    assert c.request_counts["by_method"] == {"POST": 3}
    engine.set_faults({"tag_conflicts": 3})
    with pytest.raises(ConflictError):
        client(engine).tag_add(LB1, "contended-again")


def test_tag_names_are_encoded_with_equals_kept(engine):
    c = client(engine)
    engine.reset_requests()
    c.tag_add(LB1, "anxlb-svc=my svc")
    assert engine.requests()["log"][0]["path"] == "/api/core/v1/resource.json/%s/tags/anxlb-svc=my%%20svc" % LB1
    assert c.resources_by_tag("anxlb-svc=my svc")[0]["identifier"] == LB1
    assert c.resources_by_tag("nobody") == []   # the Engine's 422


def test_concurrent_reads_keep_order_and_the_counter_matches_the_engine(engine):
    make_backends(engine, 12)
    c = client(engine, max_workers=4)
    ids = [i["identifier"] for i in c.lbaas_list("backend")]
    engine.reset_requests()
    c.reset_counts()
    objs = c.lbaas_get_many("backend", ids)
    assert [o["identifier"] for o in objs] == ids
    assert c.request_counts == {"total": 12, "by_method": {"GET": 12}} == {
        "total": engine.requests()["total"], "by_method": engine.requests()["by_method"]}


def test_the_pool_is_bounded():
    c = EngineClient(api_url="http://127.0.0.1:9", token="t", max_workers=3)
    active, peak, lock = [0], [0], threading.Lock()

    def work(i):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        threading.Event().wait(0.02)
        with lock:
            active[0] -= 1
        return i * 2

    assert c.map(work, range(10)) == [i * 2 for i in range(10)]
    assert peak[0] == 3


def test_the_token_never_appears_in_errors_or_the_user_agent(engine):
    secret = "s3cr3t-token-value-0123456789"
    c = client(engine, token=secret)
    for call in (lambda: c.lbaas_list("loadbalancer"), lambda: c.lbaas_get("backend", "x")):
        with pytest.raises(AccessDeniedError) as err:
            call()
        assert secret not in str(err.value) + repr(err.value) + json.dumps(err.value.to_dict())
    engine.set_faults({"script": [{"method": "GET", "status": "drop", "count": 9}]})
    with pytest.raises(EngineConnectionError) as err:
        client(engine, token=secret, retries=0).lbaas_list("loadbalancer")
    assert secret not in str(err.value) + repr(err.value) + json.dumps(err.value.to_dict())
    assert secret not in c.session.headers["User-Agent"] and secret not in repr(c)
    assert c.session.headers["User-Agent"].startswith("anxcloud.lbaas/0.1.0 (")
