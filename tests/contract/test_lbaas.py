"""Contract: LBaaS v1 endpoints of the local Engine against ENGINE_API.md section 4 and the s8 checklist."""
import re
from urllib.parse import urlencode

import pytest

LB1 = "0a11ba1a000000000000000000000001"
LB2 = "0a11ba1a000000000000000000000002"
PAGE_KEYS = {"page", "total_pages", "total_items", "limit", "data"}


def path(kind, ident=None):
    return "/api/LBaaS/v1/%s.json" % kind + ("/" + ident if ident else "")


def create(engine, kind, **body):
    resp = engine.api("POST", path(kind), json=body)
    assert resp.status_code == 200, resp.text
    return resp.json()


def backend(engine, name="web", lb=LB1, **kw):
    return create(engine, "backend", name=name, mode="tcp", load_balancer=lb, **kw)


def error_of(resp, status):
    assert resp.status_code == status, resp.text
    assert resp.headers["Content-Type"].startswith("application/json")
    body = resp.json()
    assert set(body) == {"error"} and body["error"]["code"] == status
    assert isinstance(body["error"]["message"], str) and isinstance(body["error"]["validation"], dict)
    return body["error"]


def test_list_envelope_is_the_wrapped_page_with_minimal_items(engine):
    backend(engine)
    body = engine.api("GET", path("backend"), params={"filters": "", "page": 1, "limit": 10}).json()
    assert set(body) == {"state", "messages", "data"}
    assert body["state"] == "success" and body["messages"] == []
    assert set(body["data"]) == PAGE_KEYS
    assert all(isinstance(body["data"][k], int) for k in PAGE_KEYS - {"data"})
    assert body["data"]["data"] == [{"identifier": body["data"]["data"][0]["identifier"], "name": "web"}]


def test_pagination_and_a_page_past_the_end(engine):
    for i in range(5):
        backend(engine, name="b%d" % i)
    pages = [engine.api("GET", path("backend"), params={"filters": "", "page": p, "limit": 2}).json()["data"]
             for p in (1, 2, 3, 4)]
    assert [len(p["data"]) for p in pages] == [2, 2, 1, 0]
    assert pages[0]["total_pages"] == 3 and pages[0]["total_items"] == 5 and pages[0]["limit"] == 2
    assert pages[3]["page"] == 4   # past the end: 200 with an empty data array, never 404/422
    assert engine.api("GET", path("backend"), params={"page": 0, "limit": 2}).json()["data"]["page"] == 1


def test_filters_are_one_encoded_parameter(engine):
    b1 = backend(engine, name="one", lb=LB1)
    backend(engine, name="two", lb=LB2)
    create(engine, "backend", name="three", mode="http", load_balancer=LB1)
    query = urlencode({"filters": urlencode([("load_balancer", LB1), ("mode", "tcp")]), "page": 1, "limit": 10})
    assert "filters=load_balancer%3D" in query
    items = engine.api("GET", path("backend") + "?" + query).json()["data"]["data"]
    assert items == [{"identifier": b1["identifier"], "name": "one"}]
    # The LoadBalancer list gets no filters at all.
    lbs = engine.api("GET", path("loadbalancer"), params={"page": 1, "limit": 10}).json()["data"]["data"]
    assert [lb["name"] for lb in lbs] == ["lb1", "lb2"]


def test_create_returns_the_full_object_with_links_as_objects(engine):
    b = backend(engine, health_check='"adv_check": "tcp-check"')
    assert re.match(r"^[0-9a-f]{32}$", b["identifier"])
    assert b["load_balancer"] == {"identifier": LB1, "name": "lb1"}
    assert b["health_check"] == '"adv_check": "tcp-check"'   # verbatim, never normalised
    # without a deploy delay the object is deployed at once (states over time: test_states.py)
    assert b["state"] == {"id": "3", "title": "Deployed", "text": "Deployed", "type": 1}
    for key in ("customer_identifier", "reseller_identifier", "automation_rules"):
        assert key in b
    f = create(engine, "frontend", name="web", mode="tcp", load_balancer=LB1, default_backend=b["identifier"])
    assert f["default_backend"] == {"identifier": b["identifier"], "name": "web"}
    got = engine.api("GET", path("frontend", f["identifier"])).json()
    assert got == f


def test_put_merges_missing_keys_keep_their_value(engine):
    b = backend(engine, health_check="hc", server_timeout=5)
    updated = engine.api("PUT", path("backend", b["identifier"]), json={"mode": "http", "state": "0"}).json()
    assert (updated["mode"], updated["health_check"], updated["server_timeout"]) == ("http", "hc", 5)
    assert updated["load_balancer"]["identifier"] == LB1


@pytest.mark.parametrize("kind, body, field", [
    ("backend", {"name": "x", "mode": "udp", "load_balancer": LB1}, "mode"),
    ("backend", {"name": "x", "mode": "tcp"}, "load_balancer"),
    ("backend", {"name": "x", "mode": "tcp", "load_balancer": "f" * 32}, "load_balancer"),
    ("backend", {"mode": "tcp", "load_balancer": LB1}, "name"),
    ("server", {"name": "s", "ip": "10.0.0.300", "port": 80, "backend": None}, "ip"),
])
def test_validation_errors_name_the_field(engine, kind, body, field):
    err = error_of(engine.api("POST", path(kind), json=body), 422)
    assert field in err["validation"]


def test_bind_and_server_validation(engine):
    b = backend(engine)
    f = create(engine, "frontend", name="web", mode="tcp", load_balancer=LB1, default_backend=b["identifier"])
    for port in (0, 65536, "80"):
        err = error_of(engine.api("POST", path("bind"), json={"name": "x", "port": port, "frontend": f["identifier"]}), 422)
        assert "port" in err["validation"]
    err = error_of(engine.api("POST", path("bind"), json={"name": "x", "port": 80, "address": "nope",
                                                          "frontend": f["identifier"]}), 422)
    assert "address" in err["validation"]
    bind = create(engine, "bind", name="v6", port=80, address="2001:DB8::0:1", frontend=f["identifier"], ssl=False)
    assert bind["address"] == "2001:DB8::0:1"   # stored as sent, not normalised
    assert create(engine, "bind", name="any", port=81, address="", frontend=f["identifier"])["address"] == ""
    err = error_of(engine.api("POST", path("server"), json={"name": "s", "ip": "10.0.0.1", "port": 80, "check": "on",
                                                            "backend": b["identifier"]}), 422)
    assert "check" in err["validation"]
    s = create(engine, "server", name="s", ip="10.0.0.1", port=80, check="disabled", backend=b["identifier"])
    assert s["check"] == "disabled" and s["backend"]["identifier"] == b["identifier"]


def test_default_backend_must_be_on_the_same_load_balancer(engine):
    other = backend(engine, lb=LB2)
    err = error_of(engine.api("POST", path("frontend"), json={"name": "f", "mode": "tcp", "load_balancer": LB1,
                                                              "default_backend": other["identifier"]}), 422)
    assert "default_backend" in err["validation"]


def test_unknown_ids_and_paths_are_404_with_the_error_body(engine):
    error_of(engine.api("GET", path("backend", "0" * 32)), 404)
    error_of(engine.api("PUT", path("backend", "0" * 32), json={}), 404)
    error_of(engine.api("DELETE", path("backend", "0" * 32)), 404)
    error_of(engine.api("GET", "/api/LBaaS/v1/Backend.json"), 404)   # path case matters


def test_bad_json_is_400(engine):
    error_of(engine.api("POST", path("backend"), data=b"{nope", headers={"Content-Type": "application/json"}), 400)


def test_content_type_with_or_without_charset_also_on_delete(engine):
    b = backend(engine)
    resp = engine.api("DELETE", path("backend", b["identifier"]),
                      headers={"Content-Type": "application/json; charset=utf-8"})
    assert resp.status_code == 200 and resp.json() == {}


def test_deleting_a_parent_with_children_is_a_conflict(engine):
    b = backend(engine)
    s = create(engine, "server", name="s", ip="10.0.0.1", port=80, backend=b["identifier"])
    err = error_of(engine.api("DELETE", path("backend", b["identifier"])), 409)
    assert "still used" in err["message"]
    assert engine.api("DELETE", path("server", s["identifier"])).status_code == 200
    assert engine.api("DELETE", path("backend", b["identifier"])).status_code == 200
