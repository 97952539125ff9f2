"""Each error class from real answers of the local Engine (and a stub for bodies it never sends)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import (
    AccessDeniedError, ConflictError, EngineConnectionError, EngineError, NotFoundError, RateLimitedError,
    ServerError, ValidationFailedError)

from ..conftest import LB1, closed_port, new_client

MISSING = "0" * 32


def engine_says(engine, method, path, **kw):
    """The local Engine's own error message and validation for a request (sent without the client)."""
    error = engine.api(method, path, **kw).json()["error"]
    return error["message"], error.get("validation") or {}


def test_404_not_found(engine, make_client):
    path = "/api/LBaaS/v1/backend.json/" + MISSING
    with pytest.raises(NotFoundError) as err:
        make_client().lbaas_get("backend", MISSING)
    e = err.value
    assert (e.status, e.method, e.path) == (404, "GET", path)
    message, _validation = engine_says(engine, "GET", path)
    assert e.message == message and message
    assert str(e) == "GET %s: not found (HTTP 404): %s" % (path, message)
    assert e.to_dict()["type"] == "NotFoundError"


def test_401_without_and_403_with_a_wrong_token(engine):
    with pytest.raises(AccessDeniedError) as err:
        new_client(engine.url, token=None).lbaas_list("loadbalancer")
    assert err.value.status == 401
    assert err.value.message == engine.http.get(engine.url + "/api/LBaaS/v1/loadbalancer.json").json()["error"]["message"]
    assert err.value.path == "/api/LBaaS/v1/loadbalancer.json?attributes=all&limit=100&page=1"   # path with the query
    with pytest.raises(AccessDeniedError) as err:
        new_client(engine.url, token="wrong").resource_get(LB1)
    assert err.value.status == 403 and "access denied" in str(err.value)


def test_409_conflict(engine, make_client):
    client = make_client()
    client.lbaas_create("backend", {"name": "child", "mode": "tcp", "load_balancer": LB1})
    with pytest.raises(ConflictError) as err:
        client.lbaas_delete("loadbalancer", LB1)   # still used by the backend
    assert err.value.status == 409 and err.value.method == "DELETE"
    assert err.value.message == engine_says(engine, "DELETE", "/api/LBaaS/v1/loadbalancer.json/" + LB1)[0]


def test_422_validation_with_the_fields(engine, make_client):
    body = {"name": "v4.80.web", "frontend": MISSING, "port": 70000}
    with pytest.raises(ValidationFailedError) as err:
        make_client().lbaas_create("bind", body)
    e = err.value
    assert e.status == 422 and e.method == "POST" and e.path == "/api/LBaaS/v1/bind.json"
    message, validation = engine_says(engine, "POST", "/api/LBaaS/v1/bind.json", json=body)
    assert (e.message, e.validation) == (message, validation) and set(validation) == {"port", "frontend"}
    assert "port: %s" % validation["port"] in str(e)
    assert e.to_dict()["validation"] == e.validation


def test_400_bad_request_is_a_validation_error(engine, make_client):
    with pytest.raises(ValidationFailedError) as err:
        make_client().request("POST", "/api/ipam/v1/address.json", body=[1, 2])
    assert err.value.status == 400
    assert err.value.message == engine_says(engine, "POST", "/api/ipam/v1/address.json", json=[1, 2])[0]


def test_other_statuses_are_plain_engine_errors(make_client):
    with pytest.raises(EngineError) as err:
        make_client().request("POST", "/api/core/v1/resource.json/" + LB1, body={})
    assert err.value.__class__ is EngineError and err.value.status == 405


def test_429_rate_limited(engine, make_client):
    engine.set_faults({"errors": {"*": {"429": 1.0}}})
    with pytest.raises(RateLimitedError) as err:
        make_client().tag_add(LB1, "x")
    assert err.value.status == 429 and err.value.message and err.value.message in str(err.value)
    assert str(err.value).startswith("POST /api/core/v1/resource.json/%s/tags/x: rate limited by the Engine" % LB1)


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_5xx_server_errors(engine, make_client, status):
    engine.set_faults({"script": [{"method": "POST", "status": status, "count": 1}]})
    with pytest.raises(ServerError) as err:
        make_client(retries=0).lbaas_create("backend", {"name": "x", "mode": "tcp", "load_balancer": LB1})
    assert err.value.status == status and err.value.message and err.value.message in str(err.value)


def test_connection_errors():
    with pytest.raises(EngineConnectionError) as err:
        new_client("http://127.0.0.1:%d" % closed_port(), retries=0).lbaas_get("backend", MISSING)
    e = err.value
    assert e.status is None and e.method == "GET" and e.path == "/api/LBaaS/v1/backend.json/" + MISSING
    assert str(e).startswith("GET /api/LBaaS/v1/backend.json/%s: could not reach the Engine: " % MISSING)
    assert e.to_dict()["type"] == "EngineConnectionError"


def test_a_non_json_error_body_keeps_the_status_and_the_reason(stub):
    stub.respond = lambda req: (502, "<html><body>Bad Gateway</body></html>", {"Content-Type": "text/html"})
    with pytest.raises(ServerError) as err:
        stub.client(retries=0).lbaas_get("backend", MISSING)
    assert err.value.status == 502 and err.value.message == "Bad Gateway" and err.value.validation == {}


def test_an_error_body_without_validation(stub):
    stub.respond = lambda req: (404, {"error": {"code": 404, "message": "nope"}})
    with pytest.raises(NotFoundError) as err:
        stub.client().prefix_get("a" * 32)
    assert err.value.message == "nope" and err.value.validation == {}
