"""Shared constants and small request helpers of the contract tests (plain ``requests`` calls)."""
import os
import re
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(os.path.dirname(HERE), "engine", "seeds")
SEED = os.path.join(SEEDS, "default.yml")
EXAMPLE_SEED = os.path.join(SEEDS, "example.yml")
DELAY = 0.3   # seconds objects stay pending / deleting on the slow engine

# from seeds/default.yml
LB1 = "0a11ba1a000000000000000000000001"
LB2 = "0a11ba1a000000000000000000000002"
V4 = "0a11ce11000000000000000000000001"   # 127.0.10.0/24
V6 = "0a11ce11000000000000000000000002"   # fd00:10::/64
VLAN = "0a11f1a0000000000000000000000001"
LOCATION = "52b5f6b2fd3a4e5d8f4b7a9c3e1d0f11"

RESOURCES = "/api/core/v1/resource.json"
PREFIXES = "/api/ipam/v1/prefix.json"
ADDRESSES = "/api/ipam/v1/address.json"
FILTERED = "/api/ipam/v1/address/filtered.json"
RESERVE = "/api/ipam/v1/address/reserve/ip/count.json"

PAGE_KEYS = {"page", "total_pages", "total_items", "limit", "data"}
COMMON_KEYS = {"identifier", "name", "customer_identifier", "reseller_identifier", "automation_rules", "state"}
IDENTIFIER = re.compile(r"^[0-9a-f]{32}$")


def lbaas(kind, ident=None):
    return "/api/LBaaS/v1/%s.json" % kind + ("/" + ident if ident else "")


def ok(resp):
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"] == "application/json; charset=utf-8"
    return resp.json()


def error_of(resp, status):
    """The ``error`` object of an Engine error answer, after checking its shape."""
    assert resp.status_code == status, resp.text
    assert resp.headers["Content-Type"] == "application/json; charset=utf-8"
    body = resp.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "validation"}
    assert body["error"]["code"] == status and isinstance(body["error"]["message"], str)
    assert all(isinstance(v, str) for v in body["error"]["validation"].values())
    return body["error"]


def create(engine, kind, **body):
    return ok(engine.api("POST", lbaas(kind), json=body))


def get(engine, kind, ident):
    return ok(engine.api("GET", lbaas(kind, ident)))


def backend(engine, name="web", lb=LB1, mode="tcp", **kw):
    return create(engine, "backend", name=name, mode=mode, load_balancer=lb, **kw)


def frontend(engine, default_backend, name="web", lb=LB1, mode="tcp", **kw):
    return create(engine, "frontend", name=name, mode=mode, load_balancer=lb, default_backend=default_backend, **kw)


def request_body(obj, **changes):
    """A read-back object as the generic client PUTs it (gac:pkg/apis/lbaas/v1/*_genclient.go
    FilterAPIRequestBody, helper.go requestBody): every field, links as identifier strings; no state
    unless ``changes`` sets one."""
    body = dict((k, v["identifier"] if isinstance(v, dict) and set(v) == {"identifier", "name"} else v)
                for k, v in obj.items() if k not in ("state", "automation_rules"))
    body.update(changes)
    return body


def put_full(engine, kind, ident, **changes):
    """The whole object read back, with ``changes``, PUT (answer checked 200)."""
    return ok(engine.api("PUT", lbaas(kind, ident), json=request_body(get(engine, kind, ident), **changes)))


def tree(engine):
    """One of each: backend with a server, frontend with a bind, on lb1; identifiers by kind."""
    b = backend(engine)
    f = frontend(engine, b["identifier"])
    bind = create(engine, "bind", name="v4", address="127.0.10.5", port=80, ssl=False, frontend=f["identifier"])
    server = create(engine, "server", name="n1", ip="127.0.0.1", port=8080, check="enabled", backend=b["identifier"])
    return {"loadbalancer": LB1, "backend": b["identifier"], "frontend": f["identifier"],
            "bind": bind["identifier"], "server": server["identifier"]}


def items(body):
    """The items of a wrapped page."""
    assert set(body) == {"state", "messages", "data"} and set(body["data"]) == PAGE_KEYS
    return body["data"]["data"]


def tag_path(ident, name):
    return "%s/%s/tags/%s" % (RESOURCES, ident, name)


def state_title(engine, kind, ident):
    return get(engine, kind, ident)["state"]["title"]


def after_delay():
    time.sleep(DELAY + 0.15)
