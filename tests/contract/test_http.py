"""Contract: authentication, content types, the error body on every error (docs/engine-api-facts.md,
Transport and Errors)."""
import http.client
import threading
from urllib.parse import urlsplit

import pytest
import requests

from localengine import server
from localengine.engine import Engine
from localengine.server import EngineServer, is_loopback

from .helpers import LB1, backend, error_of, lbaas, ok


def raw(engine, method, path, body=None, headers=None):
    """A request exactly as given (requests would add or fix headers)."""
    url = urlsplit(engine.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def test_missing_token_is_401_and_a_wrong_one_403(engine):
    error_of(requests.get(engine.url + lbaas("loadbalancer"), timeout=5), 401)
    for auth in ("Token nope", "Bearer " + engine.token, "Token  " + engine.token, engine.token):
        error_of(requests.get(engine.url + lbaas("loadbalancer"), headers={"Authorization": auth}, timeout=5), 403)
    ok(engine.api("GET", lbaas("loadbalancer", LB1)))


def test_auth_comes_before_routing(engine):
    error_of(requests.get(engine.url + "/api/nothing.json", timeout=5), 401)
    error_of(engine.api("GET", "/api/nothing.json"), 404)


def test_unknown_paths_and_wrong_case_are_404(engine):
    for path in ("/", "/api/LBaaS/v1/Backend.json", "/api/lbaas/v1/backend.json", "/api/LBaaS/v1/acl.json",
                 "/api/LBaaS/v2/backend.json", lbaas("backend") + "/x/y"):
        error_of(engine.api("GET", path), 404)
    ok(engine.api("GET", "/api/LBaaS/v1/ACL.json"))


def test_bad_json_and_non_object_bodies_are_400(engine):
    error_of(engine.api("POST", lbaas("backend"), data=b"{nope", headers={"Content-Type": "application/json"}), 400)
    for body in ([], "x", None, 3):
        error_of(engine.api("POST", lbaas("backend"), json=body), 400)


def test_methods_a_path_does_not_have_are_405(engine):
    error_of(engine.api("PATCH", lbaas("backend", "0" * 32), json={}), 405)
    error_of(engine.api("DELETE", lbaas("backend")), 405)
    error_of(engine.api("POST", "/api/core/v1/resource.json"), 405)
    resp = engine.api("HEAD", lbaas("backend"))
    assert resp.status_code == 405 and resp.content == b""


@pytest.mark.parametrize("method, path", [
    ("PATCH", "/api/ipam/v1/prefix.json"), ("PATCH", "/api/ipam/v1/address.json/x"), ("POST", "/api/vlan/v1/vlan.json/x"),
    ("GET", "/api/vlan/v1/vlan.json"), ("POST", "/api/ipam/v1/address/filtered.json"),
    ("GET", "/api/ipam/v1/address/reserve/ip/count.json"), ("PUT", "/api/core/v1/resource.json/x")])
def test_405_everywhere(engine, method, path):
    error_of(engine.api(method, path, json={}), 405)


def test_methods_http_server_does_not_know_still_get_the_engine_body(engine):
    error_of(engine.api("BREW", lbaas("backend")), 501)


def test_request_content_type_with_or_without_charset_also_on_delete(engine):
    for content_type in ("application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"):
        body = b'{"name": "w", "load_balancer": "%s"}\n' % LB1.encode()
        headers = {"Authorization": "Token " + engine.token, "Content-Type": content_type}
        assert raw(engine, "POST", lbaas("backend"), body, headers)[0] == 200
    ident = backend(engine)["identifier"]
    token = {"Authorization": "Token " + engine.token}
    charset = dict(token, **{"Content-Type": "application/json; charset=utf-8"})
    body = b'{"name": "w", "load_balancer": "%s", "mode": "http", "state": "0"}' % LB1.encode()
    assert raw(engine, "PUT", lbaas("backend", ident), body, charset)[0] == 200
    status, headers, body = raw(engine, "DELETE", lbaas("backend", ident), None,
                                dict(token, **{"Content-Type": "application/json"}))
    assert (status, headers["Content-Type"], body) == (200, "application/json; charset=utf-8", b"{}")


def test_a_body_that_is_not_json_typed_is_415(engine):
    for headers in ({"Content-Type": "text/plain"}, {}):
        status, body = raw(engine, "POST", lbaas("backend"), b"{}", dict(headers, Authorization="Token " + engine.token))[::2]
        assert status == 415 and b'"code": 415' in body


def test_chunked_bodies_and_bad_lengths_are_refused_and_logged(engine):
    def chunks():
        yield b"{}"
    error_of(engine.api("POST", lbaas("backend"), data=chunks(), headers={"Content-Type": "application/json"}), 411)
    status, body = raw(engine, "POST", lbaas("backend"), None, {"Content-Length": "-1"})[::2]
    assert status == 400 and b'"code": 400' in body
    assert [e["status"] for e in engine.requests()["log"]] == [411, 400]


def test_answers_are_json_with_charset(engine):
    resp = engine.api("GET", lbaas("loadbalancer"))
    assert resp.headers["Content-Type"] == "application/json; charset=utf-8"
    assert int(resp.headers["Content-Length"]) == len(resp.content)


def test_the_admin_api_needs_no_token(engine):
    assert requests.get(engine.url + "/_local/requests", timeout=5).status_code == 200


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("127.9.8.7", True), ("::1", True),
                                            ("::ffff:127.0.0.1", True), ("10.0.0.1", False), ("::", False),
                                            ("fe80::1%eth0", False), ("localhost", False)])
def test_only_loopback_clients_reach_the_admin_api(host, loopback):
    assert is_loopback(host) is loopback


@pytest.fixture
def in_process():
    """An Engine server inside the test process, so a test can break its parts."""
    srv = EngineServer(("127.0.0.1", 0), Engine(), "t", quiet=True)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv, "http://127.0.0.1:%d" % srv.server_address[1]
    srv.shutdown()
    srv.server_close()
    srv.engine.close()


def test_a_bug_still_answers_500_in_the_engine_body(in_process, monkeypatch):
    srv, url = in_process

    def broken(*args):
        raise RuntimeError("bug")
    monkeypatch.setattr(srv.engine, "handle", broken)
    monkeypatch.setattr(srv.admin, "handle", broken)
    error_of(requests.get(url + lbaas("backend"), headers={"Authorization": "Token t"}, timeout=5), 500)
    error_of(requests.get(url + "/_local/requests", timeout=5), 500)


def test_the_admin_api_refuses_other_clients(in_process, monkeypatch):
    monkeypatch.setattr(server, "is_loopback", lambda host: False)
    assert "loopback clients only" in error_of(requests.get(in_process[1] + "/_local/requests", timeout=5), 403)["message"]
