"""The one retry policy under injected faults, over real HTTP (the local Engine, or a stub on loopback).

Reads are retried; a write is sent again only when it never left (refused, DNS, connect timeout), was
refused (429 with Retry-After, 409 on tag writes). Otherwise it may have landed: raised with
``may_have_landed``, never sent twice (no official client retries a write: docs/engine-api-facts.md, Errors)."""
import time
from email.utils import formatdate

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import (
    ConflictError, EngineConnectionError, RateLimitedError, ServerError, UnexpectedResponseError)

from ..conftest import LB1, closed_port, engine_log, fast_policy, new_client, reset_log, slow

BACKEND = {"name": "r", "mode": "tcp", "load_balancer": LB1}


def script(engine, method, status, count, path="/api/", **extra):
    engine.set_faults(dict({"script": [{"method": method, "path": path, "status": status, "count": count}]}, **extra))


def statuses(engine):
    return [entry["status"] for entry in engine_log(engine)["log"]]


# ---- 5xx ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("status", [502, 503, 504])
def test_gateway_errors_are_retried_on_reads(engine, make_client, status):
    script(engine, "GET", status, 2)
    client = make_client()
    assert client.lbaas_get("loadbalancer", LB1)["name"] == "lb1"
    assert statuses(engine) == [status, status, 200]
    assert client.request_counts == {"total": 3, "by_method": {"GET": 3}}
    assert len(client.sleeps) == 2 and all(0 < s <= 0.01 for s in client.sleeps)


@pytest.mark.parametrize("status", [502, 503, 504])
def test_a_write_answered_by_a_gateway_error_is_sent_once_and_may_have_landed(engine, make_client, status):
    script(engine, "POST", status, 2)
    client = make_client()
    with pytest.raises(ServerError) as err:
        client.lbaas_create("backend", BACKEND)
    assert err.value.may_have_landed is True and err.value.attempts == 1 and err.value.status == status
    assert "may have carried out this request, so it was not sent again" in str(err.value)
    assert err.value.to_dict()["may_have_landed"] is True
    assert statuses(engine) == [status] and client.sleeps == []


@pytest.mark.parametrize("method, call", [
    ("PUT", lambda c: c.lbaas_update("loadbalancer", LB1, {"name": "lb1", "ip_address": "lb1.local.test"})),
    ("DELETE", lambda c: c.lbaas_delete("backend", LB1)),
])
def test_no_write_is_sent_again_after_a_gateway_error(engine, make_client, method, call):
    script(engine, method, 503, 1)
    client = make_client()
    with pytest.raises(ServerError) as err:
        call(client)
    assert err.value.may_have_landed is True
    assert statuses(engine) == [503] and client.request_counts["by_method"] == {method: 1}


# ---- tag writes: an unknown outcome is read, and the write is sent again only if it did not land ----
def test_a_tag_attach_that_failed_before_landing_is_read_back_and_sent_again(engine, make_client):
    script(engine, "POST", 503, 1, path="/tags/")
    client = make_client()
    assert client.tag_add(LB1, "anxlb-svc=x") is True
    assert [(e["method"], e["status"]) for e in engine_log(engine)["log"]] == [("POST", 503), ("GET", 200), ("POST", 200)]
    assert "anxlb-svc=x" in client.resource_tags(LB1)


def test_a_tag_attach_that_landed_behind_a_gateway_error_is_not_sent_again(engine, make_client):
    engine.set_faults({"script": [{"method": "POST", "path": "/tags/", "commit_then": 504, "count": 1}]})
    client = make_client()
    assert client.tag_add(LB1, "anxlb-svc=x") is True
    assert [(e["method"], e["status"]) for e in engine_log(engine)["log"]] == [("POST", 504), ("GET", 200)]


def test_a_tag_detach_that_failed_is_settled_by_reading(engine, make_client):
    client = make_client()
    client.tag_add(LB1, "anxlb-svc=x")
    reset_log(engine)
    script(engine, "DELETE", "drop", 1, path="/tags/")
    assert client.tag_remove(LB1, "anxlb-svc=x") is True
    assert [e["method"] for e in engine_log(engine)["log"]] == ["DELETE", "GET", "DELETE"]
    assert "anxlb-svc=x" not in client.resource_tags(LB1)


def test_a_tag_write_that_keeps_failing_is_raised_after_three_attempts(engine, make_client):
    script(engine, "POST", 502, 9, path="/tags/")
    client = make_client()
    with pytest.raises(ServerError) as err:
        client.tag_add(LB1, "anxlb-svc=x")
    assert err.value.may_have_landed is True
    assert [e["method"] for e in engine_log(engine)["log"]] == ["POST", "GET", "POST", "GET", "POST"]


def test_a_tag_write_whose_read_back_fails_stays_unknown(engine, make_client):
    engine.set_faults({"script": [{"method": "POST", "path": "/tags/", "status": 503, "count": 1},
                                  {"method": "GET", "path": "/resource.json/", "status": 503, "count": 9}]})
    client = make_client(retries=1)
    with pytest.raises(ServerError) as err:
        client.tag_add(LB1, "anxlb-svc=x")
    assert err.value.method == "POST" and err.value.may_have_landed is True
    assert [e["method"] for e in engine_log(engine)["log"]].count("POST") == 1


def test_a_gateway_that_answers_504_after_the_create_was_committed_leaves_one_object(stub):
    created = []

    def respond(req):
        if req["method"] == "POST":
            created.append(req["body"])
            return 504, {"error": {"code": 504, "message": "Gateway Timeout", "validation": {}}}
        return 200, {"identifier": "x"}
    stub.respond = respond
    client = stub.client(retries=5)
    with pytest.raises(ServerError) as err:
        client.lbaas_create("backend", BACKEND)
    assert err.value.may_have_landed and len(created) == 1 and client.sleeps == []


def test_500_is_retried_on_reads(engine, make_client):
    script(engine, "GET", 500, 2)
    client = make_client()
    assert client.lbaas_get("loadbalancer", LB1)["name"] == "lb1"
    assert statuses(engine) == [500, 500, 200] and client.request_counts["total"] == 3


@pytest.mark.parametrize("method, call", [
    ("POST", lambda c: c.lbaas_create("backend", BACKEND)),
    ("PUT", lambda c: c.lbaas_update("loadbalancer", LB1, {"name": "lb1", "ip_address": "lb1.local.test"})),
    ("DELETE", lambda c: c.lbaas_delete("loadbalancer", LB1)),
])
def test_500_is_not_retried_on_writes(engine, make_client, method, call):
    script(engine, method, 500, 1)
    client = make_client()
    with pytest.raises(ServerError) as err:
        call(client)
    assert err.value.status == 500 and err.value.method == method and err.value.attempts == 1
    assert err.value.may_have_landed is True
    assert client.request_counts["total"] == 1 == engine_log(engine)["total"] and client.sleeps == []


def test_attempts_are_bounded_then_the_right_error(engine, make_client):
    script(engine, "GET", 503, 10)
    client = make_client(retries=2)
    with pytest.raises(ServerError) as err:
        client.lbaas_get("loadbalancer", LB1)
    assert err.value.status == 503 and err.value.attempts == 3
    assert str(err.value).endswith(": %s (after 3 attempts)" % err.value.message)
    assert client.request_counts["total"] == 3 == engine_log(engine)["total"]
    assert len(client.sleeps) == 2


def test_retries_zero_means_one_request(engine, make_client):
    script(engine, "GET", 502, 1)
    client = make_client(retries=0)
    with pytest.raises(ServerError):
        client.lbaas_get("loadbalancer", LB1)
    assert engine_log(engine)["total"] == 1


def test_backoff_grows_and_is_capped(engine):
    script(engine, "GET", 503, 5)
    policy = fast_policy(retries=5, backoff_base=0.001, backoff_factor=2, backoff_max=0.004, jitter=lambda lo, hi: hi)
    client = new_client(engine.url, token=engine.token, policy=policy)
    client.lbaas_get("loadbalancer", LB1)
    assert client.sleeps == [0.001, 0.002, 0.004, 0.004, 0.004]


def test_a_non_retryable_error_is_not_retried(engine, make_client):
    client = make_client()
    client.lbaas_create("backend", BACKEND)
    reset_log(engine)
    with pytest.raises(ConflictError) as err:
        client.lbaas_delete("loadbalancer", LB1)   # still used by the backend
    assert statuses(engine) == [409] and client.sleeps == []   # 409 outside tag writes: no retry
    assert err.value.attempts == 1 and err.value.may_have_landed is False   # refused: it did not happen


# ---- dropped connections, refused connections, timeouts, TLS ----------------------------------
def test_a_dropped_connection_is_retried_on_reads(engine, make_client):
    script(engine, "GET", "drop", 2)
    client = make_client()
    assert client.lbaas_get("loadbalancer", LB1)["name"] == "lb1"
    assert statuses(engine) == [0, 0, 200]   # the local Engine logs a dropped request as status 0
    assert client.request_counts == {"total": 3, "by_method": {"GET": 3}}


def test_a_dropped_connection_on_a_write_may_have_landed(engine, make_client):
    script(engine, "POST", "drop", 2)
    client = make_client()
    with pytest.raises(EngineConnectionError) as err:
        client.lbaas_create("backend", BACKEND)
    assert err.value.may_have_landed is True and err.value.attempts == 1
    assert statuses(engine) == [0] and client.request_counts == {"total": 1, "by_method": {"POST": 1}}


def test_dropped_connections_then_a_connection_error(engine, make_client):
    script(engine, "GET", "drop", 9)
    client = make_client(retries=1)
    with pytest.raises(EngineConnectionError) as err:
        client.lbaas_get("loadbalancer", LB1)
    assert err.value.status is None and err.value.attempts == 2
    assert "closed without an answer" in str(err.value) and "(after 2 attempts)" in str(err.value)
    assert client.request_counts["total"] == 2 == engine_log(engine)["total"]


@pytest.mark.parametrize("call", [lambda c: c.lbaas_list("loadbalancer"), lambda c: c.lbaas_create("backend", BACKEND),
                                  lambda c: c.tag_add(LB1, "t")])
def test_refused_connections_are_retried_on_every_method_and_never_counted(call):
    client = new_client("http://127.0.0.1:%d" % closed_port(), retries=2)
    with pytest.raises(EngineConnectionError) as err:
        call(client)
    assert "refused" in str(err.value).lower() and err.value.attempts == 3
    assert err.value.may_have_landed is False   # it never left this machine
    assert len(client.sleeps) == 2
    assert client.request_counts == {"total": 0, "by_method": {}}   # nothing was ever sent


def seen_after_client(stub, count):
    """The requests the stub recorded: its handler threads may record one only after the client gave up
    on it (a busy machine schedules them late), so wait up to 5 s for ``count`` of them."""
    deadline = time.monotonic() + 5
    while len(stub.seen) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return len(stub.seen)


# The timeouts leave a busy machine room to accept the connection (a connect timeout is another case).
def test_a_read_timeout_is_retried_on_reads(stub):
    stub.respond = slow(1.5, (200, {"identifier": "x"}))
    client = stub.client(timeout=0.25, retries=1)
    with pytest.raises(EngineConnectionError) as err:
        client.lbaas_get("backend", "x")
    assert "no answer within 0.25 s" in str(err.value)
    assert seen_after_client(stub, 2) == 2 and client.request_counts["total"] == 2


def test_a_read_timeout_is_not_retried_on_writes(stub):
    # The Engine may be creating the object right now: a second POST could create it twice.
    stub.respond = slow(1.5, (200, {"identifier": "x"}))
    client = stub.client(timeout=0.25, retries=3)
    with pytest.raises(EngineConnectionError) as err:
        client.lbaas_create("backend", BACKEND)
    assert seen_after_client(stub, 1) == 1 and client.request_counts["total"] == 1 and client.sleeps == []
    assert err.value.may_have_landed is True


def test_a_write_answered_2xx_with_an_unusable_body_landed(stub):
    stub.respond = lambda req: (200, "<html>ok</html>", {"Content-Type": "text/html"})
    client = stub.client()
    with pytest.raises(UnexpectedResponseError) as err:
        client.lbaas_create("backend", BACKEND)
    assert err.value.may_have_landed is True and len(stub.seen) == 1
    with pytest.raises(UnexpectedResponseError) as err:
        client.lbaas_get("backend", "x")
    assert err.value.may_have_landed is False


def test_answers_of_deletes_and_tag_writes_are_not_read(stub):
    stub.respond = lambda req: (200, "not json at all", {"Content-Type": "text/plain"})
    client = stub.client()
    assert client.lbaas_delete("backend", "a" * 32) is True
    assert client.address_delete("a" * 32) is True
    assert client.tag_add("a" * 32, "anxlb-svc=web") is True
    assert client.tag_remove("a" * 32, "anxlb-svc=web") is True
    assert client.tag_entity_delete("a" * 32, "s") is True
    assert len(stub.seen) == 5


def test_a_tls_failure_is_not_retried(stub):
    client = new_client(stub.url.replace("http://", "https://"), retries=3)   # TLS against a plain HTTP port
    with pytest.raises(EngineConnectionError) as err:
        client.lbaas_list("loadbalancer")
    assert "the endpoint speaks plain http, not https" in str(err.value) and "validate_certs" not in str(err.value)
    assert ("(api_url %s)" % stub.url.replace("http://", "https://")) in str(err.value)
    assert client.sleeps == [] and err.value.attempts == 1


def test_redirects_are_not_followed(stub):
    stub.respond = lambda req: (301, b"", {"Location": "https://elsewhere.test/api/LBaaS/v1/backend.json"})
    client = stub.client()
    with pytest.raises(UnexpectedResponseError) as err:
        client.lbaas_create("backend", BACKEND)
    assert "redirect to https://elsewhere.test/" in str(err.value) and len(stub.seen) == 1


# ---- 429 ---------------------------------------------------------------------------------------
def test_429_without_retry_after_fails_fast_with_exactly_one_request(engine, make_client):
    engine.set_faults({"errors": {"*": {"429": 1.0}}})
    client = make_client(retries=5)
    with pytest.raises(RateLimitedError) as err:
        client.lbaas_create("backend", BACKEND)
    assert "rate limited by the Engine" in str(err.value) and err.value.retry_after is None
    assert err.value.status == 429 and err.value.attempts == 1
    assert client.request_counts["total"] == 1 == engine_log(engine)["total"] and client.sleeps == []


def test_429_with_retry_after_is_retried_after_that_delay(engine, make_client):
    script(engine, "POST", 429, 2, retry_after=0.02)
    client = make_client()
    assert client.lbaas_create("backend", BACKEND)["name"] == "r"
    assert client.sleeps == [0.02, 0.02] and statuses(engine) == [429, 429, 200]


def test_429_with_a_long_retry_after_fails_instead_of_sleeping(engine, make_client):
    script(engine, "GET", 429, 1, retry_after=3600)
    client = make_client()
    with pytest.raises(RateLimitedError) as err:
        client.lbaas_get("loadbalancer", LB1)
    assert err.value.retry_after == 3600 and "Retry-After: 3600 s" in str(err.value)
    assert client.sleeps == [] and engine_log(engine)["total"] == 1


def test_429_retries_are_bounded_too(engine, make_client):
    engine.set_faults({"errors": {"GET": {"429": 1.0}}, "retry_after": 0})
    client = make_client(retries=2)
    with pytest.raises(RateLimitedError) as err:
        client.lbaas_get("loadbalancer", LB1)
    assert err.value.attempts == 3 and engine_log(engine)["total"] == 3 and client.sleeps == [0, 0]


def test_429_with_an_http_date(stub):
    answers = [(429, {"error": {"code": 429, "message": "slow down"}},
                {"Retry-After": formatdate(time.time() + 2, usegmt=True)}), (200, {"identifier": "x"})]
    stub.respond = lambda req: answers.pop(0)
    client = stub.client()
    assert client.lbaas_get("backend", "x") == {"identifier": "x"}
    assert len(client.sleeps) == 1 and 0.5 <= client.sleeps[0] <= 3


# ---- 409 on tag writes -------------------------------------------------------------------------
def test_tag_conflicts_are_retried_like_the_engines_client(engine, make_client):
    engine.set_faults({"tag_conflicts": 2})
    client = make_client()
    assert client.tag_add(LB1, "contended") is True
    assert statuses(engine) == [409, 409, 200]
    assert client.sleeps == [0.001, 0.001]   # conflict_delay, not the exponential backoff


def test_tag_conflicts_give_up_after_three_attempts(engine, make_client):
    engine.set_faults({"tag_conflicts": 5})
    client = make_client(retries=10)
    with pytest.raises(ConflictError) as err:
        client.tag_add(LB1, "contended")
    assert err.value.attempts == 3 and statuses(engine) == [409, 409, 409]
    assert err.value.status == 409 and err.value.message in str(err.value)


def test_the_default_conflict_delay_is_one_second():
    assert fast_policy().conflict_attempts == 3
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._retry import RetryPolicy
    assert RetryPolicy().conflict_delay == 1.0


def test_a_gateway_error_after_tag_conflicts_is_read_back_before_the_attach_is_sent_again(engine, make_client):
    engine.set_faults({"tag_conflicts": 1, "script": [{"method": "POST", "path": "/tags/", "status": 503, "count": 1}]})
    client = make_client()
    assert client.tag_add(LB1, "both") is True
    assert [(e["method"], e["status"]) for e in engine_log(engine)["log"]][:2] == [("POST", 503), ("GET", 200)]
    assert "both" in client.resource_tags(LB1)


def test_after_a_429_the_client_sends_nothing_more(engine, make_client):
    engine.set_faults({"errors": {"POST": {"429": 1.0}}})
    client = make_client(retries=5)
    with pytest.raises(RateLimitedError):
        client.lbaas_create("backend", BACKEND)
    engine.clear_faults()
    for call in (lambda: client.lbaas_list("loadbalancer"), lambda: client.tag_remove(LB1, "t")):
        with pytest.raises(RateLimitedError) as err:
            call()
        assert err.value.attempts == 0 and "not sent: an earlier request of this run was rate limited" in str(err.value)
    assert client.request_counts["total"] == 1 == engine_log(engine)["total"]
