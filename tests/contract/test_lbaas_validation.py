"""Contract: LBaaS v1 validation — 422 with the Engine's error body naming each bad field, 404 for
unknown identifiers, 409 for writes on objects being deleted (README.md, decisions)."""
import pytest

from .helpers import (LB1, LB2, after_delay, backend, create, error_of, frontend, get, lbaas, ok, request_body,
                      tree)

GONE = "f" * 32


def bodies(ids):
    """(kind, body, the fields the 422 must name)."""
    bind = {"name": "b", "port": 80, "frontend": ids["frontend"]}
    server = {"name": "s", "ip": "127.0.0.1", "port": 80, "backend": ids["backend"]}
    return [
        ("backend", {"name": "x", "mode": "udp", "load_balancer": LB1}, {"mode"}),
        ("backend", {"name": "x"}, {"load_balancer"}),
        ("backend", {"mode": "tcp", "load_balancer": LB1}, {"name"}),
        ("backend", {"name": "", "load_balancer": LB1}, {"name"}),
        ("backend", {"name": 7, "load_balancer": LB1}, {"name"}),
        ("backend", {"name": "x", "load_balancer": GONE}, {"load_balancer"}),
        ("backend", {"name": "x", "load_balancer": ids["frontend"]}, {"load_balancer"}),   # wrong type
        ("backend", {"name": "x", "load_balancer": {"identifier": LB1, "name": "lb1"}}, {"load_balancer"}),
        ("backend", {"name": "x", "load_balancer": LB1, "server_timeout": -1}, {"server_timeout"}),
        ("backend", {"name": "x", "load_balancer": LB1, "health_check": 1}, {"health_check"}),
        ("frontend", {"name": "x", "load_balancer": LB2, "default_backend": ids["backend"]}, {"default_backend"}),
        ("frontend", {"name": "x", "load_balancer": LB1, "default_backend": GONE}, {"default_backend"}),
        ("frontend", {"name": "x", "load_balancer": LB1, "client_timeout": 30}, {"client_timeout"}),
        ("frontend", {"name": "x", "load_balancer": LB1, "enable": 2}, {"enable"}),
        ("bind", dict(bind, port=0), {"port"}),
        ("bind", dict(bind, port=65536), {"port"}),
        ("bind", dict(bind, port="80"), {"port"}),
        ("bind", dict(bind, port=80.0), {"port"}),
        ("bind", dict(bind, port=True), {"port"}),
        ("bind", dict(bind, port=None), {"port"}),
        ("bind", dict(bind, address="nope"), {"address"}),
        ("bind", dict(bind, address=" 127.0.0.1"), {"address"}),
        ("bind", dict(bind, address="127.0.0.0/8"), {"address"}),
        ("bind", dict(bind, ssl="no"), {"ssl"}),
        ("bind", dict(bind, frontend=ids["backend"]), {"frontend"}),
        ("server", dict(server, ip="10.0.0.300"), {"ip"}),
        ("server", dict(server, ip=""), {"ip"}),
        ("server", dict(server, check="on"), {"check"}),
        ("server", dict(server, backend=None, port=0), {"backend", "port"}),
        # ACL and rule: test_lbaas_acl_rules.py
        ("backend", {"name": "x", "load_balancer": LB1, "state": "9"}, {"state"}),
    ]


def test_invalid_creates_are_422_naming_each_field(engine):
    ids = tree(engine)
    for kind, body, fields in bodies(ids):
        err = error_of(engine.api("POST", lbaas(kind), json=body), 422)
        assert set(err["validation"]) == fields, (kind, body, err)
    assert ok(engine.api("GET", lbaas("backend"), params={"limit": 100}))["data"]["total_items"] == 1


def test_an_invalid_put_is_422_and_changes_nothing(engine):
    ids = tree(engine)
    before = get(engine, "bind", ids["bind"])
    body = request_body(before, port=0, address="x", name="n", state="0")
    err = error_of(engine.api("PUT", lbaas("bind", ids["bind"]), json=body), 422)
    assert set(err["validation"]) == {"port", "address"}
    assert get(engine, "bind", ids["bind"]) == before


@pytest.mark.parametrize("put", ["replace", "merge"])
def test_a_put_checks_the_whole_new_object(engine, put):
    engine.set_options(put=put)
    ids = tree(engine)
    body = request_body(get(engine, "frontend", ids["frontend"]), load_balancer=LB2, state="0")
    err = error_of(engine.api("PUT", lbaas("frontend", ids["frontend"]), json=body), 422)
    assert set(err["validation"]) == {"default_backend"}   # still points at a backend of lb1
    body = request_body(get(engine, "backend", ids["backend"]), load_balancer=LB2, state="0")
    err = error_of(engine.api("PUT", lbaas("backend", ids["backend"]), json=body), 422)
    assert "default backend" in err["validation"]["load_balancer"]


def test_unknown_identifiers_and_identifiers_of_another_kind_are_404(engine):
    ids = tree(engine)
    for method, kw in (("GET", {}), ("PUT", {"json": {}}), ("DELETE", {})):
        error_of(engine.api(method, lbaas("backend", "0" * 32), **kw), 404)
        error_of(engine.api(method, lbaas("backend", ids["frontend"]), **kw), 404)


def test_writes_on_objects_being_deleted(slow_engine):
    b = backend(slow_engine)
    s = create(slow_engine, "server", name="s", ip="127.0.0.1", port=80, backend=b["identifier"])
    ok(slow_engine.api("DELETE", lbaas("server", s["identifier"])))
    err = error_of(slow_engine.api("PUT", lbaas("server", s["identifier"]), json={"port": 81}), 409)
    assert "being deleted" in err["message"]
    ok(slow_engine.api("DELETE", lbaas("backend", b["identifier"])))   # its only child is being deleted
    err = error_of(slow_engine.api("POST", lbaas("server"), json={"name": "t", "ip": "127.0.0.1", "port": 80,
                                                                  "backend": b["identifier"]}), 422)
    assert "being deleted" in err["validation"]["backend"]
    after_delay()
    error_of(slow_engine.api("GET", lbaas("backend", b["identifier"])), 404)


@pytest.mark.parametrize("mode", ["tcp", "http"])
def test_both_modes_are_valid(engine, mode):
    assert frontend(engine, backend(engine)["identifier"], mode=mode)["mode"] == mode
