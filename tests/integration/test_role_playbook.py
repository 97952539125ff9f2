"""The service_loadbalancer role and playbooks/service_loadbalancer.yml against the local Engine, the
way users run them: --check --diff first (nothing written), then for real, again (nothing changes),
a smaller declaration, and removal; the address comes from the seeded IP pool."""
import os

from . import engine_state as es
from .conftest import ROOT

PLAYBOOK = os.path.join(ROOT, "playbooks", "service_loadbalancer.yml")
VARS = os.path.join(ROOT, "playbooks", "vars")
V4_POOL = "0a11ce11000000000000000000000001"
SEEDED = ["127.0.10.0", "127.0.10.1", "127.0.10.255"]


def pool_addresses(engine):
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": V4_POOL, "page": 1, "limit": 1000})
    resp.raise_for_status()
    return sorted(a["name"] for a in resp.json()["data"]["data"])


def run(ansible, vars_file, **kwargs):
    out = ansible.playbook(PLAYBOOK, extra_args=["-e", "lbaas_vars_file=%s" % os.path.join(VARS, vars_file)], **kwargs)
    assert out.rc == 0, out
    return out


def reconcile(out):
    return out.task("Reconcile demo-web")


def names(engine):
    return sorted(o["name"] for kind in ("backend", "frontend", "bind", "server") for o in es.objects(engine, kind))


def test_the_playbook_previews_applies_reruns_shrinks_and_removes(engine, ansible):
    before = es.snapshot(engine)
    engine.reset_requests()
    check = run(ansible, "service_example.yml", check=True, diff=True)
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before and pool_addresses(engine) == SEEDED
    allocation = check.task("Allocate pool addresses of demo-web")["result"]["results"][0]
    assert allocation["changed"] is True and allocation["addresses"][0]["address"] == "127.0.10.2"
    predicted = reconcile(check)["result"]
    assert predicted["changed"] is True and len(predicted["plan"]) == 2 + 2 + 2 + 4
    assert predicted["status"]["all"] == {"127.0.10.2": [8080, 8081]}

    real = run(ansible, "service_example.yml", diff=True)
    applied = reconcile(real)["result"]
    assert applied["diff"] == predicted["diff"] and applied["plan"] == predicted["plan"]
    assert pool_addresses(engine) == sorted(SEEDED + ["127.0.10.2"])
    assert names(engine) == sorted(["http.demo-web"] * 2 + ["admin.demo-web"] * 2 + [
        "v4.http.demo-web", "v4.admin.demo-web", "node1.http.demo-web", "node2.http.demo-web",
        "node1.admin.demo-web", "node2.admin.demo-web"])
    assert [b["address"] for b in es.objects(engine, "bind")] == ["127.0.10.2", "127.0.10.2"]
    assert all(es.tags(engine, o["identifier"]) == ["anxlb-svc=demo-web"]
               for kind in ("backend", "frontend", "bind", "server") for o in es.objects(engine, kind))
    assert "PLAY RECAP" in real.proc.stdout and "changed=2" in real.proc.stdout

    engine.reset_requests()
    rerun = run(ansible, "service_example.yml")
    assert engine.mutating_requests() == 0 and not any(r["result"].get("changed") for r in rerun.records)
    assert "changed=0" in rerun.proc.stdout

    engine.reset_requests()
    check = run(ansible, "service_example_smaller.yml", check=True, diff=True)
    assert engine.mutating_requests() == 0
    smaller = run(ansible, "service_example_smaller.yml", diff=True)
    assert sorted((a["action"], a["name"]) for a in reconcile(smaller)["result"]["plan"]) == [
        ("delete", "admin.demo-web"), ("delete", "admin.demo-web"), ("delete", "node1.admin.demo-web"),
        ("delete", "node2.admin.demo-web"), ("delete", "node2.http.demo-web"), ("delete", "v4.admin.demo-web")]
    assert reconcile(smaller)["result"]["plan"] == reconcile(check)["result"]["plan"]
    assert names(engine) == ["http.demo-web", "http.demo-web", "node1.http.demo-web", "v4.http.demo-web"]

    engine.reset_requests()
    check = run(ansible, "service_example_absent.yml", check=True, diff=True)
    assert engine.mutating_requests() == 0 and pool_addresses(engine) == sorted(SEEDED + ["127.0.10.2"])
    assert [a["address"] for a in check.task("Release the addresses of demo-web")["result"]["plan"]] == ["127.0.10.2"]
    gone = run(ansible, "service_example_absent.yml", diff=True)
    assert all(a["action"] == "delete" for a in reconcile(gone)["result"]["plan"])
    assert names(engine) == [] and pool_addresses(engine) == SEEDED
    assert es.tags(engine, es.lb_id(engine)) == []   # no lease left, marker removed
    engine.reset_requests()
    again = run(ansible, "service_example_absent.yml")
    assert engine.mutating_requests() == 0 and "changed=0" in again.proc.stdout


def test_the_role_takes_auth_from_module_defaults(engine, ansible):
    service = {"name": "api", "load_balancers": ["lb1", "lb2"], "addresses": ["127.0.10.7"],
               "ports": [{"name": "https", "port": 9443, "target_port": 19443}],
               "servers": [{"name": "n1", "address": "127.0.0.1"}]}
    block = {"block": [{"ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"}}],
             "module_defaults": {"group/anxcloud.lbaas.lbaas": {"api_token": engine.token, "api_url": engine.url}}}
    out = ansible.run(block, token=False, vars={"lbaas_services": [service]})
    assert out.rc == 0, out
    result = out.task("Reconcile api")["result"]
    assert result["changed"] is True and result["status"]["all"] == {"127.0.10.7": [9443]}
    assert sorted(result["objects"]) == ["lb1", "lb2"] and engine.token not in out.proc.stdout
    without = ansible.run({"ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"}},
                          token=False, vars={"lbaas_services": [service]})
    assert without.rc != 0
    assert "missing required arguments: api_token" in without.task("Reconcile api")["result"]["msg"]


def test_the_role_rejects_a_misspelt_service_key_before_touching_anything(engine, ansible):
    engine.reset_requests()
    out = ansible.run({"ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"}},
                      vars={"lbaas_services": [{"name": "x", "load_balancers": ["lb1"], "prots": []}]})
    assert out.rc != 0
    assert "prots" in out.records[-1]["result"]["msg"]
    assert engine.requests()["total"] == 0
