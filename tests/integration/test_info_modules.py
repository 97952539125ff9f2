"""The read-only modules: loadbalancer_info with its tree, and <type>_info by parent, id and owner, as module
processes; the group's wait options taken by every module as module processes, handed on by the group's
module_defaults through ansible-playbook."""
import os

import yaml
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS

from . import engine_state as es
from .conftest import ROOT, module_tasks
from .test_ip_address import V4, addresses


def seed_tree(engine):
    lb = es.lb_id(engine)
    b = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    s = es.create(engine, "server", name="n1.80.web", ip="127.0.0.2", port=18080, check="enabled", backend=b)
    f = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=b)
    bind = es.create(engine, "bind", name="v4.80.web", address="127.0.0.1", port=8080, frontend=f)
    for ident in (b, s, f, bind):
        es.tag(engine, ident, "anxlb-svc=web")
    other = es.create(engine, "backend", name="81.shop", mode="http", load_balancer=lb)
    return dict(lb=lb, backend=b, server=s, frontend=f, bind=bind, other=other)


def test_loadbalancer_info_tree_and_type_info_by_parent_id_and_owner(engine, module):
    """Each a module process (the modules' own reading; module_defaults through the controller: below)."""
    ids = seed_tree(engine)
    engine.reset_requests()
    run = [module("loadbalancer_info", {}, check=True),
           module("loadbalancer_info", {"name": "lb1", "tree": True}, check=True),
           module("backend_info", {"load_balancer": "lb1"}),
           module("backend_info", {"owner": "web"}),
           module("server_info", {"backend": "80.web", "load_balancer": "lb1"}),
           module("bind_info", {"id": ids["bind"]}),
           module("frontend_info", {"load_balancer": "lb1", "owner": "shop"})]
    assert not any(r.failed for r in run), run
    # loadbalancer_info, with its tree (in check mode, as users preview)
    assert [lb["name"] for lb in run[0]["load_balancers"]] == ["lb1", "lb2"]
    (lb,) = run[1]["load_balancers"]
    assert [b["name"] for b in lb["backends"]] == ["80.web", "81.shop"]
    assert lb["backends"][0]["servers"] == [{"id": ids["server"], "name": "n1.80.web", "backend": "80.web",
                                             "ip": "127.0.0.2", "port": 18080, "check": "enabled", "state": "Deployed",
                                             "tags": ["anxlb-svc=web"], "owner": "web"}]
    assert lb["frontends"][0]["binds"][0]["address"] == "127.0.0.1"
    assert lb["frontends"][0]["default_backend"] == "80.web"   # parents and links by name, as the diffs show them
    # <type>_info by parent, owner and id
    assert [b["name"] for b in run[2]["backends"]] == ["80.web", "81.shop"]
    assert [(b["name"], b["owner"], b["tags"]) for b in run[3]["backends"]] == [("80.web", "web", ["anxlb-svc=web"])]
    assert [s["id"] for s in run[4]["servers"]] == [ids["server"]]
    assert run[5]["binds"][0]["port"] == 8080 and run[5]["binds"][0]["frontend"] == ids["frontend"]
    assert run[6]["frontends"] == []
    assert module("backend_info", {}).message() == "one of load_balancer, id or owner is required"
    assert engine.mutating_requests() == 0   # read-only, in check mode and out of it


def test_loadbalancer_info_tree_shows_every_kind_under_its_parent_by_name_with_owners(engine, module):
    """Issue 28: the tree follows the kinds' declaration: ACLs and rules under their frontends and backends
    (ACLs and rules in index order), parents and links by name, each object with its tags and owner (a child
    carrying no owner tag is its parent's owner's; one carrying another owner's tag is not)."""
    lb = es.lb_id(engine)
    b = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    es.tag(engine, b, "anxlb-svc=web")
    es.create(engine, "server", name="n1.80.web", ip="127.0.0.2", port=18080, check="enabled", backend=b)
    hc = es.create(engine, "ACL", name="health", parent_type="backend", backend=b, criterion="src",
                   value="10.0.0.0/8", index=0)
    f = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=b)
    es.tag(engine, f, "anxlb-svc=web")
    es.create(engine, "bind", name="v4.80.web", address="127.0.0.1", port=8080, frontend=f)
    for name, value, index in (("office", "10.0.0.0/8", 1), ("any-v4", "0.0.0.0/0", 0)):
        es.create(engine, "ACL", name=name, parent_type="frontend", frontend=f, criterion="src", value=value,
                  index=index)
    accept = es.create(engine, "rule", name="accept-office", parent_type="frontend", frontend=f, index=0,
                       condition="if", condition_test="office", type="connection", action="accept")
    reject = es.create(engine, "rule", name="reject-v4", parent_type="frontend", frontend=f, index=1,
                       condition="if", condition_test="any-v4", type="connection", action="reject")
    es.tag(engine, reject, "other-svc=shop")
    es.create(engine, "frontend", name="81.shop", mode="tcp", load_balancer=lb)
    engine.reset_requests()
    runs = [module("loadbalancer_info", {"name": "lb1", "tree": True}, check=check) for check in (True, False)]
    assert runs[0].result == runs[1].result and not runs[0].failed, runs[0]
    (tree,) = runs[0]["load_balancers"]
    (backend,) = tree["backends"]
    # every field the kind declares (issue 43: a frontend's or backend's enabled shows once declared), and the rest
    assert sorted(backend) == sorted(["acls", "id", "load_balancer", "name", "owner", "rules", "servers", "state",
                                      "tags"] + list(KINDS["backend"].fields))
    assert backend["enabled"] is True   # the maintenance switch of every backend and frontend in the tree
    assert (backend["load_balancer"], backend["owner"], backend["tags"]) == ("lb1", "web", ["anxlb-svc=web"])
    assert [(s["name"], s["backend"], s["owner"], s["tags"]) for s in backend["servers"]] == [
        ("n1.80.web", "80.web", "web", [])]
    assert [(a["id"], a["backend"], a["frontend"], a["value"], a["owner"]) for a in backend["acls"]] == [
        (hc, "80.web", None, "10.0.0.0/8", "web")]
    assert backend["rules"] == []
    frontend, shop = tree["frontends"]
    assert sorted(frontend) == sorted(["acls", "binds", "id", "load_balancer", "name", "owner", "rules", "state",
                                       "tags"] + list(KINDS["frontend"].fields))
    assert (frontend["name"], frontend["default_backend"], frontend["owner"]) == ("80.web", "80.web", "web")
    assert [(x["name"], x["frontend"], x["owner"]) for x in frontend["binds"]] == [("v4.80.web", "80.web", "web")]
    assert [(a["name"], a["index"], a["frontend"], a["owner"]) for a in frontend["acls"]] == [
        ("any-v4", 0, "80.web", "web"), ("office", 1, "80.web", "web")]
    assert [(r["id"], r["condition_test"], r["frontend"], r["owner"], r["tags"]) for r in frontend["rules"]] == [
        (accept, "office", "80.web", "web", []), (reject, "any-v4", "80.web", None, ["other-svc=shop"])]
    assert (shop["name"], shop["owner"], shop["binds"], shop["acls"], shop["rules"]) == ("81.shop", None, [], [], [])
    assert engine.mutating_requests() == 0
    # per object below lb1 (10) its details and its tags; one listing per parent and kind it can hold
    paths = [r["path"].split("?")[0] for r in runs[1].requests(engine)]
    assert len([p for p in paths if p.startswith("/api/core/v1/resource.json/")]) == 10
    listings = [p for p in paths if p.startswith("/api/LBaaS/v1/") and p.endswith(".json")]
    assert sorted(set(listings)) == ["/api/LBaaS/v1/ACL.json", "/api/LBaaS/v1/backend.json", "/api/LBaaS/v1/bind.json",
                                     "/api/LBaaS/v1/frontend.json", "/api/LBaaS/v1/loadbalancer.json",
                                     "/api/LBaaS/v1/rule.json", "/api/LBaaS/v1/server.json"]
    assert len(listings) == 12, paths   # lb1 by name, lb1's 2 kinds, 3 kinds of 1 backend, 3 of 2 frontends


def modules_without_their_own_wait():
    """The action group's modules that do not take the wait options from the ``anxcloud.lbaas.wait`` fragment."""
    with open(os.path.join(ROOT, "meta", "runtime.yml")) as f:
        group = yaml.safe_load(f)["action_groups"]["lbaas"]
    out = []
    for name in group:
        with open(os.path.join(ROOT, "plugins", "modules", name + ".py")) as f:
            if "  - anxcloud.lbaas.wait\n" not in f.read():
                out.append(name)
    return sorted(out)


def group_zone(engine):
    """A CloudDNS zone for the DNS modules (the Engine's API serves it without --dns; nothing resolves it here)."""
    zone = engine.api("POST", "/api/clouddns/v1/zone.json", json={
        "zone_name": "group.test", "master": True, "dnssec_mode": "unvalidated", "admin_email": "admin@group.test",
        "refresh": 3600, "retry": 600, "expire": 604800, "ttl": 300})
    assert zone.status_code == 200, zone.text


# what a play's module_defaults for the whole group hand every module (as the user guide and the roles set them)
GROUP_WAIT = {"wait": True, "wait_timeout": 77}


def group_tasks(ids):
    """A task of each module of the group that waits for nothing, by name."""
    return {
        "loadbalancer_info": {"name": "lb1", "tree": True},
        "backend_info": {"load_balancer": "lb1"},
        "frontend_info": {"owner": "web"},
        "bind_info": {"id": ids["bind"]},
        "server_info": {"backend": "80.web", "load_balancer": "lb1"},
        "acl_info": {"owner": "web"},
        "rule_info": {"frontend": "80.web", "load_balancer": "lb1"},
        "ip_pool_info": {"pool": [V4]},
        "service_info": {},
        "ip_address": {"pool": [V4], "owner": "web", "family": "v4"},
        "gc": {"keep": ["web"]},
        "dns_record": {"zone": "group.test", "name": "www", "type": "A", "values": ["127.0.0.1"]},
        "dns_record_sets": {"zone": "group.test", "owner": "web",
                            "record_sets": [{"name": "api", "type": "A", "values": ["127.0.0.2"]}]},
        "dns_record_info": {"zone": "group.test", "type": "A"},
        "dns_zone_info": {"name": "group.test"},
    }


def test_the_modules_that_wait_for_nothing_take_the_groups_wait_options_and_ignore_them(engine, module):
    """Every module of the group gets wait and wait_timeout when a play sets them for the whole group: the modules
    that wait for nothing accept both and ignore them (each a module process with both options, as module_defaults
    hand them on; the controller's handing on is the next test's)."""
    ids = seed_tree(engine)
    group_zone(engine)
    tasks = group_tasks(ids)
    assert sorted(tasks) == modules_without_their_own_wait()
    engine.reset_requests()
    run = module_tasks(module, [{"anxcloud.lbaas." + name: dict(options, **GROUP_WAIT)} for name, options in tasks.items()])
    assert len(run.records) == len(tasks) and not any(run.failed(i) for i in range(len(tasks))), run
    results = dict(zip(tasks, (run[i] for i in range(len(tasks)))))
    assert results["loadbalancer_info"]["load_balancers"][0]["backends"][0]["id"] == ids["backend"]
    assert [f["id"] for f in results["frontend_info"]["frontends"]] == [ids["frontend"]]
    assert [b["id"] for b in results["bind_info"]["binds"]] == [ids["bind"]]
    assert [s["id"] for s in results["server_info"]["servers"]] == [ids["server"]]
    assert results["acl_info"]["acls"] == [] and results["rule_info"]["rules"] == []
    assert results["gc"]["removed"] == [] and results["gc"]["changed"] is False
    # the read-only ones wrote nothing; the allocation and the record are the only writes
    names = list(tasks)
    writing = ("ip_address", "gc", "dns_record", "dns_record_sets")
    assert [run.writes(engine, i) for i, name in enumerate(names) if name not in writing] == [0] * (len(names) - 4)
    assert run.writes(engine, names.index("gc")) == 0
    # one changeset each, waited for with the group's wait
    assert run.writes(engine, names.index("dns_record")) == 1
    assert run.writes(engine, names.index("dns_record_sets")) == 1
    assert sorted(r["value"] for r in results["dns_record_info"]["records"]) == ["127.0.0.1", "127.0.0.2"]
    assert results["dns_zone_info"]["zones"][0]["live"] is True
    (address,) = results["ip_address"]["addresses"]
    assert address["address"] in addresses(engine, V4)


def test_group_module_defaults_with_wait_reach_the_modules_through_the_controller(engine, ansible):
    """A play that sets wait and wait_timeout for group/anxcloud.lbaas.lbaas (as the user guide and the roles do): the
    controller hands both to a module run directly and to the modules run through their action plugins
    (ip_address, dns_record), which run with them; the DNS record is waited for with the group's wait."""
    ids = seed_tree(engine)
    group_zone(engine)
    tasks = dict((name, options) for name, options in group_tasks(ids).items()
                 if name in ("loadbalancer_info", "ip_address", "dns_record", "dns_zone_info"))
    assert [name for name in tasks if os.path.exists(os.path.join(ROOT, "plugins", "action", name + ".py"))] == [
        "ip_address", "dns_record"]
    engine.reset_requests()
    run = ansible.run([{"anxcloud.lbaas." + name: options} for name, options in tasks.items()],
                      play={"module_defaults": {"group/anxcloud.lbaas.lbaas": GROUP_WAIT}})
    assert len(run.records) == len(tasks) and not any(run.failed(i) for i in range(len(tasks))), run
    results = dict(zip(tasks, (run[i] for i in range(len(tasks)))))
    for name, result in results.items():
        arguments = result["invocation"]["module_args"]
        assert (arguments["wait"], arguments["wait_timeout"]) == (True, 77), name
    assert results["loadbalancer_info"]["load_balancers"][0]["backends"][0]["id"] == ids["backend"]
    assert run.writes(engine, list(tasks).index("loadbalancer_info")) == 0
    assert run.writes(engine, list(tasks).index("dns_record")) == 1   # one changeset, waited for with the group's wait
    assert results["dns_zone_info"]["zones"][0]["live"] is True
    (address,) = results["ip_address"]["addresses"]
    assert address["address"] in addresses(engine, V4)


def test_bind_and_server_info_with_owner_find_children_through_their_parents(engine, module):
    """Ownership by containment: a server carrying no owner tag inside a backend carrying the owner's is the
    owner's; a bind tagged by an earlier version stays the owner's; a server carrying another owner's tag
    (any prefix) is not, whatever its backend."""
    lb = es.lb_id(engine)
    b = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    es.tag(engine, b, "anxlb-svc=web")
    mine = es.create(engine, "server", name="n1.80.web", ip="127.0.0.2", port=18080, check="enabled", backend=b)
    theirs = es.create(engine, "server", name="n2.80.web", ip="127.0.0.3", port=18080, check="enabled", backend=b)
    es.tag(engine, theirs, "xanxlb-svc=web")
    f = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=b)
    bind = es.create(engine, "bind", name="v4.80.web", address="127.0.0.1", port=8080, frontend=f)
    es.tag(engine, bind, "anxlb-svc=web")   # the frontend carries no tag: the bind's own makes it the owner's
    elsewhere = es.create(engine, "backend", name="81.shop", mode="tcp", load_balancer=lb)
    es.create(engine, "server", name="n1.81.shop", ip="127.0.0.4", port=18080, check="enabled", backend=elsewhere)
    engine.reset_requests()
    run = [module("server_info", {"owner": "web"}),
           module("server_info", {"owner": "web", "backend": "80.web", "load_balancer": "lb1"}),
           module("server_info", {"owner": "web", "id": mine}),
           module("server_info", {"owner": "web", "id": theirs}),
           module("bind_info", {"owner": "web"}),
           module("server_info", {"owner": "web", "backend": "81.shop"})]
    assert not any(r.failed for r in run), run
    for index in (0, 1, 2):
        assert [(s["id"], s["owner"], s["tags"]) for s in run[index]["servers"]] == [(mine, "web", [])], index
    assert run[3]["servers"] == []
    assert [(x["id"], x["owner"]) for x in run[4]["binds"]] == [(bind, "web")]
    assert run[5]["servers"] == []
    assert engine.mutating_requests() == 0
