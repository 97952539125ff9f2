"""allow_sources on the service against the local Engine: set, change one network in place, unset; every step
predicted by check mode (which writes nothing: state read back) and equal to the real run, then a no-op rerun;
service_info reports the allow-list; gc removes the ACLs and rules with the service. Each step is a module process
(the ``module`` fixture): the subject is the service module's own plan, idempotence and writes, which the controller
adds nothing to (a check-mode step gets no earlier step's predictions, as the first check-mode task of a play)."""
import copy

from . import engine_state as es
from .conftest import side, sides
from .test_acl_rule_modules import listed, state
from .test_service import objects_of

SERVICE = {"name": "web", "load_balancers": ["lb1"], "addresses": ["127.0.10.5"],
           "ports": [{"name": "http", "port": 8080, "target_port": 18080}],
           "servers": [{"name": "n1", "address": "127.0.0.1"}]}


def everything(engine):
    """Every LBaaS object with its tags, ACLs and rules included."""
    return dict(es.snapshot(engine), **state(engine))


def made(module, name, args, check=False):
    """A module process that must succeed; its ``ModuleResult``."""
    out = module(name, args, check=check)
    assert not out.failed, out
    return out


def converge(engine, module, service):
    """check mode (no write, the Engine's whole state read back after it) -> real (same diff and plan) -> rerun (no
    change, no write) of ``service``; the check-mode and the real results."""
    engine.reset_requests()
    before = engine.dump()
    checked = module("service", service, check=True, diff=True)
    assert not checked.failed, checked
    assert checked.writes(engine) == 0 and engine.dump() == before
    check = checked.result
    applied, again = module("service", service, diff=True), module("service", service, diff=True)
    assert not applied.failed and not again.failed, (applied, again)
    real, rerun = applied.result, again.result
    assert sides(real) == sides(check) and real["plan"] == check["plan"] and real["changed"] == check["changed"]
    for lb, predicted in side(real, "after").items():
        assert side(rerun, "before").get(lb, {}) == predicted, lb
    assert rerun["changed"] is False and again.writes(engine) == 0
    return check, real


def rules(engine):
    """name -> (action, index, the value of the ACL it names) under frontend http.web."""
    acls = listed(engine, "acl")
    return dict((name, (r["action"], r["index"], acls[r["condition_test"]]["value"]))
                for name, r in listed(engine, "rule").items())


def test_set_change_unset_and_gc(engine, module):
    on = dict(copy.deepcopy(SERVICE), allow_sources=["127.0.0.5", "10.0.0.0/8", "10.0.0.0/8", "2001:db8::/32"])
    changed = dict(on, allow_sources=["127.0.0.5/32", "10.0.0.0/8", "2001:db8:1::/48"])
    opened = dict(changed, ports=[dict(SERVICE["ports"][0], allow_sources=[])])
    made(module, "service", SERVICE)
    ids = set(es.snapshot(engine))

    # set: per network an ACL and an accept rule, then the reject rules of both families
    check, real = converge(engine, module, on)
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
    check, _real = converge(engine, module, changed)
    assert sorted((p["action"], p["type"], p["name"]) for p in objects_of(check)) == [
        ("create", "acl", "allow-2001-db8-1--_48.http.web"), ("create", "rule", "allow-2001-db8-1--_48.http.web"),
        ("delete", "acl", "allow-2001-db8--_32.http.web"), ("delete", "rule", "allow-2001-db8--_32.http.web")]

    info = made(module, "service_info", {})
    assert info["services"][0]["allow_sources"] == {
        "lb1": {"http.web": ["10.0.0.0/8", "127.0.0.5/32", "2001:db8:1::/48"]}}

    # a port's own empty list opens that port
    check, _real = converge(engine, module, opened)
    assert set(p["action"] for p in objects_of(check)) == {"delete"} and listed(engine, "acl") == {}

    # back on, then unset: every ACL and rule goes, the rest stays as it was
    converge(engine, module, changed)
    check, _real = converge(engine, module, SERVICE)
    assert len(objects_of(check)) == 10 and listed(engine, "acl") == {} and listed(engine, "rule") == {}
    assert set(es.snapshot(engine)) == ids


def test_gc_removes_the_acls_and_rules_with_the_service(engine, module):
    api = dict(copy.deepcopy(SERVICE), name="api", addresses=["127.0.10.6"])
    on = dict(copy.deepcopy(SERVICE), allow_sources=["127.0.0.5", "2001:db8::/32"])
    made(module, "service", api)
    made(module, "service", on)
    assert len(listed(engine, "rule")) == 4
    before = everything(engine)
    engine.reset_requests()
    check = made(module, "gc", {"keep": ["api"]}, check=True)
    assert check.writes(engine) == 0 and everything(engine) == before
    assert sorted(r["type"] for r in check["removed"] if r["type"] in ("acl", "rule")) == ["acl"] * 4 + ["rule"] * 4
    made(module, "gc", {"keep": ["api"]})
    again = made(module, "gc", {"keep": ["api"]})
    assert listed(engine, "acl") == {} and listed(engine, "rule") == {}
    assert sorted(f["name"] for f in es.objects(engine, "frontend")) == ["http.api"]
    assert again["changed"] is False


def acl_listings(step, engine):
    """The ACL and rule requests the module process ``step`` sent."""
    return [e for e in step.requests(engine) if "/ACL.json" in e["path"] or "/rule.json" in e["path"]]


def test_a_port_without_allow_sources_lists_acls_only_until_a_run_has_removed_them(engine, module):
    """A port with no allow_sources skips its frontend's ACL and rule listings only when the load balancer's
    marker says the last writing run declared none there either (that run deleted what it found). A run that
    failed before its deletes were done leaves the marker as it was: the next run lists and removes them."""
    grown = dict(SERVICE, servers=SERVICE["servers"] + [{"name": "n2", "address": "127.0.0.2"}])
    made(module, "service", dict(SERVICE, allow_sources=["10.0.0.0/8"]))
    engine.set_faults({"script": [{"method": "DELETE", "path": "/api/LBaaS/v1/rule.json", "status": 503, "count": 100}]})
    failed = module("service", dict(SERVICE, api_retries=0))
    assert failed.failed and acl_listings(failed, engine), failed
    assert "allow-10-0-0-0_8.http.web" in listed(engine, "rule") and listed(engine, "acl")   # nothing deleted yet
    engine.clear_faults()
    removed = made(module, "service", SERVICE)
    assert removed["changed"] is True and acl_listings(removed, engine)
    assert listed(engine, "acl") == {} and listed(engine, "rule") == {}
    # the marker now says "open" (no allow-list in that declaration): neither a rerun nor another declaration
    # without allow_sources lists them
    rerun, other = made(module, "service", SERVICE), made(module, "service", grown)
    assert rerun["changed"] is False and acl_listings(rerun, engine) == []
    assert other["changed"] is True and acl_listings(other, engine) == []
    (marker,) = [t for t in es.tags(engine, es.lb_id(engine)) if t.startswith("anxlb-reconciled.web=")]
    assert marker.endswith(",open"), marker
