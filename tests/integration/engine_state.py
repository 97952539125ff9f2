"""Reading the local Engine's state back through its own API, independent of the collection's client."""
import requests

LBAAS = "/api/LBaaS/v1/%s.json"


def _get(engine, path, **params):
    resp = requests.get(engine.url + path, params=params, headers={"Authorization": "Token " + engine.token}, timeout=10)
    resp.raise_for_status()
    return resp.json()


def objects(engine, kind):
    """Every object of an LBaaS kind with its details, keyed by name (lists when a name repeats)."""
    params = {"page": 1, "limit": 1000}
    if kind != "loadbalancer":
        params["filters"] = ""
    items = _get(engine, LBAAS % kind, **params)["data"]["data"]
    return [_get(engine, LBAAS % kind + "/" + i["identifier"]) for i in items]


def by_name(engine, kind):
    return dict((o["name"], o) for o in objects(engine, kind))


def snapshot(engine):
    """Everything LBaaS plus tags, to prove a check-mode run changed nothing."""
    out = {}
    for kind in ("loadbalancer", "backend", "frontend", "bind", "server"):
        for obj in objects(engine, kind):
            obj = dict(obj)
            obj["tags"] = tags(engine, obj["identifier"])
            out[obj["identifier"]] = obj
    return out


def tags(engine, ident):
    return sorted(t["name"] for t in _get(engine, "/api/core/v1/resource.json/" + ident).get("tags") or [])


def create(engine, kind, **body):
    resp = requests.post(engine.url + LBAAS % kind, json=body, headers={"Authorization": "Token " + engine.token},
                         timeout=10)
    resp.raise_for_status()
    return resp.json()["identifier"]


def tag(engine, ident, name):
    resp = requests.post(engine.url + "/api/core/v1/resource.json/%s/tags/%s" % (ident, name), json="",
                         headers={"Authorization": "Token " + engine.token}, timeout=10)
    resp.raise_for_status()


def untag(engine, ident, name):
    resp = requests.delete(engine.url + "/api/core/v1/resource.json/%s/tags/%s" % (ident, name),
                           headers={"Authorization": "Token " + engine.token}, timeout=10)
    resp.raise_for_status()


def lb_id(engine, name="lb1"):
    return by_name(engine, "loadbalancer")[name]["identifier"]
