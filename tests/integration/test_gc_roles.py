"""The end of the lifecycle through the roles and playbooks, as users run them: two pool-backed services whose
check-mode addresses are the ones the real run gets; the live set going from [shop, api] to [shop] with
playbooks/garbage_collection.yml (--check --diff first) and service_info before and after; a dropped family
and an absent service without address_pool leaving no address behind; lbaas_prune."""
import os

import yaml

from . import engine_state as es
from .conftest import ROOT

SERVICES = os.path.join(ROOT, "playbooks", "service_loadbalancer.yml")
GC = os.path.join(ROOT, "playbooks", "garbage_collection.yml")
POOL = ["anxlb-pool=demo"]
V4, V6 = "0a11ce11000000000000000000000001", "0a11ce11000000000000000000000002"
SHOP = {"name": "shop", "load_balancers": ["lb1", "lb2"], "address_pool": POOL,
        "ports": [{"name": "http", "port": 8080, "target_port": 18080}], "servers": [{"name": "n1", "address": "127.0.0.1"}]}
API = {"name": "api", "load_balancers": ["lb1", "lb2"], "address_pool": POOL,
       "ports": [{"name": "grpc", "port": 9090}], "servers": [{"name": "n1", "address": "127.0.0.3"}]}


def live(path, services, extra=None):
    """Writes ``services`` (and the variables ``extra``) to the vars file ``path``."""
    path.write_text(yaml.safe_dump(dict({"lbaas_services": services}, **(extra or {})), sort_keys=False))


def playbook(ansible, tmp_path, path, services, check=False, diff=False, extra=None):
    """Runs playbook ``path`` with ``services`` in a vars file, by an ansible-playbook process of its own (each
    --check pass needs one: check mode's predictions last for the rest of a run)."""
    vars_file = tmp_path / ("vars%d.yml" % ansible.count)
    live(vars_file, services, extra)
    args = (["--check"] if check else []) + (["--diff"] if diff else [])
    out = ansible.playbook(path, extra_args=args + ["-e", "lbaas_vars_file=%s" % vars_file])
    assert out.rc == 0, out
    return out


class Passes:
    """The real passes of a test: the playbooks ``paths`` by one ansible-playbook process, played one at a time
    (``Ansible.playbooks``), each with -e lbaas_vars_file=FILE; ``next(services)`` writes FILE before the pass (the
    playbook reads it when its play runs). Variables a pass's file sets stay set for the passes after it."""

    def __init__(self, ansible, tmp_path, paths, diff=False):
        self.path = tmp_path / "passes.yml"
        self.session = ansible.playbooks(paths, extra_args=(["--diff"] if diff else []) + [
            "-e", "lbaas_vars_file=%s" % self.path])

    def next(self, services=None, extra=None):
        if services is not None:
            live(self.path, services, extra)
        out = self.session.next()
        assert out.rc in (None, 0) and out.records and not [r for r in out.records if r["status"] == "failed"], out
        return out


def inventory_playbook(tmp_path):
    """A playbook with one task, service_info, named Inventory."""
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump([{"hosts": "localhost", "gather_facts": False,
                                     "tasks": [{"name": "Inventory", "anxcloud.lbaas.service_info": {}}]}]))
    return str(path)


def results(out):
    """The fact service_loadbalancer_results as the role left it."""
    facts = [r["result"]["ansible_facts"] for r in out.records if r["task"] == "Gather the results of this run"]
    return facts[-1]["service_loadbalancer_results"]


def inventory(out, engine):
    """The services service_info listed in the Inventory task of ``out``, which wrote nothing."""
    record = out.task("Inventory")
    assert record["status"] == "ok", out
    assert [e for e in engine.requests()["log"] if record["start"] <= e["start"] and e["end"] <= record["end"]
            and e["method"] in ("POST", "PUT", "PATCH", "DELETE")] == []
    return dict((s["name"], s) for s in record["result"]["services"])


def pool(engine, prefix=V4):
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": prefix, "page": 1, "limit": 1000})
    resp.raise_for_status()
    return sorted(a["name"] for a in resp.json()["data"]["data"] if a.get("description_customer"))


def owned(engine, owner):
    """The owner's LBaaS objects: carrying its tag, or a bind or server inside a parent carrying it (containment)."""
    world = es.snapshot(engine)

    def tags(o):
        link = o.get("frontend") or o.get("backend")
        parent = world.get(link["identifier"] if isinstance(link, dict) else link) if link else None
        return o["tags"] if any("-svc=" in t for t in o["tags"]) or parent is None else parent["tags"]
    return dict((i, o) for i, o in world.items() if "anxlb-svc=%s" % owner in tags(o))


def writes(engine):
    return [(e["method"], e["path"]) for e in engine.requests()["log"] if e["method"] in ("POST", "PUT", "DELETE")]


def test_from_shop_and_api_to_shop_with_distinct_predicted_addresses_and_the_inventory(engine, ansible, tmp_path):
    # the real passes by one ansible-playbook process: the services, service_info, gc, service_info, gc again
    inventory_play = inventory_playbook(tmp_path)
    passes = Passes(ansible, tmp_path, [SERVICES, inventory_play, GC, inventory_play, GC], diff=True)
    # Two pool-backed services: check mode predicts the addresses the real run then gets, and the fact carries them.
    engine.reset_requests()
    check = playbook(ansible, tmp_path, SERVICES, [SHOP, API], check=True, diff=True)
    assert writes(engine) == []
    predicted = results(check)
    assert predicted["shop"]["addresses"] == ["127.0.10.2"] and predicted["api"]["addresses"] == ["127.0.10.3"]
    # for real, then the inventory gc users check first (service_info)
    real = passes.next([SHOP, API])
    got = results(real)
    assert dict((n, r["addresses"]) for n, r in got.items()) == dict((n, r["addresses"]) for n, r in predicted.items())
    assert got["api"] == {"state": "present", "load_balancers": ["lb1", "lb2"], "addresses": ["127.0.10.3"],
                          "released": [], "changed": True, "summary": got["api"]["summary"], "status": {
                              "load_balancers": {"lb1": {"127.0.10.3": [9090]}, "lb2": {"127.0.10.3": [9090]}},
                              "all": {"127.0.10.3": [9090]}}}
    assert got["api"]["summary"] == "lb1: 4 added, 0 changed, 0 destroyed; lb2: 4 added, 0 changed, 0 destroyed"
    assert pool(engine) == ["127.0.10.2", "127.0.10.3"]

    # The inventory.
    before = inventory(passes.next(), engine)
    assert sorted(before) == ["api", "shop"]
    api = before["api"]
    assert api["load_balancers"] == ["lb1", "lb2"] and api["addresses"] == ["127.0.10.3"] and api["ports"] == [9090]
    assert [a["address"] for a in api["allocated"]] == ["127.0.10.3"] and api["not_ok"] == [] and api["orphans"] == 0
    assert api["objects"] == {lb: {"backends": 1, "frontends": 1, "binds": 1, "servers": 1, "acls": 0, "rules": 0} for lb in ("lb1", "lb2")}
    assert sorted(api["markers"]) == ["lb1", "lb2"] and api["markers"]["lb1"][0]["scheme"] == 1
    assert api["lease_held"] is False and api["leases"] == []

    # The live set shrinks to [shop]: --check --diff lists exactly api's objects and address, and writes nothing.
    api_objects = owned(engine, "api")
    shop_objects = owned(engine, "shop")
    snapshot = es.snapshot(engine)
    engine.reset_requests()
    preview = playbook(ansible, tmp_path, GC, [SHOP], check=True, diff=True)
    assert writes(engine) == [] and es.snapshot(engine) == snapshot
    planned = preview.task("Collect services not in the live set")["result"]
    assert sorted(r["id"] for r in planned["removed"] if r["type"] not in ("marker", "address")) == sorted(api_objects)
    assert [(r["name"], r["prefix"]) for r in planned["removed"] if r["type"] == "address"] == [("127.0.10.3", "127.0.10.0/24")]
    assert sorted(r["load_balancer"] for r in planned["removed"] if r["type"] == "marker") == ["lb1", "lb2"]
    assert set(r["owner"] for r in planned["removed"]) == {"api"} and planned["kept"] == {"shop": 5}   # tag carriers: 2 backends, 2 frontends, 1 address
    shown = planned["diff"]["prepared"].splitlines()
    assert shown[0] == "owner 'api' is not in the live set: 9 to remove (and its markers on lb1, lb2)" and len(shown) == 10
    assert "  - pool 127.0.10.0/24: address 127.0.10.3" in shown and "  - lb2: bind v4.grpc.api" in shown
    # with --diff the role's report leaves the objects to the diff
    report = preview.task("Report what goes, per load balancer and pool")["result"]["msg"]
    assert report == ["summary: lb1: 4 to destroy; lb2: 4 to destroy; 127.0.10.0/24: 1 to release | owners "
                      "collected: api | kept: 1 owner(s) | skipped: nothing"], report

    # The real run removes exactly those, and writes nothing of shop's.
    engine.reset_requests()
    done = passes.next([SHOP])
    removed = done.task("Collect services not in the live set")["result"]
    assert removed["removed"] == planned["removed"]
    assert removed["diff"]["prepared"] == planned["diff"]["prepared"].replace("to remove", "removed")
    assert removed["summary"].startswith("lb1: 4 destroyed; lb2: 4 destroyed; 127.0.10.0/24: 1 released | owners")
    assert owned(engine, "api") == {} and owned(engine, "shop") == shop_objects and pool(engine) == ["127.0.10.2"]
    assert not [w for w in writes(engine) if any(i in w[1] for i in shop_objects)]
    after = inventory(passes.next(), engine)   # then service_info
    assert sorted(after) == ["shop"] and after["shop"] == before["shop"]

    # Again: nothing left to collect, nothing written.
    engine.reset_requests()
    again = passes.next([SHOP])
    assert again.task("Collect services not in the live set")["result"]["changed"] is False and writes(engine) == []


def test_a_dropped_family_and_an_absent_service_without_its_pool_leave_no_address_and_prune_collects(
        engine, ansible, module, tmp_path):
    passes = Passes(ansible, tmp_path, [SERVICES] * 4)   # the real passes by one ansible-playbook process
    web = {"name": "web", "load_balancers": ["lb1"], "address_pool": POOL, "address_families": ["v4", "v6"],
           "ports": [{"name": "http", "port": 8080, "target_port": 18080}], "servers": [{"name": "n1", "address": "127.0.0.1"}]}
    out = passes.next([web])
    assert sorted(results(out)["web"]["addresses"]) == ["127.0.10.2", "fd00:10::2"]
    assert pool(engine, V6) == ["fd00:10::2"]
    # both families declared: no family dropped, so no release task runs and the summary says nothing of one
    assert [r["status"] for r in out.records if r["task"].startswith("Release the addresses")] in ([], ["skipped"])
    lines = out.task("Summary of web")["result"]["msg"]
    assert lines[2:4] == ["addresses: 127.0.10.2, fd00:10::2", "listening: 127.0.10.2:8080, [fd00:10::2]:8080"]
    assert not [line for line in lines if "release" in line]

    # v6 no longer declared: its bind goes and so does its address (check mode first: predicted, nothing written).
    v4_only = dict(web, address_families=["v4"])
    engine.reset_requests()
    check = playbook(ansible, tmp_path, SERVICES, [v4_only], check=True)
    assert writes(engine) == [] and results(check)["web"]["released"] == ["fd00:10::2"]
    out = passes.next([v4_only])
    assert results(out)["web"]["released"] == ["fd00:10::2"] and results(out)["web"]["addresses"] == ["127.0.10.2"]
    assert "released: fd00:10::2" in out.task("Summary of web")["result"]["msg"]
    assert pool(engine, V6) == [] and pool(engine, V4) == ["127.0.10.2"]
    assert sorted(b["address"] for b in es.objects(engine, "bind")) == ["127.0.10.2"]

    # absent, without repeating address_pool: the v4 address goes too.
    gone = {"name": "web", "load_balancers": ["lb1"], "state": "absent"}
    engine.reset_requests()
    check = playbook(ansible, tmp_path, SERVICES, [gone], check=True)
    assert writes(engine) == [] and results(check)["web"]["released"] == ["127.0.10.2"]
    # for real; then a service made outside the role's list, by a module process (set-up for lbaas_prune below:
    # it is collected after the declared ones)
    out = passes.next([gone])
    legacy = module("service", {"name": "legacy", "load_balancers": ["lb2"], "addresses": ["127.0.10.77"],
                                "ports": [{"name": "http", "port": 8088}], "servers": [{"name": "n1", "address": "127.0.0.1"}]})
    assert not legacy.failed, legacy
    assert results(out)["web"]["released"] == ["127.0.10.2"] and pool(engine, V4) == [] and owned(engine, "web") == {}

    # lbaas_prune
    engine.reset_requests()
    check = playbook(ansible, tmp_path, SERVICES, [dict(SHOP, load_balancers=["lb1"])], check=True,
                     extra={"lbaas_prune": True})
    assert writes(engine) == []
    predicted = check.task("Collect services not in lbaas_services")["result"]
    assert sorted(r["name"] for r in predicted["removed"] if r["type"] != "marker") == [
        "http.legacy", "http.legacy", "n1.http.legacy", "v4.http.legacy"]
    out = passes.next([dict(SHOP, load_balancers=["lb1"])], extra={"lbaas_prune": True})
    assert out.task("Collect services not in lbaas_services")["result"]["removed"] == predicted["removed"]
    assert owned(engine, "legacy") == {} and len(owned(engine, "shop")) == 4
