"""The service module against the local Engine: every scenario first in check mode, asserting the
prediction equals what the real run then does, then for real, then a no-op rerun."""
import copy

from . import engine_state as es

SERVICE = {
    "name": "web",
    "load_balancers": ["lb1"],
    "ports": [{"name": "http", "port": 8080, "target_port": 18080}, {"name": "https", "port": 8443, "target_port": 18443}],
    "addresses": ["127.0.10.5"],
    "servers": [{"name": "n1", "address": "127.0.0.1"}, {"name": "n2", "address": "127.0.0.2"}],
}


def task(service):
    return {"anxcloud.lbaas.service": service}


def names(engine, kind):
    return sorted(o["name"] for o in es.objects(engine, kind))


def converge(ansible, engine, service):
    """check (prediction, no writes) -> real (same diff and plan) -> rerun (no change, no writes)."""
    before = es.snapshot(engine)
    engine.reset_requests()
    check = ansible.run(task(service), check=True, diff=True)
    assert not check.failed(), check
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before
    real = ansible.run(task(service), diff=True)
    assert not real.failed(), real
    assert real.last["diff"] == check.last["diff"] and real.last["plan"] == check.last["plan"]
    assert real.last["changed"] == check.last["changed"]
    # what check mode predicted is what the Engine now holds
    assert real.last["diff"]["after"] == ansible.run(task(service), check=True, diff=True).last["diff"]["before"]
    engine.reset_requests()
    rerun = ansible.run(task(service))
    assert not rerun.failed(), rerun
    assert rerun.last["changed"] is False and engine.mutating_requests() == 0
    return check.last, real.last


def test_fresh_create_and_noop_rerun(engine, ansible):
    check, real = converge(ansible, engine, SERVICE)
    assert check["changed"] is True and len(check["plan"]) == 2 + 2 + 2 + 4
    lb1 = check["diff"]["after"]["lb1"]
    assert [b["name"] for b in lb1["backends"]] == ["http.web", "https.web"]
    assert [s["name"] for s in lb1["backends"][0]["servers"]] == ["n1.http.web", "n2.http.web"]
    assert lb1["frontends"][0]["default_backend"] == "http.web"
    assert lb1["frontends"][1]["binds"] == [{"name": "v4.https.web", "address": "127.0.10.5", "port": 8443,
                                             "ssl": False, "ssl_certificate_path": None}]
    assert real["status"] == {"load_balancers": {"lb1": {"127.0.10.5": [8080, 8443]}}, "all": {"127.0.10.5": [8080, 8443]}}
    assert names(engine, "server") == ["n1.http.web", "n1.https.web", "n2.http.web", "n2.https.web"]
    assert all(es.tags(engine, o["identifier"]) == ["anxlb-svc=web"] for o in es.objects(engine, "bind"))


def test_removing_a_port_and_a_node_touches_only_those(engine, ansible):
    converge(ansible, engine, SERVICE)
    kept = dict((o["name"], o["identifier"]) for kind in ("backend", "frontend", "bind", "server")
                for o in es.objects(engine, kind))
    smaller = copy.deepcopy(SERVICE)
    smaller["ports"] = smaller["ports"][1:]
    smaller["servers"] = smaller["servers"][:1]
    check, real = converge(ansible, engine, smaller)
    assert sorted((a["action"], a["name"]) for a in check["plan"]) == [
        ("delete", "http.web"), ("delete", "http.web"), ("delete", "n1.http.web"), ("delete", "n2.http.web"),
        ("delete", "n2.https.web"), ("delete", "v4.http.web")]
    after = dict((o["name"], o["identifier"]) for kind in ("backend", "frontend", "bind", "server")
                 for o in es.objects(engine, kind))
    assert after == dict((n, i) for n, i in kept.items() if n in after) and sorted(after) == [
        "https.web", "n1.https.web", "v4.https.web"]


def test_absent_then_rerun(engine, ansible):
    converge(ansible, engine, SERVICE)
    gone = dict(SERVICE, state="absent")
    check, real = converge(ansible, engine, gone)
    assert check["changed"] is True and all(a["action"] == "delete" for a in check["plan"])
    assert names(engine, "backend") == [] and names(engine, "bind") == []
    assert real["status"] == {"load_balancers": {"lb1": {}}, "all": {}}
