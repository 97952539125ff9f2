"""allow_sources on the service against the local Engine, with real ansible-playbook runs: set, change one
network in place, unset; every step predicted by check mode (which writes nothing: state read back) and
equal to the real run, then a no-op rerun; service_info reports the allow-list; gc removes the ACLs and
rules with the service."""
import copy

from . import engine_state as es
from .conftest import side, sides
from .test_acl_rule_modules import listed, state
from .test_service import objects_of

SERVICE = {"name": "web", "load_balancers": ["lb1"], "addresses": ["127.0.10.5"],
           "ports": [{"name": "http", "port": 8080, "target_port": 18080}],
           "servers": [{"name": "n1", "address": "127.0.0.1"}]}


def task(service):
    return {"anxcloud.lbaas.service": service}


def everything(engine):
    """Every LBaaS object with its tags, ACLs and rules included."""
    return dict(es.snapshot(engine), **state(engine))


def converge_plays(service):
    """The plays of a converge: check mode, then real and rerun, of ``service``."""
    return [([task(service)], {"check_mode": True, "diff": True}), ([task(service), task(service)], {"diff": True})]


def converge_next(engine, plays):
    """The next converge_plays of the session ``plays``: check mode (no write, the Engine's whole state read back
    after its play) -> real (same diff and plan) -> rerun (no change, no write)."""
    engine.reset_requests()
    before = engine.dump()
    checked = plays.next()
    assert not checked.failed(), checked
    assert checked.writes(engine, 0) == 0 and engine.dump() == before
    check = checked[0]
    play = plays.next()
    assert not play.failed(0) and not play.failed(1), play
    real, rerun = play[0], play[1]
    assert sides(real) == sides(check) and real["plan"] == check["plan"] and real["changed"] == check["changed"]
    for lb, predicted in side(real, "after").items():
        assert side(rerun, "before").get(lb, {}) == predicted, lb
    assert rerun["changed"] is False and play.writes(engine, 1) == 0
    return check, real


def rules(engine):
    """name -> (action, index, the value of the ACL it names) under frontend http.web."""
    acls = listed(engine, "acl")
    return dict((name, (r["action"], r["index"], acls[r["condition_test"]]["value"]))
                for name, r in listed(engine, "rule").items())


def test_set_change_unset_and_gc(engine, ansible):
    on = dict(copy.deepcopy(SERVICE), allow_sources=["127.0.0.5", "10.0.0.0/8", "10.0.0.0/8", "2001:db8::/32"])
    changed = dict(on, allow_sources=["127.0.0.5/32", "10.0.0.0/8", "2001:db8:1::/48"])
    opened = dict(changed, ports=[dict(SERVICE["ports"][0], allow_sources=[])])
    plays = ansible.session([([task(SERVICE)], {})] + converge_plays(on) + converge_plays(changed)
                            + [([{"anxcloud.lbaas.service_info": {}}], {})] + converge_plays(opened)
                            + converge_plays(changed) + converge_plays(SERVICE))
    assert not plays.next().failed()
    ids = set(es.snapshot(engine))

    # set: per network an ACL and an accept rule, then the reject rules of both families
    check, real = converge_next(engine, plays)
    assert check["summary"] == "lb1: 10 to add, 0 to change, 0 to destroy"
    assert rules(engine) == {"allow-10-0-0-0_8.http.web": ("accept", 0, "10.0.0.0/8"),
                             "allow-127-0-0-5_32.http.web": ("accept", 0, "127.0.0.5/32"),
                             "allow-2001-db8--_32.http.web": ("accept", 0, "2001:db8::/32"),
                             "deny-v4.http.web": ("reject", 1, "0.0.0.0/0"), "deny-v6.http.web": ("reject", 1, "::/0")}
    group = side(real, "after")["lb1"]["http.web"]
    assert list(group["rules"])[-2:] == ["deny-v4.http.web", "deny-v6.http.web"]
    assert all("owner" not in r for r in list(group["acls"].values()) + list(group["rules"].values()))   # the service's
    # ours by containment: no owner tag on an ACL or a rule, nothing else written
    assert all(not v["tags"] for k, v in state(engine).items())
    assert ids <= set(es.snapshot(engine))

    # change one network: only that network's ACL and rule are created and deleted
    check, _real = converge_next(engine, plays)
    assert sorted((p["action"], p["type"], p["name"]) for p in objects_of(check)) == [
        ("create", "acl", "allow-2001-db8-1--_48.http.web"), ("create", "rule", "allow-2001-db8-1--_48.http.web"),
        ("delete", "acl", "allow-2001-db8--_32.http.web"), ("delete", "rule", "allow-2001-db8--_32.http.web")]

    info = plays.next()
    assert not info.failed(), info
    assert info.last["services"][0]["allow_sources"] == {
        "lb1": {"http.web": ["10.0.0.0/8", "127.0.0.5/32", "2001:db8:1::/48"]}}

    # a port's own empty list opens that port
    check, _real = converge_next(engine, plays)
    assert set(p["action"] for p in objects_of(check)) == {"delete"} and listed(engine, "acl") == {}

    # back on, then unset: every ACL and rule goes, the rest stays as it was
    converge_next(engine, plays)
    check, _real = converge_next(engine, plays)
    assert len(objects_of(check)) == 10 and listed(engine, "acl") == {} and listed(engine, "rule") == {}
    assert set(es.snapshot(engine)) == ids


def test_gc_removes_the_acls_and_rules_with_the_service(engine, ansible):
    api = dict(copy.deepcopy(SERVICE), name="api", addresses=["127.0.10.6"])
    on = dict(copy.deepcopy(SERVICE), allow_sources=["127.0.0.5", "2001:db8::/32"])
    gc = {"anxcloud.lbaas.gc": {"keep": ["api"]}}
    plays = ansible.session([([task(api), task(on)], {}), ([dict(gc, check_mode=True)], {}), ([gc, gc], {})])
    assert not plays.next().failed()
    assert len(listed(engine, "rule")) == 4
    before = everything(engine)
    engine.reset_requests()
    play = plays.next()
    assert not play.failed(), play
    assert play.writes(engine, 0) == 0 and everything(engine) == before
    assert sorted(r["type"] for r in play[0]["removed"] if r["type"] in ("acl", "rule")) == ["acl"] * 4 + ["rule"] * 4
    play = plays.next()
    assert not play.failed(0) and not play.failed(1), play
    assert listed(engine, "acl") == {} and listed(engine, "rule") == {}
    assert sorted(f["name"] for f in es.objects(engine, "frontend")) == ["http.api"]
    assert play[1]["changed"] is False


def acl_listings(play, engine, index):
    return [e for e in play.requests(engine, index) if "/ACL.json" in e["path"] or "/rule.json" in e["path"]]


def test_a_port_without_allow_sources_lists_acls_only_until_a_run_has_removed_them(engine, ansible):
    """A port with no allow_sources skips its frontend's ACL and rule listings only when the load balancer's
    marker says the last writing run declared none there either (that run deleted what it found). A run that
    failed before its deletes were done leaves the marker as it was: the next run lists and removes them."""
    grown = dict(SERVICE, servers=SERVICE["servers"] + [{"name": "n2", "address": "127.0.0.2"}])
    plays = ansible.session([([task(dict(SERVICE, allow_sources=["10.0.0.0/8"]))], {}),
                             ([dict(task(dict(SERVICE, api_retries=0)), ignore_errors=True)], {}),
                             ([task(SERVICE), task(SERVICE), task(grown)], {})])
    assert not plays.next().failed()
    engine.set_faults({"script": [{"method": "DELETE", "path": "/api/LBaaS/v1/rule.json", "status": 503, "count": 100}]})
    play = plays.next()
    assert play.failed(0) and acl_listings(play, engine, 0), play
    assert "allow-10-0-0-0_8.http.web" in listed(engine, "rule") and listed(engine, "acl")   # nothing deleted yet
    engine.clear_faults()
    play = plays.next()
    assert not any(play.failed(i) for i in range(3)), play
    assert play[0]["changed"] is True and acl_listings(play, engine, 0)
    assert listed(engine, "acl") == {} and listed(engine, "rule") == {}
    # the marker now says "open" (no allow-list in that declaration): neither a rerun nor another declaration
    # without allow_sources lists them
    assert play[1]["changed"] is False and acl_listings(play, engine, 1) == []
    assert play[2]["changed"] is True and acl_listings(play, engine, 2) == []
    (marker,) = [t for t in es.tags(engine, es.lb_id(engine)) if t.startswith("anxlb-reconciled.web=")]
    assert marker.endswith(",open"), marker
