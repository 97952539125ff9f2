"""Pure parts of the Engine client: error classes, the retry policy's arithmetic, list envelopes, URLs."""
import json
import time
from email.utils import formatdate

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine import _errors as errors
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._client import (
    EngineClient, display_url, link_ids, normalize_api_url, unwrap_page, update_body, url_secrets, user_agent)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._retry import RetryPolicy, parse_retry_after
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._version import COLLECTION_VERSION


# ---- error classes -----------------------------------------------------------------------------
@pytest.mark.parametrize("status, cls", [
    (400, errors.ValidationFailedError), (401, errors.AccessDeniedError), (403, errors.AccessDeniedError),
    (404, errors.NotFoundError), (409, errors.ConflictError), (422, errors.ValidationFailedError),
    (429, errors.RateLimitedError), (500, errors.ServerError), (502, errors.ServerError), (503, errors.ServerError),
    (504, errors.ServerError), (405, errors.EngineError), (418, errors.EngineError),
])
def test_status_maps_to_class(status, cls):
    err = errors.error_for(status, "GET", "/api/x.json?page=1", None)
    assert err.__class__ is cls and isinstance(err, errors.EngineError)
    assert (err.status, err.method, err.path) == (status, "GET", "/api/x.json?page=1")


def test_readable_str_and_to_dict():
    body = {"error": {"code": 422, "message": "Validation failed", "validation": {"port": "Too big.", "mode": "Bad."}}}
    err = errors.error_for(422, "POST", "/api/LBaaS/v1/bind.json", body, attempts=1)
    assert str(err) == "POST /api/LBaaS/v1/bind.json: validation failed (HTTP 422): Validation failed " \
                       "[mode: Bad.; port: Too big.]"
    assert err.validation == {"port": "Too big.", "mode": "Bad."}
    assert err.to_dict() == {"type": "ValidationFailedError", "status": 422, "method": "POST",
                             "path": "/api/LBaaS/v1/bind.json", "message": "Validation failed",
                             "validation": {"port": "Too big.", "mode": "Bad."}, "attempts": 1,
                             "may_have_landed": False}
    json.dumps(err.to_dict())
    assert repr(err).startswith("ValidationFailedError(")


def test_attempts_and_retry_after_are_shown():
    err = errors.error_for(429, "GET", "/p", None, reason="Too Many Requests", attempts=4, retry_after=120.0)
    assert str(err) == "GET /p: rate limited by the Engine; back off and retry later, with a lower api_concurrency " \
                       "or fewer forks (HTTP 429): " \
                       "Too Many Requests (after 4 attempts) (Retry-After: 120 s)"
    assert err.to_dict()["retry_after"] == 120.0 and err.retry_after == 120.0


@pytest.mark.parametrize("body", [None, "oops", [], {"error": "text"}, {"error": {"message": 5, "validation": []}},
                                  {"detail": "x"}])
def test_odd_error_bodies_are_tolerated(body):
    err = errors.error_for(500, "GET", "/p", body, reason="Internal Server Error")
    assert err.message in ("Internal Server Error", "5")
    assert err.validation == {}


def test_validation_values_become_strings():
    err = errors.error_for(422, "PUT", "/p", {"error": {"message": "m", "validation": {"port": 7, "x": None}}})
    assert err.validation == {"port": "7", "x": "None"}


def test_fakes_style_construction_still_works():
    err = errors.NotFoundError("not found", status=404, method="GET", path="/x")
    assert str(err) == "GET /x: not found (HTTP 404): not found"
    assert str(errors.EngineError("boom")) == "Engine request: Engine request failed: boom"


def test_redact_masks_secrets_everywhere():
    value = {"message": "bad token abc123", "validation": {"abc123": ["abc123 x"]}, "n": 1}
    assert errors.redact(value, ("abc123", "", None)) == {
        "message": "bad token ********", "validation": {"********": ["******** x"]}, "n": 1}
    err = errors.error_for(403, "GET", "/p", {"error": {"message": "token abc123 is invalid",
                                                        "validation": {"t": "abc123"}}}, secrets=("abc123",))
    assert "abc123" not in str(err) + repr(err) + json.dumps(err.to_dict())


# ---- retry policy ------------------------------------------------------------------------------
def test_backoff_is_exponential_with_jitter_and_a_cap():
    policy = RetryPolicy(backoff_base=1, backoff_factor=2, backoff_max=5, jitter=lambda lo, hi: hi)
    assert [policy.backoff(n) for n in range(5)] == [1, 2, 4, 5, 5]       # upper edge: d
    policy = RetryPolicy(backoff_base=1, backoff_factor=2, backoff_max=5, jitter=lambda lo, hi: lo)
    assert [policy.backoff(n) for n in range(5)] == [0.5, 1, 2, 2.5, 2.5]  # lower edge: d / 2
    policy = RetryPolicy(backoff_base=1, backoff_factor=2, backoff_max=5)
    for n in range(8):
        for _i in range(20):
            d = min(5, 2 ** n)
            assert d / 2 <= policy.backoff(n) <= d


@pytest.mark.parametrize("method, status, retried", [
    ("GET", 502, True), ("GET", 503, True), ("GET", 504, True), ("GET", 500, True), ("HEAD", 500, True),
    # no official client retries a write: a write answered 5xx may have been carried out
    ("POST", 502, False), ("PUT", 503, False), ("DELETE", 504, False), ("POST", 500, False), ("PUT", 500, False),
    ("DELETE", 500, False),
    ("GET", 501, False), ("GET", 404, False), ("GET", 409, False), ("GET", 429, False),
])
def test_which_statuses_are_retried(method, status, retried):
    assert RetryPolicy.retry_status(method, status) is retried


@pytest.mark.parametrize("method, failure, retried", [
    ("POST", "unsent", True), ("PUT", "unsent", True), ("DELETE", "unsent", True),
    ("POST", "dropped", False), ("POST", "timeout", False), ("POST", "broken", False), ("DELETE", "dropped", False),
    ("GET", "dropped", True), ("GET", "timeout", True), ("GET", "broken", True), ("GET", "fatal", False),
    ("POST", "fatal", False),
])
def test_which_transport_failures_are_retried(method, failure, retried):
    assert RetryPolicy.retry_transport(method, failure) is retried


@pytest.mark.parametrize("method, failure, status, landed", [
    ("POST", None, 500, True), ("PUT", None, 504, True), ("DELETE", None, 502, True),
    ("POST", None, 422, False), ("POST", None, 409, False), ("POST", None, 429, False), ("GET", None, 503, False),
    ("POST", "dropped", None, True), ("PUT", "timeout", None, True), ("DELETE", "broken", None, True),
    ("POST", "unsent", None, False), ("POST", "fatal", None, False), ("GET", "dropped", None, False),
])
def test_which_failures_may_have_landed(method, failure, status, landed):
    assert RetryPolicy.may_have_landed(method, failure, status) is landed


def test_policy_validation_and_repr():
    with pytest.raises(ValueError):
        RetryPolicy(retries=-1)
    with pytest.raises(ValueError):
        RetryPolicy(conflict_attempts=0)
    assert repr(RetryPolicy()) == ("RetryPolicy(retries=3, backoff_base=0.5, backoff_factor=2, backoff_max=8, "
                                   "max_retry_after=60, conflict_attempts=3, conflict_delay=1)")


def test_retry_after_forms():
    assert parse_retry_after(None) is None
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("soon") is None
    now = time.time()
    assert 29 <= parse_retry_after(formatdate(now + 30, usegmt=True), now=now) <= 31
    assert parse_retry_after(formatdate(now - 30, usegmt=True), now=now) == 0.0


# ---- list envelopes (docs/engine-api-facts.md, Lists and paging) -------------------------------
META = {"page": 2, "total_pages": 3, "total_items": 7, "limit": 3}


@pytest.mark.parametrize("body, items, meta", [
    ({"state": "success", "messages": [], "data": dict(META, data=[{"a": 1}])}, [{"a": 1}], META),   # wrapped
    (dict(META, data=[{"a": 1}]), [{"a": 1}], META),                                                 # bare
    ({"data": [{"a": 1}]}, [{"a": 1}], dict.fromkeys(META)),                                        # prefix list
    ([{"a": 1}], [{"a": 1}], {}),                                                                    # plain array
    ({"state": "success", "data": {"page": 1}}, [], {"page": 1, "total_pages": None, "total_items": None,
                                                     "limit": None}),                                # no items key
    ({"data": None}, [], dict.fromkeys(META)),
])
def test_unwrap_every_envelope(body, items, meta):
    assert unwrap_page(body) == (items, meta)


@pytest.mark.parametrize("body", [None, "text", 5, {"items": []}, {"data": "x"}, {"data": {"data": "x"}}])
def test_unknown_envelopes_are_errors_not_empty_lists(body):
    with pytest.raises(errors.UnexpectedResponseError) as err:
        unwrap_page(body, "/api/x.json")
    assert "not a list answer" in str(err.value)


# ---- URLs, bodies, user agent ------------------------------------------------------------------
@pytest.mark.parametrize("given, expected", [
    (None, "https://engine.anexia-it.com"),
    ("", "https://engine.anexia-it.com"),
    ("https://engine.anexia-it.com/", "https://engine.anexia-it.com"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("http://127.0.0.1:8080/prefix/", "http://127.0.0.1:8080/prefix"),
    ("https://example.test/a/b//?q=1#frag", "https://example.test/a/b"),
    ("http://[::1]:9/", "http://[::1]:9"),
    ("http://localhost:8765", "http://localhost:8765"),
    ("http://127.8.9.10", "http://127.8.9.10"),
])
def test_base_url(given, expected):
    assert normalize_api_url(given) == expected


@pytest.mark.parametrize("url", ["http://engine.example.test", "http://10.0.0.1:8080/api", "http://[2001:db8::1]/",
                                 "http://128.0.0.1", "http://localhost.example.test", "http://engine.localhost:8080",
                                 "http://localhost.localhost"])
def test_plain_http_to_a_host_that_is_not_loopback_is_refused_unless_allowed(url):
    with pytest.raises(errors.EngineError) as err:
        EngineClient(api_url=url, token="secret-tok")
    assert ("api_url %s is plain http://" % url) in str(err.value) and "allow_insecure_http" in str(err.value)
    assert "secret-tok" not in str(err.value)
    assert EngineClient(api_url=url, token="secret-tok", allow_insecure_http=True).base_url == url.rstrip("/")


def test_userinfo_is_never_shown():
    url = "http://user:pa55word@engine.example.test:8080/"
    with pytest.raises(errors.EngineError) as err:
        EngineClient(api_url=url, token="secret-tok")
    assert "api_url http://engine.example.test:8080/ is plain http://" in str(err.value)
    assert "pa55word" not in str(err.value) and "user" not in str(err.value)
    assert display_url("https://u:p@[::1]:9/a?b") == "https://[::1]:9/a?b"
    assert display_url("https://engine.example.test") == "https://engine.example.test"
    assert url_secrets(url) == ("pa55word",) and url_secrets("https://u@h") == ()


def test_plain_http_ignores_proxy_settings_https_keeps_them():
    assert EngineClient(api_url="http://127.0.0.1:9", token="t").session.trust_env is False
    assert EngineClient(api_url="http://engine.example.test", token="t", allow_insecure_http=True).session.trust_env is False
    assert EngineClient(api_url="https://engine.example.test", token="t").session.trust_env is True


@pytest.mark.parametrize("bad", ["engine.anexia-it.com", "ftp://x", "http://", "https:///path"])
def test_bad_base_url_is_an_engine_error(bad):
    with pytest.raises(errors.EngineError) as err:
        EngineClient(api_url=bad, token="secret-tok")
    assert "api_url" in str(err.value) and "secret-tok" not in str(err.value)


def test_link_objects_become_identifiers():
    body = {"name": "f", "load_balancer": {"identifier": "a" * 32, "name": "lb"}, "default_backend": "b" * 32,
            "mode": {"not": "a link"}}
    assert link_ids(body) == {"name": "f", "load_balancer": "a" * 32, "default_backend": "b" * 32,
                              "mode": {"not": "a link"}}
    assert body["load_balancer"]["name"] == "lb"   # the caller's dict is untouched
    assert link_ids({"state": "0"}) == {"state": "0"}


def test_an_update_body_is_the_whole_object_with_state_0():
    read = {"identifier": "c" * 32, "name": "80.web", "mode": "tcp", "server_timeout": 0,
            "load_balancer": {"identifier": "a" * 32, "name": "lb"},
            "state": {"id": "2", "title": "DeploymentError", "type": 0}}
    assert update_body(read) == dict(read, load_balancer="a" * 32, state="0")
    # a LoadBalancer's, as go-anxcloud's generic client sends it: no state at all (lbaas_update)
    assert update_body(read, state=False) == dict(((k, v) for k, v in read.items() if k != "state"), load_balancer="a" * 32)
    assert read["state"]["id"] == "2"   # the caller's dict is untouched
    for partial in ({"port": 81}, {}, None):
        with pytest.raises(ValueError):
            update_body(partial)


def test_user_agent_names_the_collection_version_and_platform():
    agent = user_agent()
    assert agent.startswith("anxcloud.lbaas/%s (" % COLLECTION_VERSION) and agent.endswith(")")
    assert COLLECTION_VERSION == "0.1.0"


def test_client_options_are_validated():
    with pytest.raises(ValueError):
        EngineClient(api_url="http://127.0.0.1:9", page_size=0)
    with pytest.raises(ValueError):
        EngineClient(api_url="http://127.0.0.1:9", max_workers=0)
    client = EngineClient(api_url="http://127.0.0.1:9", token="secret-tok")
    assert (client.page_size, client.max_workers, client.timeout, client.validate_certs) == (100, 16, 30, True)
    assert client.policy.retries == 3 and client.policy.conflict_attempts == 3 and client.policy.conflict_delay == 1
    assert client.session.get_adapter("https://x").poolmanager.connection_pool_kw["maxsize"] >= client.max_workers
    assert "secret-tok" not in repr(client) + repr(client.session.auth) + repr(client.policy)
    with pytest.raises(ValueError):
        client.lbaas_path("pool")
    with pytest.raises(ValueError):
        client.lbaas_path("backend", "")
    with pytest.raises(ValueError):
        client.tag_path("a" * 32, "")


@pytest.mark.parametrize("tag", ["a/b", "a?b", "a#b", "a%2Fb", "a\nb"])
def test_nothing_that_changes_a_url_path_goes_into_one(tag):
    client = EngineClient(api_url="http://127.0.0.1:9")
    with pytest.raises(errors.EngineError) as err:
        client.tag_path("a" * 32, tag)
    assert "refused before sending" in str(err.value)
    with pytest.raises(errors.EngineError):
        client.lbaas_path("backend", "../" + "a" * 32)
    with pytest.raises(errors.EngineError):
        client.tag_entity_delete("a" * 30 + "?x", "s")
    assert client.request_counts["total"] == 0


def test_tag_names_keep_the_characters_go_leaves_in_a_path():
    # Go's URL path escaping leaves sub-delimiters, ':' and '@' literal; a space is escaped.
    assert EngineClient.tag_path("a" * 32, "anxlb-lease=web@ctl:42@1800000000") == (
        "/api/core/v1/resource.json/%s/tags/anxlb-lease=web@ctl:42@1800000000" % ("a" * 32))
    assert EngineClient.tag_path("a" * 32, "k=v,w+x y").endswith("/tags/k=v,w+x%20y")
