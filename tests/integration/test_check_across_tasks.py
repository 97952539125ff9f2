"""Check mode predicts across the tasks of a play (issue 18, point 4): a play run in check mode with diff
writes nothing, leaves the Engine as it was, and predicts per task exactly what the same play then
does for real, read back from the Engine.

Each scenario is one play, played twice: in check mode with diff (the play keywords ``check_mode`` and ``diff``,
which do for a play what --check --diff do for a run), then for real. The subject is the controller (the
action plugins carry the predictions from task to task), so the scenarios are the plays of ONE ansible-playbook
run (``ansible.session``), the test reading the Engine between them; a real task clears what the check-mode
tasks before it predicted, so each scenario's check play starts from nothing. Later tasks of the check play
see what earlier ones predicted (the collection's action plugin keeps them in the controller's temporary
directory, never in a result or a fact), so a teardown in dependency order, a release after the service that used the address, and
allocations in a loop predict what the real run does instead of failing or colliding.
"""
import json

import yaml

from localengine.testing import MUTATING

from . import engine_state as es

V4 = "0a11ce11000000000000000000000001"   # 127.0.10.0/24, tagged anxlb-pool=demo (seeds/default.yml)
INTERNAL = ("anxcloud_lbaas_predictions", "check_mode_predictions")   # the old fact's name, the module's option


def side(result, which):
    s = result["diff"][which]
    return yaml.safe_load(s) if isinstance(s, str) else s


def addresses(engine, prefix=V4):
    """The prefix's address objects as {address: (description, status)} (status shows a release)."""
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": prefix, "page": 1, "limit": 1000})
    resp.raise_for_status()
    out = {}
    for summary in resp.json()["data"]["data"]:
        full = engine.api("GET", "/api/ipam/v1/address.json/" + summary["identifier"]).json()
        out[summary["name"]] = (summary.get("description_customer"), full.get("status"))
    return out


def state(engine):
    """Everything a play here may change: LBaaS objects with their tags, and the pool's addresses."""
    return es.snapshot(engine), addresses(engine)


def writes(engine):
    return [(e["method"], e["path"]) for e in engine.requests()["log"] if e["method"] in MUTATING]


def twice(tasks, play=None):
    """A scenario's two plays for ``ansible.session``: in check mode with diff, then for real with diff."""
    return [(tasks, dict(play or {}, check_mode=True, diff=True)), (tasks, dict(play or {}, diff=True))]


def check_then_real(engine, plays):
    """Plays a scenario's ``twice``: the check play (nothing written, nothing changed), then the real one; both."""
    before = state(engine)
    engine.reset_requests()
    check = plays.next()
    assert check.records and not any(r["status"] == "failed" for r in check.records), check
    assert writes(engine) == []
    assert state(engine) == before
    assert engine.token not in json.dumps(check.records)
    real = plays.next()
    assert real.records and not any(r["status"] == "failed" for r in real.records), real
    assert len(check.records) == len(real.records)
    for text in (json.dumps(check.records), json.dumps(real.records), check.proc.stdout, real.proc.stdout):
        assert not [word for word in INTERNAL if word in text]   # the predictions travel outside the results
    return check, real


def cached(cache):
    """Everything a jsonfile fact cache holds, as text (none: no task set a fact)."""
    return "".join(p.read_text() for p in cache.iterdir()) if cache.exists() else ""


def same_plan(check, real, ids=None):
    """Check mode's plan equals the real run's, creates compared without their (placeholder) ids; ``ids``
    maps the placeholders check mode links to onto the identifiers the real run created."""
    def plain(plan):
        return [dict(a, id=None) if a["action"] in ("create", "allocate") else a for a in plan]
    text = yaml.safe_dump(plain(check["plan"]))
    for placeholder, ident in (ids or {}).items():
        text = text.replace(placeholder, ident)
    assert yaml.safe_load(text) == plain(real["plan"])
    assert check["changed"] == real["changed"]


def obj(kind, name, owner="web", **args):
    return {"name": "%s %s absent" % (kind, name),
            "anxcloud.lbaas.%s" % kind: dict(args, name=name, owner=owner, state="absent")}


def seed_service(engine, owner="web", address="127.0.10.9"):
    """A service's four objects on lb1, tagged as the service module tags them; their ids by kind."""
    lb = es.lb_id(engine)
    suffix = "80.%s" % owner
    ids = {"backend": es.create(engine, "backend", name=suffix, mode="tcp", load_balancer=lb)}
    ids["frontend"] = es.create(engine, "frontend", name=suffix, mode="tcp", load_balancer=lb, default_backend=ids["backend"])
    ids["bind"] = es.create(engine, "bind", name="v4." + suffix, frontend=ids["frontend"], address=address, port=80)
    ids["server"] = es.create(engine, "server", name="n1." + suffix, backend=ids["backend"], ip="127.0.0.2", port=8080,
                              check="enabled")
    for ident in ids.values():
        es.tag(engine, ident, "anxlb-svc=%s" % owner)
    return ids


TEARDOWN = [obj("bind", "v4.80.web", load_balancer="lb1", frontend="80.web"),
            obj("frontend", "80.web", load_balancer="lb1"),
            obj("server", "n1.80.web", load_balancer="lb1", backend="80.web"),
            obj("backend", "80.web", load_balancer="lb1")]


def teardown_in_dependency_order(engine, plays, ids):
    """(a) bind, frontend, server, backend absent, one task each (of the service ``seed_service`` made, ``ids``):
    the frontend task knows the bind task predicted its delete, the backend task that the frontend and server
    are gone."""
    check, real = check_then_real(engine, plays)
    for index, kind in enumerate(("bind", "frontend", "server", "backend")):
        assert check[index]["plan"] == [dict(check[index]["plan"][0], action="delete", type=kind, id=ids[kind])]
        assert check[index][kind] == {}
        assert side(check[index], "after") == {} and side(check[index], "before")["name"]
        same_plan(check[index], real[index])
        assert side(check[index], "before") == side(real[index], "before")
        assert side(check[index], "after") == side(real[index], "after")
    left = es.snapshot(engine)
    assert not set(ids.values()) & set(left)


CREATE_THEN_CHILDREN = [
    {"anxcloud.lbaas.backend": {"load_balancer": "lb1", "name": "80.new", "mode": "tcp", "owner": "new"}},
    {"anxcloud.lbaas.frontend": {"load_balancer": "lb1", "name": "80.new", "mode": "tcp", "default_backend": "80.new",
                                 "owner": "new"}},
    {"anxcloud.lbaas.bind": {"load_balancer": "lb1", "frontend": "80.new", "name": "v4.80.new", "address": "127.0.10.8",
                             "port": 80, "owner": "new"}},
    {"anxcloud.lbaas.server": {"load_balancer": "lb1", "backend": "80.new", "name": "n1.80.new", "ip": "127.0.0.3",
                               "port": 8080, "owner": "new"}},
    # the same frontend again: it exists after the create above, so nothing to do
    {"anxcloud.lbaas.frontend": {"load_balancer": "lb1", "name": "80.new", "mode": "tcp", "owner": "new"}},
]


def create_then_children_in_check_mode(engine, plays):
    """A backend and frontend created in check mode, then a bind and a server under them: the later
    tasks find the predicted parents (no "predicting as if" warning) and plan what the real run does."""
    check, real = check_then_real(engine, plays)
    ids = dict((check[i][kind]["id"], real[i][kind]["id"]) for i, kind in enumerate(("backend", "frontend")))
    for index in range(len(CREATE_THEN_CHILDREN)):
        assert not check[index].get("warnings"), check[index]
        same_plan(check[index], real[index], ids)
    assert check[2]["bind"]["frontend"] == check[1]["frontend"]["id"] == "(new frontend 80.new)"
    assert check[1]["frontend"]["default_backend"] == check[0]["backend"]["id"]
    assert check[4]["changed"] is False and real[4]["changed"] is False
    stored = es.by_name(engine, "bind")["v4.80.new"]
    assert stored["frontend"]["identifier"] == real[1]["frontend"]["id"]


LB_LIFE = [
    {"anxcloud.lbaas.loadbalancer": {"name": "lb3", "ip_address": "192.0.2.33", "owner": "infra"}},
    {"anxcloud.lbaas.backend": {"load_balancer": "lb3", "name": "80.infra", "mode": "tcp", "owner": "infra"}},
    {"anxcloud.lbaas.backend": {"load_balancer": "lb3", "name": "80.infra", "owner": "infra", "state": "absent"}},
    {"anxcloud.lbaas.loadbalancer": {"name": "lb3", "owner": "infra", "state": "absent"}},
]


def a_load_balancer_registered_used_and_deregistered(engine, plays):
    """Issue 43: a load balancer registered in check mode, a backend on it, the backend removed, the load balancer
    deregistered: each later task finds what the earlier ones predicted (the backend's parent, then no backend in
    the way of the deregistration), and plans what the real run does; afterwards no lb3 is left."""
    check, real = check_then_real(engine, plays)
    ids = {check[0]["loadbalancer"]["id"]: real[0]["loadbalancer"]["id"], check[1]["backend"]["id"]: real[1]["backend"]["id"]}
    assert check[0]["loadbalancer"]["id"] == "(new loadbalancer lb3)" and check[1]["backend"]["load_balancer"] in ids
    for index in range(len(LB_LIFE)):
        assert not check[index].get("warnings"), check[index]
        same_plan(check[index], real[index], ids)
    assert [a["action"] for a in check[3]["plan"]] == ["delete"] and check[3]["loadbalancer"] == {}
    assert "lb3" not in es.by_name(engine, "loadbalancer")


SHOP_AWAY = [
    {"anxcloud.lbaas.service": {"name": "shop", "load_balancers": ["lb1"], "state": "absent"}},
    {"anxcloud.lbaas.ip_address": {"owner": "shop", "state": "absent"}},
]


def service_absent_then_release_its_address(engine, plays, module):
    """(b) the service goes, then its address is released: the release knows the service's binds are
    predicted gone. Module processes set the service up before: the set-up is not what is tested, and the check
    play still starts from no prediction (the real play before it cleared them)."""
    allocated = module("ip_address", {"pool": ["anxlb-pool=demo"], "owner": "shop", "family": "v4"})
    assert not allocated.failed, allocated
    ip = allocated["addresses"][0]["address"]
    made = module("service", {"name": "shop", "load_balancers": ["lb1"], "ports": [{"port": 443}], "addresses": [ip],
                              "servers": [{"name": "n1", "address": "127.0.0.4"}]})
    assert not made.failed and made["changed"] is True, made
    check, real = check_then_real(engine, plays)
    for index in range(2):
        same_plan(check[index], real[index])
        assert side(check[index], "after") == side(real[index], "after")
    assert sorted(a["type"] for a in check[0]["plan"]) == ["backend", "bind", "frontend", "marker", "server"]
    assert check[1]["plan"] == [dict(check[1]["plan"][0], action="release", address=ip)]
    assert check[1]["addresses"] == real[1]["addresses"] == []
    assert ip not in [a for a, (desc, status) in addresses(engine).items() if status != "Marked for deletion"]
    assert not [o for o in es.snapshot(engine).values() if "anxlb-svc=shop" in o["tags"]]


MAINT_SERVICE = {"name": "maint", "load_balancers": ["lb1"], "addresses": ["127.0.10.33"],
                 "ports": [{"name": "http", "port": 80}], "servers": [{"name": "n1", "address": "127.0.0.1"}]}
MAINTENANCE = [
    {"anxcloud.lbaas.service": dict(MAINT_SERVICE, enabled=False)},
    # the frontend the service disabled: nothing to do
    {"anxcloud.lbaas.frontend": {"load_balancer": "lb1", "name": "http.maint", "enabled": False, "owner": "maint"}},
    # another field of it: one update, which keeps it off
    {"anxcloud.lbaas.frontend": {"load_balancer": "lb1", "name": "http.maint", "client_timeout": "5s", "owner": "maint"}},
]


def maintenance_then_the_frontend_module(engine, plays, module):
    """(d) a service takes its port out of service, then the frontend module finds it disabled (no change) and
    changes its timeout (an update that keeps it off): check mode predicts the switch across tasks."""
    assert not module("service", MAINT_SERVICE).failed
    check, real = check_then_real(engine, plays)
    for index in range(3):
        same_plan(check[index], real[index])
        assert side(check[index], "after") == side(real[index], "after")
    assert check[0]["summary"] == "lb1: 0 to add, 1 to change (1 frontend to disable), 0 to destroy"
    assert check[1]["changed"] is False and real[1]["changed"] is False
    assert check[2]["frontend"]["enabled"] is False and real[2]["frontend"]["enabled"] is False
    assert [a["changes"] for a in check[2]["plan"]] == [{"client_timeout": {"before": None, "after": "5000"}}]
    stored = es.by_name(engine, "frontend")["http.maint"]
    assert (stored["enable"], stored["client_timeout"]) == (False, "5000")


LOOP_PLAY = {"module_defaults": {"group/anxcloud.lbaas.lbaas": {"pool": ["anxlb-pool=demo"], "family": "v4"}}}
LOOP = [{"anxcloud.lbaas.ip_address": {"owner": "{{ item }}"}, "loop": ["one", "two"]}]


def addresses_in_a_loop(engine, plays, ansible, cache):
    """(c) ip_address in a loop over two owners of one pool: the second item knows the first one's
    predicted allocation, so check mode predicts two different addresses, the ones the real run takes.

    The pool comes from module_defaults of the action group (through the action plugin), and facts are kept
    in a persistent cache: the predictions are not facts, so none lands there, and a second playbook run does
    not start from the first one's predictions (the first: an ansible-playbook run of its own, in check mode)."""
    first = ansible.run(LOOP, check=True, play=LOOP_PLAY)
    assert first.rc == 0, first
    assert [r["addresses"][0]["address"] for r in first[0]["results"]][0] != first[0]["results"][1]["addresses"][0]["address"]
    assert not [word for word in INTERNAL if word in cached(cache)]

    check, real = check_then_real(engine, plays)
    predicted = [r["addresses"][0]["address"] for r in check[0]["results"]]
    taken = [r["addresses"][0]["address"] for r in real[0]["results"]]
    assert predicted == [r["addresses"][0]["address"] for r in first[0]["results"]]   # not the cached ones
    assert len(set(predicted)) == 2
    assert predicted == taken
    for one, two in zip(check[0]["results"], real[0]["results"]):
        same_plan(one, two)
        assert side(one, "after") == side(two, "after")
    stored = addresses(engine)
    assert [stored[a][0] for a in taken] == ["anxcloud.lbaas: one", "anxcloud.lbaas: two"]


def test_check_mode_predicts_across_tasks_what_the_real_play_does(engine, listings, ansible, module, tmp_path, monkeypatch):
    """The scenarios (a) to (d), the create of parents with children and a load balancer's life, as the plays of one run, facts kept in a
    jsonfile cache for all of it; the run ends well and no prediction was cached. Against today's Engine and one that
    lists whole objects (``listings``): predicted objects are laid over full listing entries as over GETs."""
    cache = tmp_path / "facts"
    monkeypatch.setenv("ANSIBLE_CACHE_PLUGIN", "jsonfile")
    monkeypatch.setenv("ANSIBLE_CACHE_PLUGIN_CONNECTION", str(cache))
    monkeypatch.setenv("ANSIBLE_CACHE_PLUGIN_TIMEOUT", "3600")
    ids = seed_service(engine)
    plays = ansible.session(twice(TEARDOWN) + twice(CREATE_THEN_CHILDREN) + twice(LB_LIFE) + twice(SHOP_AWAY)
                            + twice(MAINTENANCE)
                            + twice(LOOP, play=LOOP_PLAY))
    teardown_in_dependency_order(engine, plays, ids)
    create_then_children_in_check_mode(engine, plays)
    a_load_balancer_registered_used_and_deregistered(engine, plays)
    service_absent_then_release_its_address(engine, plays, module)
    maintenance_then_the_frontend_module(engine, plays, module)
    addresses_in_a_loop(engine, plays, ansible, cache)
    assert plays.played == plays.plays and plays.proc.wait(60) == 0, plays.err.read_text()[-4000:]
    assert not [word for word in INTERNAL if word in cached(cache)]
