"""Live sets that cannot be empty by accident, and owners nobody declares any more (issue 18, points 1 and 3).

Four live services (web, shop, api, pg) and an ip_address owner that is no service (reserved) on the local
Engine. An empty, unset or misspelt ``lbaas_services`` with ``lbaas_prune`` stops the role before its first
request; gc refuses a live set that keeps none of the owners found (collect_all), warns about a keep name that
matches no owner and refuses it with strict_keep. The request log shows no write and every service reads back
intact. Then pg is renamed postgres: the role names pg, with the address it still listens on, in a warning and
in its result, in check mode and for real; its prune with lbaas_keep_owners keeps reserved; collect_all works."""
import os

import yaml
from localengine.testing import MUTATING

from . import engine_state as es
from .conftest import ROOT, sent, warning_texts

PLAYBOOK = os.path.join(ROOT, "playbooks", "service_loadbalancer.yml")
POOL = ["anxlb-pool=demo"]
V4 = "0a11ce11000000000000000000000001"
OWNERS = ("web", "shop", "api", "pg")


def declaration(name, lbs, address, port, port_name="http"):
    return {"name": name, "load_balancers": lbs, "addresses": [address],
            "ports": [{"name": port_name, "port": port}], "servers": [{"name": "n1", "address": "127.0.0.1"}]}


WEB = declaration("web", ["lb1"], "127.0.10.50", 8080)
SHOP = declaration("shop", ["lb1", "lb2"], "127.0.10.51", 8081)
API = declaration("api", ["lb2"], "127.0.10.52", 9090)
PG = declaration("pg", ["lb1"], "127.0.10.3", 6432, port_name="pg")
POSTGRES = dict(PG, name="postgres", addresses=["127.0.10.4"])


def setup(module):
    """reserved holds a pool address (127.0.10.2) and is no service; the four services carry the prefix's tags.
    Made by module processes: the set-up is not what these tests are about (the controller is, after it)."""
    reserved = module("ip_address", {"pool": POOL, "owner": "reserved", "family": "v4"})
    assert not reserved.failed and reserved["addresses"][0]["address"] == "127.0.10.2", reserved
    for declared in (WEB, SHOP, API, PG):
        made = module("service", declared)
        assert not made.failed, made


def pool(engine):
    """The addresses of the v4 pool that something allocated (those with a customer description)."""
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": V4, "page": 1, "limit": 1000})
    resp.raise_for_status()
    return sorted(a["name"] for a in resp.json()["data"]["data"] if a.get("description_customer"))


def owned(engine, owner):
    return dict((i, o) for i, o in es.snapshot(engine).items() if "anxlb-svc=%s" % owner in o["tags"])


def writes(engine):
    return [(e["method"], e["path"]) for e in engine.requests()["log"] if e["method"] in MUTATING]


def role(name, check=False, **variables):
    """include_role of anxcloud.lbaas.<name> with ``variables``; a failure is rescued, so the play goes on."""
    task = {"ansible.builtin.include_role": dict({"name": "anxcloud.lbaas.%s" % name},
                                                 **({"apply": {"check_mode": True}} if check else {})),
            "vars": variables}
    return {"block": [task], "rescue": [{"name": "Rescued", "ansible.builtin.debug": {"msg": "refused"}}]}


def gc(module, check=False, **options):
    """The gc module as its own process (its refusals, warnings and plans are the module's own: no controller needed)."""
    return module("gc", options, check=check)


def records(out, name):
    """The records of the task ``name`` that ran (not skipped)."""
    return [r for r in out.records if r["task"] == name and r["status"] != "skipped"]


def test_empty_unset_or_misspelt_live_sets_are_refused_before_any_write(engine, ansible, module, tmp_path):
    setup(module)
    before = es.snapshot(engine)
    services = dict((o, owned(engine, o)) for o in OWNERS)
    assert all(services.values()) and pool(engine) == ["127.0.10.2"]
    engine.reset_requests()
    out = ansible.run([
        role("service_loadbalancer", lbaas_services=[], lbaas_prune=True),
        role("service_loadbalancer", lbaas_service=[WEB, SHOP, API, PG], lbaas_prune=True),
        role("service_loadbalancer", lbaas_servics=[WEB, SHOP, API, PG], lbaas_services_list=[WEB], lbaas_prune=True),
        # the garbage_collection role: strict_keep by default (the extra owner by the old name of lbaas_keep_owners);
        # lbaas_services unset
        role("garbage_collection", lbaas_services=[{"name": n} for n in ("web", "shop", "apii", "pg")],
             garbage_collection_keep=["reserved"]),
        role("garbage_collection", lbaas_service=[{"name": "web"}]),
    ])
    assert out.rc == 0, out
    # gc with strict_keep: false: a typo in keep, in check mode, is warned about, and the plan shows what it would
    # cost (api)
    typo = gc(module, check=True, keep=["web", "shop", "apii", "pg", "reserved"], strict_keep=False)
    # for real, a name that matches nothing while every owner is kept: a warning, nothing written
    ghost = gc(module, keep=["web", "shop", "api", "pg", "reserved", "ghost"], strict_keep=False)
    # strict_keep (the default): the typo fails before any write
    strict = gc(module, keep=["web", "shop", "apii", "pg", "reserved"])
    # a live set that keeps none of the owners found: empty, or every name misspelt (in check mode too)
    empty = gc(module, keep=[])
    misspelt = gc(module, check=True, keep=["wbe", "shpo"], strict_keep=False)

    # Nothing was written, and everything reads back as it was.
    assert writes(engine) == [] and es.snapshot(engine) == before
    assert dict((o, owned(engine, o)) for o in services) == services and pool(engine) == ["127.0.10.2"]

    refusals = [r["result"]["msg"] for r in records(out, "Check that lbaas_services declares services")]
    assert refusals == [
        "lbaas_services is empty: the role needs the services to reconcile, and lbaas_prune would collect every service "
        "of tag prefix anxlb. Nothing was sent to the Engine."]
    # a misspelt lbaas_services is a variable neither role knows: named first, with the one it means (issue 43)
    unknown = [r["result"]["msg"].split(": the lbaas_ variables are ")[0]
               for r in records(out, "Check the lbaas_ variables") if r["status"] == "failed"]
    assert unknown == ["Unknown variable lbaas_service (did you mean lbaas_services?)",
                       "Unknown variables lbaas_services_list (did you mean lbaas_services?), lbaas_servics (did you "
                       "mean lbaas_services?)",
                       "Unknown variable lbaas_service (did you mean lbaas_services?)"]
    # not one of the role's other tasks ran
    assert not records(out, "Validate each service declaration") and len(records(out, "Rescued")) == 5

    assert not typo.failed and typo["keep_unmatched"] == ["apii"], typo
    assert warning_texts(typo.result) == [
        "keep names owner(s) that tag prefix 'anxlb' does not have: apii (did you mean api?); if a name is misspelt, "
        "the owner it meant is collected"]
    assert set(r["owner"] for r in typo["removed"]) == {"api"}
    assert not ghost.failed and ghost["changed"] is False and ghost["removed"] == [], ghost
    assert ghost["keep_unmatched"] == ["ghost"] and "ghost" in warning_texts(ghost.result)[0]
    assert strict["keep_unmatched"] == ["apii"]
    assert strict.message().startswith("keep names owner(s) that tag prefix 'anxlb' does not have: apii (did you mean api?)")
    assert "Nothing was deleted (strict_keep: true, the default)" in strict.message()
    assert empty.message() == (
        "gc would collect every owner of tag prefix 'anxlb' it found (api, pg, reserved, shop, web): keep is empty. "
        "Nothing was deleted. Check the live set (keep); to collect every owner, set collect_all: true")
    assert misspelt["removed"] == []
    assert "keep names none of them (shpo, wbe match no owner)" in misspelt.message()
    assert "shpo (did you mean shop?), wbe (did you mean web?)" in warning_texts(misspelt.result)[0]

    (gc_strict,) = [r for r in out.records if r["task"] in ("Collect services not in the live set", "Check the live set")
                    and r["status"] == "failed"]
    assert gc_strict["task"] == "Collect services not in the live set" and gc_strict["result"]["keep_unmatched"] == ["apii"]

    # The playbook with a vars file whose variable is misspelt: named, nothing sent.
    vars_file = tmp_path / "services.yml"
    vars_file.write_text(yaml.safe_dump({"lbaas_service": [WEB], "lbaas_prune": True}))
    engine.reset_requests()
    out = ansible.playbook(PLAYBOOK, extra_args=["-e", "lbaas_vars_file=%s" % vars_file])
    assert out.rc != 0 and out.records[-1]["result"]["msg"] == (
        "No services: give a vars file that sets lbaas_services with -e lbaas_vars_file=FILE (or -e @FILE). "
        "Similarly named variables: lbaas_service.")
    assert engine.requests()["total"] == 0


def test_a_renamed_service_is_named_with_its_address_and_prune_keeps_the_extra_live_owners(engine, ansible, module):
    setup(module)
    renamed = [WEB, SHOP, API, POSTGRES]
    # the first two runs leave api out as well: two owners not declared, named in a warning each
    engine.reset_requests()
    out = ansible.run([
        role("service_loadbalancer", check=True, lbaas_services=[WEB, SHOP, POSTGRES], lbaas_keep_owners=["reserved"]),
        role("service_loadbalancer", lbaas_services=[WEB, SHOP, POSTGRES], lbaas_keep_owners=["reserved"]),
        # the prune's variables by their names shared with garbage_collection, then by their old names
        role("service_loadbalancer", check=True, lbaas_services=renamed, lbaas_keep_owners=["reserved"], lbaas_prune=True,
             lbaas_max_delete=40, lbaas_strict_keep=True),
        role("service_loadbalancer", lbaas_services=renamed, lbaas_keep_owners=["reserved"], lbaas_prune=True,
             lbaas_prune_max_delete=30, lbaas_prune_min_age=0),
        # the garbage_collection role keeps reserved through lbaas_keep_owners too (without it, its address goes)
        role("garbage_collection", check=True, lbaas_services=renamed, lbaas_keep_owners=["reserved"],
             garbage_collection_max_delete=20),
    ])
    assert out.rc == 0 and not records(out, "Rescued"), out
    without = gc(module, check=True, keep=["web", "shop", "api", "postgres"])
    # collect_all: everything goes, check mode first
    collect_check = gc(module, check=True, collect_all=True, max_delete=200)
    collect = gc(module, collect_all=True, max_delete=200)
    report = records(out, "Services on these load balancers that lbaas_services does not declare")
    facts = [r["result"]["ansible_facts"]["service_loadbalancer_undeclared"] for r in records(out, "Record the services not declared")]
    line = "pg: not declared, still on lb1 with 127.0.10.3:6432"
    # check mode and the real run without prune: api and pg named, in one warning and in the role's result
    for record, fact in zip(report[:2], facts[:2]):
        fix = ("; collect it if it was renamed or removed (anxcloud.lbaas.gc), or name it in declared if another "
               "playbook manages it (role service_loadbalancer: lbaas_keep_owners)")
        assert record["result"]["warnings"] == [   # one each, naming it (Ansible prints a warning once per text)
            "service api of tag prefix 'anxlb' is not declared but still on lb2 with 127.0.10.52:9090" + fix,
            "service pg of tag prefix 'anxlb' is not declared but still on lb1 with 127.0.10.3:6432" + fix]
        assert fact == [{"name": "api", "load_balancers": ["lb2"], "listening": {"lb2": {"127.0.10.52": [9090]}},
                         "allocated": [], "message": "api: not declared, still on lb2 with 127.0.10.52:9090"},
                        {"name": "pg", "load_balancers": ["lb1"], "listening": {"lb1": {"127.0.10.3": [6432]}},
                         "allocated": [], "message": line}]
        # the report reads only the owners not declared: the services the run reconciled and the kept owner are found
        # (tag entities, load balancer tags), never listed by their tags nor read
        listed = set(e["path"].split("tag_name=")[1].split("&")[0] for e in sent(engine, record["start"], record["end"])
                     if "tag_name=" in e["path"])
        assert listed == {"anxlb-svc%3Dapi", "anxlb-svc%3Dpg"} or listed == {"anxlb-svc=api", "anxlb-svc=pg"}, listed
    # with prune: pg is collected (would be, in check mode), reserved is kept, nothing is undeclared any more
    prune_check, prune = records(out, "Collect services not in lbaas_services")
    assert [r["result"]["invocation"]["module_args"]["max_delete"] for r in (prune_check, prune)] == [40, 30]
    assert set(r["owner"] for r in prune_check["result"]["removed"]) == {"pg"}
    assert prune["result"]["removed"] == prune_check["result"]["removed"] and prune["result"]["keep_unmatched"] == []
    assert facts[2:] == [[], []] and "warnings" not in report[3]["result"]
    gc_role = [r for r in out.records if r["task"] == "Collect services not in the live set"][0]
    assert gc_role["result"]["removed"] == [] and gc_role["result"]["kept"]["reserved"] == 1
    assert gc_role["result"]["invocation"]["module_args"]["max_delete"] == 20   # by its old name
    assert [(r["type"], r["name"], r["owner"]) for r in without["removed"]] == [("address", "127.0.10.2", "reserved")]
    assert not without.failed and not collect_check.failed and not collect.failed, (without, collect_check, collect)
    assert collect["removed"] == collect_check["removed"]
    assert set(r["owner"] for r in collect["removed"]) == {"web", "shop", "api", "postgres", "reserved"}

    # Read back: reserved's address was released by collect_all only (its DELETE came after that task started),
    # and then nothing of any owner is left.
    address = [r["id"] for r in collect["removed"] if r["type"] == "address"]
    touched = [e["start"] >= collect.start for e in engine.requests()["log"]
               if e["method"] in MUTATING and address[0] in e["path"]]
    assert touched and all(touched)
    for owner in OWNERS + ("postgres",):
        assert owned(engine, owner) == {}, owner
    assert pool(engine) == []
