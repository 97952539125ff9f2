"""The service_loadbalancer role and playbooks/service_loadbalancer.yml against the local Engine, the
way users run them: --check --diff first (nothing written), then for real, again (nothing changes),
a smaller declaration, and removal; the address comes from the seeded IP pool. Then several services
in one vars file given with ``-e @file`` (one removed, the other untouched), auth from module_defaults
only, and declarations the role refuses before it sends a single request."""
import os
import re
import shutil
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from localengine.testing import MUTATING

from . import engine_state as es
from .conftest import ROOT, Run, sent, side, sides
from .test_service import objects_of

PLAYBOOK = os.path.join(ROOT, "playbooks", "service_loadbalancer.yml")
VARS = os.path.join(ROOT, "playbooks", "vars")
ROLE = os.path.join(ROOT, "roles", "service_loadbalancer")
V4_POOL = "0a11ce11000000000000000000000001"
SEEDED = ["127.0.10.0", "127.0.10.1", "127.0.10.255"]
KINDS = ("backend", "frontend", "bind", "server")
INCLUDE_ROLE = {"ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"}}


def pool_addresses(engine):
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": V4_POOL, "page": 1, "limit": 1000})
    resp.raise_for_status()
    return sorted(a["name"] for a in resp.json()["data"]["data"])


def run(ansible, vars_file, **kwargs):
    """The playbook as README and scripts/demo.sh run it: -e lbaas_vars_file=<vars file>."""
    out = ansible.playbook(PLAYBOOK, extra_args=["-e", "lbaas_vars_file=%s" % os.path.join(VARS, vars_file)], **kwargs)
    assert out.rc == 0, out
    return out


def writes_during(engine, run):
    """How many mutating requests the local Engine got while the tasks of ``run`` ran."""
    return len([e for e in engine.requests()["log"] if run.records[0]["start"] <= e["start"]
                and e["end"] <= run.records[-1]["end"] and e["method"] in MUTATING])


def owner_listings(engine, run, owner="demo-web"):
    """The owner-tag listings the local Engine answered while the tasks of ``run`` ran (the allocation and the
    reconcile each read one; a release by the owner tag would read another)."""
    return len([e for e in sent(engine, run.records[0]["start"], run.records[-1]["end"]) if e["method"] == "GET"
                and parse_qs(urlsplit(e["path"]).query).get("tag_name") == ["anxlb-svc=%s" % owner]])


def run_with_extra_vars(ansible, tmp_path, services, **kwargs):
    """The playbook with the services given as ``-e @file`` (they win over the playbook's default vars file)."""
    path = tmp_path / ("services%d.yml" % ansible.count)
    path.write_text(yaml.safe_dump({"lbaas_services": services}, sort_keys=False))
    out = ansible.playbook(PLAYBOOK, extra_args=["-e", "@%s" % path], **kwargs)
    assert out.rc == 0, out
    return out


def recap(out, nth=0):
    """The ``nth`` PLAY RECAP's counters for localhost, e.g. {"ok": 6, "changed": 2, "failed": 0, ...}."""
    lines = out.proc.stdout.split("PLAY RECAP")[nth + 1].strip().splitlines()
    (line,) = [x for x in lines if x.startswith("localhost")]
    return dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", line))


def reconcile(out, name="demo-web"):
    return out.task("Reconcile %s" % name)["result"]


def summary(out, name="demo-web"):
    return out.task("Summary of %s" % name)["result"]["msg"]


def names(engine):
    return sorted(o["name"] for kind in KINDS for o in es.objects(engine, kind))


def ids(engine):
    """{identifier: (kind, name)} of every LBaaS object below the load balancers."""
    return dict((o["identifier"], (kind, o["name"])) for kind in KINDS for o in es.objects(engine, kind))


def lbaas_writes(engine):
    """The mutating LBaaS requests of the log as (method, kind); tag writes (lease, marker) left out."""
    found = []
    for entry in engine.requests()["log"]:
        match = re.match(r"/api/LBaaS/v1/(\w+)\.json", entry["path"])
        if entry["method"] in MUTATING and match:
            found.append((entry["method"], match.group(1)))
    return sorted(found)


class Passes:
    """The playbook as README and scripts/demo.sh run it (-e lbaas_vars_file=FILE), once per pass, all passes by one
    ansible-playbook process (a session of the playbook file given once per pass): before each pass the test copies
    that pass's shipped vars file to FILE, which the playbook reads when its play runs."""

    def __init__(self, ansible, tmp_path, name, passes, extra_args):
        self.path = tmp_path / name
        self.session = ansible.playbooks([PLAYBOOK] * passes, extra_args=list(extra_args) + [
            "-e", "lbaas_vars_file=%s" % self.path])

    def next(self, vars_file):
        shutil.copyfile(os.path.join(VARS, vars_file), self.path)
        out = self.session.next()
        assert out.rc in (None, 0) and out.records and not [r for r in out.records if r["status"] == "failed"], out
        return out


def pass_recaps(out):
    """The PLAY RECAP counters of each playbook of a finished run, each pass's own: ansible-playbook prints one recap
    per playbook, each counting every pass so far."""
    totals = [recap(out, nth) for nth in range(out.proc.stdout.count("PLAY RECAP"))]
    return [dict((k, v - (totals[i - 1][k] if i else 0)) for k, v in total.items()) for i, total in enumerate(totals)]


def test_the_playbook_previews_applies_reruns_shrinks_and_removes(engine, ansible, tmp_path):
    # The real passes by one ansible-playbook process, played one at a time; each --check --diff pass by a process of
    # its own (a role reads ansible_check_mode, which only --check sets, and check mode's predictions are kept for
    # the rest of a run: a second check-mode pass of the same service in that run would start from the first's):
    # four start-ups instead of six.
    runs = Passes(ansible, tmp_path, "applied.yml", 5, ["--diff"])

    # 1. --check --diff: the plan, and not one write
    before = es.snapshot(engine)
    engine.reset_requests()
    check = run(ansible, "service_example.yml", check=True, diff=True)
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before and pool_addresses(engine) == SEEDED
    allocation = check.task("Allocate pool addresses of demo-web")["result"]["results"][0]
    assert allocation["changed"] is True and allocation["addresses"][0]["address"] == "127.0.10.2"
    predicted = reconcile(check)
    assert predicted["changed"] is True and len(predicted["plan"]) == 2 + 2 + 2 + 6 + 1   # and the marker's line
    assert predicted["status"]["all"] == {"127.0.10.2": [8080, 8081]}
    assert side(predicted, "before") == {"lb1": {}}
    assert list(side(predicted, "after")["lb1"]) == ["admin.demo-web", "http.demo-web"]
    planned = ["%s %s %s" % (a["action"], a["type"], a["name"]) for a in objects_of(predicted)]
    assert sorted(planned) == sorted(
        ["create backend http.demo-web", "create backend admin.demo-web", "create frontend http.demo-web",
         "create frontend admin.demo-web", "create bind v4.http.demo-web", "create bind v4.admin.demo-web"]
        + ["create server %s.%s.demo-web" % (n, p) for n in ("node1", "node2", "node3") for p in ("http", "admin")])
    assert summary(check) == [   # plain lines; with --diff no plan lines: the diff shows each action (issue 43)
        "service demo-web (present) on lb1: would change, 13 planned action(s)",   # the allocation is one of them
        "summary: lb1: 12 to add, 0 to change, 0 to destroy; pool 127.0.10.0/24: 1 to add",
        "addresses: 127.0.10.2",
        "listening: 127.0.10.2:8080, 127.0.10.2:8081",
    ]
    assert recap(check)["changed"] == 2 and recap(check)["failed"] == 0   # allocation and reconcile, predicted
    assert check.task("Release the addresses of demo-web")["status"] == "skipped"   # as the real run's below

    # 2. for real: what check mode predicted
    real = runs.next("service_example.yml")
    applied = reconcile(real)
    assert sides(applied) == sides(predicted) and applied["plan"] == predicted["plan"]
    assert pool_addresses(engine) == sorted(SEEDED + ["127.0.10.2"])
    servers = ["%s.%s.demo-web" % (n, p) for n in ("node1", "node2", "node3") for p in ("http", "admin")]
    assert names(engine) == sorted(["http.demo-web"] * 2 + ["admin.demo-web"] * 2 + [
        "v4.http.demo-web", "v4.admin.demo-web"] + servers)
    binds = sorted((b["address"], b["port"]) for b in es.objects(engine, "bind"))
    assert binds == [("127.0.10.2", 8080), ("127.0.10.2", 8081)]
    # backends and frontends carry the owner tag, binds and servers none (ownership by containment)
    assert all(es.tags(engine, o["identifier"]) == (["anxlb-svc=demo-web"] if kind in ("backend", "frontend") else [])
               for kind in KINDS for o in es.objects(engine, kind))
    assert summary(real)[:2] == ["service demo-web (present) on lb1: changed, 13 planned action(s)",
                                 "summary: lb1: 12 added, 0 changed, 0 destroyed; pool 127.0.10.0/24: 1 added"]

    # 3. again: nothing to do, nothing written
    created = ids(engine)
    rerun = runs.next("service_example.yml")
    assert writes_during(engine, rerun) == 0 and ids(engine) == created
    assert reconcile(rerun)["changed"] is False and reconcile(rerun)["plan"] == []
    assert not any(r["result"].get("changed") for r in rerun.records)
    assert summary(rerun) == ["service demo-web (present) on lb1: in sync, 0 planned action(s)",
                              "summary: lb1: 0 added, 0 changed, 0 destroyed", "addresses: 127.0.10.2",
                              "listening: 127.0.10.2:8080, 127.0.10.2:8081"]
    # v6, the family demo-web does not declare: it never held one, so its release is not run (the allocation and the
    # reconcile saw nothing of the owner but its v4 address and its objects), and no request of it reached the Engine
    assert rerun.task("Release the addresses of demo-web")["status"] == "skipped"
    assert reconcile(rerun)["tagged_other"] == [a["id"] for a in rerun.task(
        "Allocate pool addresses of demo-web")["result"]["results"][0]["addresses"]]
    assert owner_listings(engine, rerun) == 2

    # 4. one node and one port fewer: only their objects go, the rest keeps its identifiers
    engine.reset_requests()
    check = run(ansible, "service_example_smaller.yml", check=True, diff=True)
    assert engine.mutating_requests() == 0 and ids(engine) == created
    engine.reset_requests()
    smaller = runs.next("service_example_smaller.yml")
    gone = [("delete", "frontend", "admin.demo-web"), ("delete", "backend", "admin.demo-web"),
            ("delete", "server", "node1.admin.demo-web"), ("delete", "server", "node2.admin.demo-web"),
            ("delete", "server", "node3.admin.demo-web"), ("delete", "server", "node2.http.demo-web"),
            ("delete", "bind", "v4.admin.demo-web")]
    assert sorted((a["action"], a["type"], a["name"]) for a in objects_of(reconcile(smaller))) == sorted(gone)
    assert reconcile(smaller)["plan"] == reconcile(check)["plan"]
    assert lbaas_writes(engine) == sorted(("DELETE", action[1]) for action in gone)
    kept = ids(engine)
    assert sorted(kept.values()) == [("backend", "http.demo-web"), ("bind", "v4.http.demo-web"),
                                     ("frontend", "http.demo-web"), ("server", "node1.http.demo-web"),
                                     ("server", "node3.http.demo-web")]
    assert all(created[ident] == what for ident, what in kept.items())   # nothing kept was recreated
    assert pool_addresses(engine) == sorted(SEEDED + ["127.0.10.2"])   # the service keeps its address

    # 5. state: absent: the objects go, then the address returns to the pool; --check first
    engine.reset_requests()
    check = run(ansible, "service_example_absent.yml", check=True, diff=True)
    assert engine.mutating_requests() == 0 and ids(engine) == kept
    assert pool_addresses(engine) == sorted(SEEDED + ["127.0.10.2"])
    assert [a["address"] for a in check.task("Release the addresses of demo-web")["result"]["plan"]] == ["127.0.10.2"]
    assert summary(check)[0] == "service demo-web (absent) on lb1: would change, 5 planned action(s)"
    assert summary(check)[1] == "summary: lb1: 0 to add, 0 to change, 5 to destroy"
    assert summary(check)[2:4] == ["would release: 127.0.10.2", "listening: nothing"]   # predicted: all gone
    gone = runs.next("service_example_absent.yml")
    assert sorted((a["action"], a["name"]) for a in objects_of(reconcile(gone))) == [
        ("delete", "http.demo-web"), ("delete", "http.demo-web"), ("delete", "node1.http.demo-web"),
        ("delete", "node3.http.demo-web"), ("delete", "v4.http.demo-web")]
    assert names(engine) == [] and pool_addresses(engine) == SEEDED
    assert es.tags(engine, es.lb_id(engine)) == []   # no lease left, marker removed
    # 6. and again: nothing left to do (for every absent service: test_services_of_an_extra_vars_file_... leaves
    # its rerun of an absent shop to this one)
    again = runs.next("service_example_absent.yml")
    assert writes_during(engine, again) == 0
    assert reconcile(again)["changed"] is False and reconcile(again)["plan"] == []

    # What each real pass's PLAY RECAP said (read from the run's whole output, now that it has ended): allocation and
    # reconcile changed; the rerun nothing; the smaller one the reconcile task only (the allocation found its
    # address); the absent one's rerun nothing.
    assert again.rc == 0
    applied = pass_recaps(again)
    assert applied[0]["changed"] == 2 and applied[0]["failed"] == 0
    assert applied[1]["changed"] == 0 and applied[1]["failed"] == 0
    assert applied[2]["changed"] == 1
    assert applied[4]["changed"] == 0 and applied[4]["failed"] == 0


SHOP = {"name": "shop", "load_balancers": ["lb1", "lb2"], "addresses": ["127.0.10.20"],
        "ports": [{"name": "https", "port": 8443, "target_port": 18443}],
        "servers": [{"name": "n1", "address": "127.0.0.1"}, {"name": "n2", "address": "127.0.0.2"}]}
API = {"name": "api", "load_balancers": ["lb1"], "address_pool": ["anxlb-pool=demo"],
       "ports": [{"name": "grpc", "port": 9090}], "servers": [{"name": "n1", "address": "127.0.0.3"}]}


def test_services_of_an_extra_vars_file_are_removed_one_at_a_time(engine, ansible, tmp_path):
    out = run_with_extra_vars(ansible, tmp_path, [SHOP, API], diff=True)
    assert reconcile(out, "shop")["changed"] is True and reconcile(out, "api")["changed"] is True
    assert reconcile(out, "shop")["status"]["load_balancers"] == {"lb1": {"127.0.10.20": [8443]},
                                                                  "lb2": {"127.0.10.20": [8443]}}
    assert reconcile(out, "api")["status"]["all"] == {"127.0.10.2": [9090]}
    # only the services of the -e @file: the playbook has no default vars file, demo-web was not touched
    assert not [r for r in out.records if "demo-web" in r["task"]]
    assert "demo-web" not in " ".join(names(engine))
    api_objects = dict((k, v) for k, v in ids(engine).items() if v[1].endswith(".api"))
    assert len(api_objects) == 4 and len(ids(engine)) == 4 + 2 * 5

    # shop goes, api stays as it is. (That a rerun of an absent service has nothing to do and writes nothing, this
    # test's rerun once proved for shop; the lifecycle test above proves it for demo-web, by the same path.)
    engine.reset_requests()
    path = tmp_path / "shop_absent.yml"
    path.write_text(yaml.safe_dump({"lbaas_services": [dict(SHOP, state="absent"), API]}, sort_keys=False))
    out = ansible.playbook(PLAYBOOK, diff=True, extra_args=["-e", "@%s" % path])
    assert out.rc == 0, out
    assert reconcile(out, "api")["changed"] is False and reconcile(out, "api")["plan"] == []
    assert sorted((a["action"], a["type"]) for a in objects_of(reconcile(out, "shop"))) == sorted(
        [("delete", "backend"), ("delete", "frontend"), ("delete", "bind")] * 2 + [("delete", "server")] * 4)
    assert lbaas_writes(engine) == sorted([("DELETE", "backend"), ("DELETE", "frontend"), ("DELETE", "bind")] * 2
                                          + [("DELETE", "server")] * 4)
    assert ids(engine) == api_objects
    assert summary(out, "shop")[0] == "service shop (absent) on lb1, lb2: changed, 10 planned action(s)"
    assert summary(out, "api")[0] == "service api (present) on lb1: in sync, 0 planned action(s)"
    assert pool_addresses(engine) == sorted(SEEDED + ["127.0.10.2"])


def test_the_role_takes_auth_from_module_defaults(engine, ansible, monkeypatch, tmp_path):
    # neither ANEXIA_TOKEN nor ANEXIA_API_URL in the environment: both come from module_defaults only
    env = ansible.env

    def env_without_engine(token=True):
        out = env(token=False)
        out.pop("ANEXIA_API_URL")
        return out
    monkeypatch.setattr(ansible, "env", env_without_engine)
    service = {"name": "api", "load_balancers": ["lb1", "lb2"], "addresses": ["127.0.10.7"],
               "ports": [{"name": "https", "port": 9443, "target_port": 19443}],
               "servers": [{"name": "n1", "address": "127.0.0.1"}]}
    # two plays of one playbook: with api_token and api_url in module_defaults, then with api_url alone (the
    # second play opens with a marker task so that its requests can be told apart in the Engine's log by time)
    plays = [{"hosts": "localhost", "gather_facts": False, "vars": {"lbaas_services": [service]},
              "module_defaults": {"group/anxcloud.lbaas.lbaas": {"api_token": engine.token, "api_url": engine.url}},
              "roles": [{"role": "anxcloud.lbaas.service_loadbalancer"}]},
             {"hosts": "localhost", "gather_facts": False, "vars": {"lbaas_services": [service]},
              "module_defaults": {"group/anxcloud.lbaas.lbaas": {"api_url": engine.url}},
              "tasks": [{"name": "Without api_token", "ansible.builtin.debug": {"msg": "no token"}}, INCLUDE_ROLE]}]
    path = tmp_path / "auth.yml"
    path.write_text(yaml.safe_dump(plays, sort_keys=False))
    both = ansible.playbook(str(path))
    second = [r["task"] for r in both.records].index("Without api_token")
    out, without = Run(both.proc, both.records[:second]), Run(both.proc, both.records[second:])
    assert not [r for r in out.records if r["status"] == "failed"], both
    result = reconcile(out, "api")
    assert result["changed"] is True and result["status"]["all"] == {"127.0.10.7": [9443]}
    assert sorted(result["objects"]) == ["lb1", "lb2"] and engine.token not in out.proc.stdout + out.proc.stderr
    assert names(engine) == sorted(["https.api"] * 4 + ["v4.https.api"] * 2 + ["n1.https.api"] * 2)
    # backends and frontends carry the owner tag, binds and servers none (ownership by containment)
    assert all(es.tags(engine, o["identifier"]) == (["anxlb-svc=api"] if kind in ("backend", "frontend") else [])
               for kind in KINDS for o in es.objects(engine, kind))

    assert both.rc != 0
    assert "missing required arguments: api_token" in reconcile(without, "api")["msg"]
    # no request from the second play's start to its end (the reads above came after both)
    assert [e for e in engine.requests()["log"]
            if without.records[0]["start"] <= e["start"] and e["end"] <= without.records[-1]["end"]] == []


# One declaration with a mistake in every service: the role reports each problem once, naming the service by
# index and name and the key, and stops before a single request (and before any address is allocated).
BAD = [
    {"name": "a", "load_balancers": ["lb1"], "prots": []},
    {"name": "b", "load_balancers": ["lb1"], "address_pool": ["anxlb-pool=demo"], "name_sufix": "x",
     "ports": [{"port": 80, "target_prot": 8080}, {"port": 81, "target_prot": 8081, "mde": "http"}]},
    {"name": "c", "load_balancers": ["lb1"], "ports": [{"name": "http"}], "addresses": ["127.0.10.9"]},
    {"name": "d", "load_balancers": ["lb1"], "addresses": ["127.0.10.9"],
     "servers": [{"name": "n0", "address": "127.0.0.1", "check": "on"}, {"name": "n1", "address": "127.0.0.1", "check": "sometimes"}]},
    {"name": "e", "load_balancers": ["lb1"], "addresses": ["127.0.10.9"], "address_pool": ["anxlb-pool=demo"]},
    {"name": "f", "ports": []},
    {"name": "a", "load_balancers": ["lb2"], "addresses": ["127.0.10.8"]},
    {"name": "g", "load_balancers": ["lb1"], "addresses": ["127.0.10.9"], "ports": [{"port": 80, "enabled": "maybe"}]},
]


def test_the_role_names_each_bad_key_once_with_its_service_before_any_request(engine, ansible):
    engine.reset_requests()
    out = ansible.run(INCLUDE_ROLE, vars={"lbaas_services": BAD})
    assert out.rc != 0
    failed = [r for r in out.records if r["status"] == "failed"]
    assert len(failed) == 1 and not [r for r in out.records if r["task"].startswith(("Reconcile ", "Allocate "))]
    problems = failed[0]["result"]["msg"]
    assert [p.split(": ", 1)[0] for p in problems] == [
        "lbaas_services[0] (a)", "lbaas_services[1] (b)", "lbaas_services[1] (b)", "lbaas_services[1] (b)",
        "lbaas_services[2] (c)", "lbaas_services[3] (d)", "lbaas_services[4] (e)", "lbaas_services[5] (f)",
        "lbaas_services[7] (g)", "lbaas_services"], problems
    top = ("address_families, address_pool, addresses, allow_sources, allow_sources_bypass, dns, enabled, load_balancers, name, "
           "name_suffix, ports, servers, state")
    port = ("allow_sources, client_timeout, enabled, health_check, mode, name, port, server_timeout, ssl, ssl_certificate_path, "
            "target_port")
    assert problems[0] == "lbaas_services[0] (a): unknown key prots (did you mean ports?); the keys are: " + top
    # three typos at once, on two levels: each reads as a single typo does, with the keys of its own level; two
    # ports with the same misspelling: one line, not one per port
    assert problems[1:4] == [
        "lbaas_services[1] (b): unknown key name_sufix (did you mean name_suffix?); the keys are: " + top,
        "lbaas_services[1] (b): unknown key ports.mde (did you mean ports.mode?); the keys are: " + port,
        "lbaas_services[1] (b): unknown key ports.target_prot (did you mean ports.target_port?); the keys are: " + port]
    assert problems[4] == "lbaas_services[2] (c): missing required arguments: port found in ports"
    # check takes the module's words and booleans ("on" is one); anything else is named before any request
    assert problems[5] == "lbaas_services[3] (d): servers[1].check must be enabled or disabled (or true/false), got sometimes"
    assert problems[6] == "lbaas_services[4] (e): addresses and address_pool are mutually exclusive; give one of them"
    assert problems[7] == "lbaas_services[5] (f): missing required arguments: load_balancers"
    # enabled is a bool, on the service and on each port (Ansible's words, which differ a little between versions)
    assert problems[8].startswith("lbaas_services[7] (g): argument 'enabled' is of type ") and all(
        words in problems[8] for words in ("found in 'ports'", "The value 'maybe' is not a valid boolean")), problems[8]
    assert problems[9] == "lbaas_services: each service name may appear only once; declared more than once: a"
    assert engine.requests()["total"] == 0


def test_a_misspelt_role_variable_fails_both_roles_before_any_request_naming_the_known_one(engine, ansible):
    """Issue 43: lbaas_keep_owner, lbaas_tag_prefx and lbaas_prnue were ignored (their defaults used: the tag prefix
    anxlb, no prune, no owner kept). Every lbaas_* variable of the play is checked against the options of the roles'
    meta/argument_specs.yml, by both roles, before any request; the playbooks' own lbaas_vars_file is one of them."""
    variables = {"lbaas_services": [{"name": "web", "load_balancers": ["lb1"], "addresses": ["127.0.10.5"]}],
                 "lbaas_keep_owner": ["reserved"], "lbaas_tag_prefx": "team", "lbaas_prnue": True,
                 "lbaas_vars_file": "services.yml"}
    rescued = {"name": "Rescued", "ansible.builtin.debug": {"msg": "refused"}}
    engine.reset_requests()
    out = ansible.run([{"block": [{"ansible.builtin.include_role": {"name": "anxcloud.lbaas.%s" % role}}],
                        "rescue": [rescued]} for role in ("service_loadbalancer", "garbage_collection")], vars=variables)
    assert out.rc == 0, out
    refusals = [r["result"]["msg"] for r in out.records if r["task"] == "Check the lbaas_ variables"]
    assert len(refusals) == 2 and len([r for r in out.records if r["task"] == "Rescued"]) == 2, out
    for message in refusals:
        assert message.startswith(
            "Unknown variables lbaas_keep_owner (did you mean lbaas_keep_owners?), lbaas_prnue (did you mean "
            "lbaas_prune?), lbaas_tag_prefx (did you mean lbaas_tag_prefix?): the lbaas_ variables are those of the "
            "anxcloud.lbaas roles ("), message
        assert message.endswith("Rename or remove them. Nothing was sent to the Engine."), message
        # the known ones, as the argument specs of both roles declare them (lbaas_prune is service_loadbalancer's only)
        assert ", lbaas_prune, " in message and "lbaas_vars_file" in message and "garbage_collection_" not in message
    assert engine.requests()["total"] == 0


@pytest.mark.smoke
def test_the_playbook_takes_a_relative_vars_file_from_the_working_directory(engine, ansible, tmp_path):
    """The vars file path as users type it: relative to where they run ansible-playbook. A wrong path and no
    services at all stop the run with a message, before any request."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "services.yml").write_text(yaml.safe_dump({"lbaas_services": [
        {"name": "rel", "load_balancers": ["lb1"], "addresses": ["127.0.10.30"],
         "ports": [{"name": "http", "port": 8090}], "servers": [{"name": "n1", "address": "127.0.0.1"}]}]}))
    # the play's module_defaults set wait_timeout; the role passes none of its own, so it is not overridden
    out = ansible.playbook(PLAYBOOK, check=True, cwd=str(tmp_path), extra_args=["-e", "lbaas_vars_file=mine/services.yml"])
    assert out.rc == 0, out
    assert reconcile(out, "rel")["status"]["all"] == {"127.0.10.30": [8090]}
    assert engine.mutating_requests() == 0

    engine.reset_requests()
    out = ansible.playbook(PLAYBOOK, cwd=str(tmp_path), extra_args=["-e", "lbaas_vars_file=mine/servics.yml"])
    assert out.rc != 0 and out.records[-1]["result"]["msg"] == (
        "lbaas_vars_file: 'mine/servics.yml' (%s) is not a file. A relative path is taken from the directory "
        "ansible-playbook runs in." % (tmp_path / "mine" / "servics.yml"))
    out = ansible.playbook(PLAYBOOK, cwd=str(tmp_path))
    assert out.rc != 0 and out.records[-1]["result"]["msg"] == (
        "No services: give a vars file that sets lbaas_services with -e lbaas_vars_file=FILE (or -e @FILE).")
    assert engine.requests()["total"] == 0


@pytest.mark.smoke
def test_the_role_leaves_wait_timeout_to_module_defaults_unless_set(engine, ansible):
    service = {"name": "waits", "load_balancers": ["lb1"], "addresses": ["127.0.10.31"],
               "ports": [{"name": "http", "port": 8091}], "servers": [{"name": "n1", "address": "127.0.0.1"}]}
    play = {"module_defaults": {"group/anxcloud.lbaas.lbaas": {"wait_timeout": 77}}}
    # the role twice in one play: without lbaas_wait_timeout, then with it
    out = ansible.run([INCLUDE_ROLE, dict(INCLUDE_ROLE, vars={"lbaas_wait_timeout": 5})], check=True,
                      vars={"lbaas_services": [service]}, play=play)
    assert out.rc == 0, out
    first, second = [r["result"] for r in out.records if r["task"] == "Reconcile waits"]
    assert first["invocation"]["module_args"]["wait_timeout"] == 77
    assert second["invocation"]["module_args"]["wait_timeout"] == 5


def test_the_role_argument_spec_matches_the_service_module():
    """meta/argument_specs.yml repeats the service module's ports and servers suboptions so that a typo fails
    before an address is allocated; this keeps the two from drifting apart."""
    from ansible_collections.anxcloud.lbaas.plugins.modules.service import ServiceModule

    with open(os.path.join(ROLE, "meta", "argument_specs.yml")) as handle:
        role = yaml.safe_load(handle)["argument_specs"]["service_declaration"]["options"]
    module = ServiceModule.argument_spec

    def shape(options):
        return dict((name, (spec.get("type", "str"), spec.get("elements"), bool(spec.get("required")),
                            spec.get("choices"), spec.get("default"))) for name, spec in options.items())
    assert shape(role["ports"]["options"]) == shape(module["ports"]["options"])
    assert shape(role["servers"]["options"]) == shape(module["servers"]["options"])
    passed_through = set(role) - {"address_pool", "address_families"}
    assert passed_through <= set(module), passed_through - set(module)
    assert shape(dict((k, role[k]) for k in passed_through - {"addresses"})) == shape(
        dict((k, module[k]) for k in passed_through - {"addresses"}))
