"""The gc module against the local Engine: an owner dropped from the live set loses everything it owns on
every load balancer and pool, and nothing else is ever written; a read that fails mid-snapshot deletes
nothing; the cap stops a mass delete; a held lease makes gc skip that load balancer; check mode lists
exactly what the real run deletes; a rerun is a no-op.

gc has no action plugin and nothing here needs the controller (no templating, no prediction carried between tasks,
no printed output), so every task runs as a module process of its own (``module_tasks``): gc's own behaviour.
A failed one does not stop the ones after it (where a play needed ``ignore_errors``)."""
import time

from . import engine_state as es
from .conftest import Steps, module_tasks, warning_texts

POOL = ["anxlb-pool=demo"]


def service(name, lbs, address, port=8080):
    return {"anxcloud.lbaas.service": {
        "name": name, "load_balancers": lbs, "addresses": [address],
        "ports": [{"name": "http", "port": port, "target_port": 18080}],
        "servers": [{"name": "n1", "address": "127.0.0.1"}]}}


def gc(**options):
    return {"anxcloud.lbaas.gc": options}


def writes(engine, entries=None):
    """The mutating requests among ``entries`` (default: the local Engine's whole log) as (method, path)."""
    entries = engine.requests()["log"] if entries is None else entries
    return [(e["method"], e["path"]) for e in entries if e["method"] in ("POST", "PUT", "DELETE")]


def _owner_tags(world, obj):
    """The tags that make an object someone's: its own, else (a bind or server carrying no owner tag) its
    parent's: ownership by containment, binds and servers are not owner-tagged."""
    own = [t for t in obj["tags"] if "-svc=" in t]
    link = obj.get("frontend") or obj.get("backend")
    if own or not link:
        return obj["tags"]
    parent = world.get(link["identifier"] if isinstance(link, dict) else link)
    return obj["tags"] + ([t for t in parent["tags"] if "-svc=" in t] if parent else [])


def ids_of(engine, owner=None, untagged=False, tag=None):
    """LBaaS objects (no load balancers) of ``owner`` (carrying its tag, or inside a parent carrying it), of
    nobody (no tag at all, nor on the parent), or carrying ``tag``."""
    out = set()
    world = es.snapshot(engine)
    for obj in world.values():
        if not any(key in obj for key in ("load_balancer", "frontend", "backend")):
            continue
        tags = _owner_tags(world, obj)
        if (owner and "anxlb-svc=%s" % owner in tags) or (untagged and not tags) or (tag and tag in tags):
            out.add(obj["identifier"])
    return out


def set_up(engine, module):
    """web (alive) on lb1; api (to collect) on lb1 and lb2 with a pool address; an untagged backend with a server
    on lb1 and a backend tagged by another prefix for an owner also called api, on lb2."""
    ip = module("ip_address", {"pool": POOL, "owner": "api", "family": "v4"})
    assert not ip.failed, ip
    api_ip = ip["addresses"][0]
    run = module_tasks(module, [service("web", ["lb1"], "127.0.10.50"), {"anxcloud.lbaas.service": {
        "name": "api", "load_balancers": ["lb1", "lb2"], "addresses": [api_ip["address"]],
        "ports": [{"name": "http", "port": 9090, "target_port": 19090}],
        "servers": [{"name": "n1", "address": "127.0.0.1"}, {"name": "n2", "address": "127.0.0.2"}]}}])
    assert not run.failed(0) and not run.failed(1), run
    lb1, lb2 = es.lb_id(engine, "lb1"), es.lb_id(engine, "lb2")
    loose = es.create(engine, "backend", name="loose", load_balancer=lb1, mode="tcp")
    es.create(engine, "server", name="loose-n1", backend=loose, ip="127.0.0.9", port=80, check="disabled")
    other = es.create(engine, "backend", name="http.api", load_balancer=lb2, mode="tcp")
    es.tag(engine, other, "xyz-svc=api")
    return api_ip, lb1, lb2


def api_objects(engine):
    world = es.snapshot(engine)
    return sorted((o["name"], o["identifier"]) for o in world.values() if "anxlb-svc=api" in _owner_tags(world, o))


def test_an_owner_dropped_from_the_live_set_goes_and_nothing_else_is_written(engine, module):
    api_ip, lb1, lb2 = set_up(engine, module)
    api = dict((i, n) for n, i in api_objects(engine))
    assert len(api) == 2 * 5   # per lb: backend, frontend, bind, two servers
    protected = ids_of(engine, owner="web") | ids_of(engine, untagged=True) | ids_of(engine, tag="xyz-svc=api")
    assert len(protected) == 4 + 2 + 1
    before = es.snapshot(engine)

    # A read failing mid-snapshot (server listings come after tag entities, load balancers and tags) deletes nothing.
    engine.reset_requests()
    engine.set_faults({"script": [{"method": "GET", "path": "/api/LBaaS/v1/server.json", "status": 503, "count": 50}]})
    broken = module("gc", {"keep": ["web"]})
    engine.clear_faults()
    assert broken.failed and "503" in broken["msg"], broken
    assert writes(engine) == [] and es.snapshot(engine) == before

    # The cap: eleven removals (ten objects, one address) are more than ten; nothing is deleted.
    engine.reset_requests()
    capped = module("gc", {"keep": ["web"], "max_delete": 10})
    assert capped.failed and capped["msg"].startswith(
        "gc would remove 11 objects and addresses of 1 owner(s) (api), more than max_delete (10), so nothing was deleted")
    assert capped["would_remove_by_owner"] == {"api": 11} and "plan" not in capped.result
    assert writes(engine) == [] and es.snapshot(engine) == before

    # Another run holds lb2: gc skips it (and api's address, which lb2's bind still serves).
    expiry = int(time.time()) + 600
    es.tag(engine, lb2, "anxlb-lease=api@ci:7@%d" % expiry)
    before = es.snapshot(engine)
    markers = [t for t in es.tags(engine, lb1) if t.startswith("anxlb-reconciled.api=")]
    engine.reset_requests()
    # check mode, then for real (each process's requests told apart in the Engine's log by time)
    play = module_tasks(module, [dict(gc(keep=["web"]), check_mode=True, diff=True), dict(gc(keep=["web"]), diff=True)])
    assert not play.failed(0) and not play.failed(1), play
    assert play.requests(engine, 0) and writes(engine, play.requests(engine, 0)) == []
    got = play[0]
    assert sorted(r["id"] for r in got["removed"] if r["type"] != "marker") == sorted(
        i for i in api if _on(before, i, lb1))
    assert [r["name"] for r in got["removed"] if r["type"] == "marker"] == markers
    reasons = dict((s.get("load_balancer") or s.get("prefix"), s["reason"]) for s in got["skipped_items"])
    assert reasons["lb2"] == ("load balancer lb2 is leased by api@ci:7 (until %s): another run is reconciling it; gc "
                              "leaves it alone this time" % time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expiry)))
    assert reasons["127.0.10.0/24"].startswith("address %s is still used by bind 'v4.http.api'" % api_ip["address"])
    # kept counts the resources carrying the owner tag: web's backend and frontend (its bind and server are
    # web's by containment and carry none)
    assert got["kept"] == {"web": 2} and got["failed_owners"] == []
    assert got["summary"].startswith("lb1: 5 to destroy | owners collected: api")
    assert set(r["reason"].split(";")[0] for r in got["removed"]) == {"owner 'api' is not in the live set"}
    preview = got["diff"]["prepared"].splitlines()
    assert preview[0] == "owner 'api' is not in the live set: 5 to remove, 6 stay (and its marker on lb1)" and "  - lb1: backend http.api" in preview
    assert preview[-2:] == ["  = lb2: 5 stay (%s)" % reasons["lb2"], "  = pool 127.0.10.0/24: 1 stay (%s)" % reasons["127.0.10.0/24"]]

    real = play[1]
    assert real["removed"] == got["removed"] and real["diff"]["prepared"] == done(got["diff"]["prepared"])
    assert real["skipped_items"] == got["skipped_items"] and real["summary"] == done(got["summary"])
    _never_written(engine, protected | set(i for i in api if _on(before, i, lb2)))
    now = es.snapshot(engine)
    assert set(before) - set(now) == set(r["id"] for r in got["removed"] if r["type"] != "marker")
    assert all(t.startswith("anxlb-lease=api@ci:7@") for t in es.tags(engine, lb2) if t.startswith("anxlb-lease="))

    # The lease ends: the rest goes (lb2's objects, the marker, the address); then a rerun is a no-op.
    es.untag(engine, lb2, "anxlb-lease=api@ci:7@%d" % expiry)
    engine.reset_requests()
    play = module_tasks(module, [dict(gc(keep=["web"]), check_mode=True, diff=True), dict(gc(keep=["web"]), diff=True),
                                 gc(keep=["web"])])
    assert not any(play.failed(i) for i in range(3)), play
    check, real, again = play[0], play[1], play[2]
    assert writes(engine, play.requests(engine, 0)) == []
    assert real["removed"] == check["removed"] and real["diff"]["prepared"] == done(check["diff"]["prepared"])
    assert real["summary"].startswith("lb2: 5 destroyed; 127.0.10.0/24: 1 released | owners collected: api")
    assert sorted(r["type"] for r in real["removed"]) == [
        "address", "backend", "bind", "frontend", "marker", "server", "server"]
    assert [(r["name"], r["prefix"]) for r in real["removed"] if r["type"] == "address"] == [
        (api_ip["address"], "127.0.10.0/24")]
    _never_written(engine, protected)
    assert api_objects(engine) == []
    assert ids_of(engine, owner="web") | ids_of(engine, untagged=True) | ids_of(engine, tag="xyz-svc=api") == protected
    assert _addresses_of(engine, "api") == []
    assert not [t for lb in (lb1, lb2) for t in es.tags(engine, lb) if "api" in t]
    assert again["changed"] is False and again["removed"] == []   # the rerun: a no-op
    assert writes(engine, play.requests(engine, 2)) == [] and again["summary"].startswith("nothing to collect")


def done(text):
    """Check mode's preview or summary as the real run says it, having done it."""
    return text.replace("to remove", "removed").replace("to destroy", "destroyed").replace("to release", "released")


def _on(world, ident, lb):
    obj = world[ident]
    if obj.get("load_balancer"):
        return obj["load_balancer"]["identifier"] == lb
    parent = world[(obj.get("frontend") or obj.get("backend"))["identifier"]]
    return parent["load_balancer"]["identifier"] == lb


def _never_written(engine, ids):
    touched = [(m, p) for m, p in writes(engine) if any(i in p for i in ids)]
    assert touched == [], touched


def _addresses_of(engine, owner):
    resp = engine.api("GET", "/api/core/v1/resource.json", params={"tag_name": "anxlb-svc=" + owner, "page": 1, "limit": 100})
    if resp.status_code == 422:
        return []
    return [r["identifier"] for r in resp.json()["data"]]


def test_releasing_an_address_a_bind_uses_fails_naming_the_bind_unless_forced(engine, module):
    # set-up, then the release refused in check mode and for real, then forced (the check-mode release is the first
    # check-mode task, as in a play that ran the set-up for real: no earlier predictions)
    release = {"anxcloud.lbaas.ip_address": {"owner": "web", "state": "absent"}}
    ip = module("ip_address", {"pool": POOL, "owner": "web", "family": "v4"})
    assert not ip.failed, ip
    address = ip["addresses"][0]
    run = module_tasks(module, [
        {"anxcloud.lbaas.service": {"name": "web", "load_balancers": ["lb1"], "addresses": [address["address"]],
                                    "ports": [{"name": "http", "port": 8080}], "servers": []}},
        dict(release, check_mode=True), release,
        {"anxcloud.lbaas.ip_address": {"owner": "web", "state": "absent", "force": True}},
    ])
    run = Steps([ip] + run.records)   # indexed as the play's tasks were
    assert not run.failed(0) and not run.failed(1), run
    (bind,) = es.objects(engine, "bind")   # the forced release leaves the bind alone (its writes below)
    for index in (2, 3):
        refused = run[index]
        assert run.failed(index) and refused["msg"] == (
            "address %s is still used by bind 'v4.http.web' (%s) on load balancer lb1: releasing it would hand out an "
            "address a load balancer still serves; remove the bind first, or set force: true"
            % (address["address"], bind["identifier"]))
        assert writes(engine, run.requests(engine, index)) == []
    forced = run[4]
    assert not run.failed(4) and [a["address"] for a in forced["plan"]] == [address["address"]]
    assert warning_texts(forced)[0].endswith("released anyway (force: true)")
    assert forced["addresses"] == [] and writes(engine, run.requests(engine, 4)) == [
        ("DELETE", "/api/ipam/v1/address.json/" + address["id"])]
