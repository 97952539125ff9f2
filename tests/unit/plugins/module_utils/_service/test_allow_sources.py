"""allow_sources: the declaration's ACLs and rules per frontend, and how the service plans them (no I/O)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import Plan
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import build
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._observed import Observed
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._plan import LbPlanner

from ..fakes import state

TAG = "anxlb-svc=web"
LB = {"kind": "loadbalancer", "id": "l" * 32, "name": "lb1"}
BASE = {"name": "web", "ports": [{"name": "http", "port": 80}], "addresses": ["192.0.2.10"],
        "servers": [{"name": "n1", "address": "10.0.0.1"}]}


def with_sources(sources, **port):
    return dict(BASE, allow_sources=sources, ports=[dict(BASE["ports"][0], **port)])


def names(desired):
    return sorted(a["name"] for a in desired.by_kind["acl"].values())


def test_networks_are_normalised_deduplicated_sorted_and_named_from_the_network():
    d = build(with_sources(["2001:db8:0::/32", "10.0.0.0/8", "10.0.0.0/8", "192.0.2.7"]))
    assert d.allow_sources("http") == ["10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32"]
    assert names(d) == ["allow-10-0-0-0_8.http.web", "allow-192-0-2-7_32.http.web", "allow-2001-db8--_32.http.web",
                        "deny-v4.http.web", "deny-v6.http.web"]
    rules = dict((r["name"], (r["action"], r["index"], r["condition_test"])) for r in d.by_kind["rule"].values())
    assert rules["allow-10-0-0-0_8.http.web"] == ("accept", 0, "allow-10-0-0-0_8.http.web")
    assert rules["deny-v6.http.web"] == ("reject", 1, "deny-v6.http.web")
    assert dict((a["name"], a["value"]) for a in d.by_kind["acl"].values())["deny-v6.http.web"] == "::/0"


@pytest.mark.parametrize("sources", [None, []])
def test_unset_or_empty_is_open_and_hashes_as_before(sources):
    d = build(with_sources(sources))
    assert d.by_kind["acl"] == {} and d.by_kind["rule"] == {} and d.allow_sources("http") is None
    assert sorted(d.as_data()) == ["backends", "binds", "frontends", "servers"]


def test_a_port_overrides_the_service_list_and_an_empty_port_list_opens_it():
    service = dict(BASE, allow_sources=["10.0.0.0/8"],
                   ports=[{"name": "http", "port": 80, "allow_sources": ["192.0.2.0/24"]},
                          {"name": "ssh", "port": 22, "allow_sources": []}, {"name": "db", "port": 5432}])
    d = build(service)
    assert (d.allow_sources("http"), d.allow_sources("ssh"), d.allow_sources("db")) == (
        ["192.0.2.0/24"], None, ["10.0.0.0/8"])


@pytest.mark.parametrize("sources, option", [(["10.0.0.1/8"], "allow_sources[0]"), (["", "10.0.0.0/8"], "allow_sources[0]"),
                                             (["10.0.0.0/8", "not-a-net"], "allow_sources[1]")])
def test_bad_networks_fail_naming_the_option(sources, option):
    with pytest.raises(Failure) as err:
        build(with_sources(sources))
    assert option in str(err.value)


def test_a_port_list_is_checked_under_its_own_option():
    with pytest.raises(Failure) as err:
        build(dict(BASE, ports=[{"name": "http", "port": 80, "allow_sources": ["300.0.0.0/8"]}]))
    assert "ports[0].allow_sources[0]" in str(err.value)


# ---- planning ---------------------------------------------------------------------------------------
def converged(service):
    """The observation of ``service`` fully converged (every object deployed, parents tagged)."""
    d = build(service)
    n = [0]

    def obj(kind, fields, tags=(), **links):
        n[0] += 1
        return dict(fields, kind=kind, id="%032x" % n[0], state=state("Deployed"), tags=list(tags), **links)
    b = obj("backend", d.by_kind["backend"]["http"], (TAG,), load_balancer=LB["id"])
    f = obj("frontend", d.by_kind["frontend"]["http"], (TAG,), load_balancer=LB["id"], default_backend=b["id"])
    binds = [obj("bind", x, frontend=f["id"]) for x in d.by_kind["bind"].values()]
    servers = [obj("server", x, backend=b["id"]) for x in d.by_kind["server"].values()]
    acls = [obj("acl", x, frontend=f["id"], backend=None) for x in d.by_kind["acl"].values()]
    rules = [obj("rule", x, frontend=f["id"], backend=None) for x in d.by_kind["rule"].values()]
    return Observed(LB, {"backend": [b], "frontend": [f], "bind": binds, "server": servers, "acl": acls, "rule": rules})


def plan(service, observed):
    return LbPlanner(build(service), observed, TAG).plan()


def ops(out):
    return sorted((a.op, a.kind.name, a.obj["name"]) for a in out.actions)


def by_name(out, kind, name):
    return [a for a in out.actions if a.kind.name == kind and a.obj["name"] == name][0]


def test_converged_allow_list_plans_nothing():
    service = with_sources(["10.0.0.0/8", "2001:db8::/32"])
    assert plan(service, converged(service)).actions == []


def test_turning_on_creates_rejects_only_after_every_accept_rule():
    out = plan(with_sources(["10.0.0.0/8", "192.0.2.0/24"]), converged(BASE))
    assert ops(out) == sorted([("create", k, n) for n in ("allow-10-0-0-0_8.http.web", "allow-192-0-2-0_24.http.web",
                                                          "deny-v4.http.web", "deny-v6.http.web") for k in ("acl", "rule")])
    accepts = [by_name(out, "rule", n) for n in ("allow-10-0-0-0_8.http.web", "allow-192-0-2-0_24.http.web")]
    for deny in ("deny-v4.http.web", "deny-v6.http.web"):
        reject = by_name(out, "rule", deny)
        assert set(accepts) | {by_name(out, "acl", deny)} == set(reject.needs)
    assert accepts[0].needs == [by_name(out, "acl", "allow-10-0-0-0_8.http.web")]
    assert all(not a.tags for a in out.actions)   # ours by containment, never owner-tagged


def test_a_fresh_service_binds_only_after_its_rules():
    out = plan(with_sources(["10.0.0.0/8"]), Observed(LB))
    bind = by_name(out, "bind", "v4.http.web")
    assert set(a.kind.name for a in bind.needs) == {"rule"} and len(bind.needs) == 3
    rule = by_name(out, "rule", "deny-v4.http.web")
    assert rule.obj["frontend"] == "(new frontend http.web on lb1)" and rule.obj["condition_test"] == "deny-v4.http.web"


def test_changing_one_network_touches_only_that_network_and_deletes_it_after_the_new_one():
    before = with_sources(["10.0.0.0/8", "192.0.2.0/24"])
    out = plan(with_sources(["10.0.0.0/8", "198.51.100.0/24"]), converged(before))
    assert ops(out) == [("create", "acl", "allow-198-51-100-0_24.http.web"), ("create", "rule", "allow-198-51-100-0_24.http.web"),
                        ("delete", "acl", "allow-192-0-2-0_24.http.web"), ("delete", "rule", "allow-192-0-2-0_24.http.web")]
    new_rule = by_name(out, "rule", "allow-198-51-100-0_24.http.web")
    for kind in ("acl", "rule"):
        assert by_name(out, kind, "allow-192-0-2-0_24.http.web").after is new_rule
    ordered = [(a.op, a.kind.name) for a in Plan(out.actions).ordered()]
    assert ordered == [("create", "acl"), ("create", "rule"), ("delete", "rule"), ("delete", "acl")]


def test_turning_off_deletes_the_reject_rules_first():
    before = with_sources(["10.0.0.0/8"])
    out = plan(BASE, converged(before))
    ordered = [(a.kind.name, a.obj["name"]) for a in Plan(out.actions).ordered()]
    assert ordered[:2] == sorted([("rule", "deny-v4.http.web"), ("rule", "deny-v6.http.web")])
    assert set(ordered[2:4]) == {("acl", "deny-v4.http.web"), ("acl", "deny-v6.http.web")}
    assert ordered[4:] == [("rule", "allow-10-0-0-0_8.http.web"), ("acl", "allow-10-0-0-0_8.http.web")]


def test_a_removed_port_takes_its_acls_and_rules_in_the_early_levels():
    service = with_sources(["10.0.0.0/8"])
    out = plan(dict(service, ports=[{"name": "other", "port": 81}]), converged(service))
    assert all(a.after is None for a in out.actions if a.op == "delete")
    assert {("delete", "rule"), ("delete", "acl"), ("delete", "frontend")} <= set((a.op, a.kind.name) for a in out.actions)


def test_another_owners_acl_under_our_frontend_is_never_touched_and_blocks_only_a_delete():
    service = with_sources(["10.0.0.0/8"])
    observed = converged(service)
    foreign = dict(observed.by_kind["acl"][0], id="f" * 32, name="theirs", tags=["anxlb-svc=other"])
    observed.by_kind["acl"].append(foreign)
    out = plan(service, observed)
    assert out.actions == [] and out.taken == []
    gone = plan(dict(service, ports=[]), observed)
    assert "f" * 32 not in [a.id for a in gone.actions]
    assert [t["holder_id"] for t in gone.taken] == ["f" * 32]


def test_a_changed_value_under_our_name_is_updated_in_place():
    service = with_sources(["10.0.0.0/8"])
    observed = converged(service)
    acl = [a for a in observed.by_kind["acl"] if a["name"].startswith("allow-")][0]
    acl["value"] = "11.0.0.0/8"
    out = plan(service, observed)
    assert ops(out) == [("update", "acl", "allow-10-0-0-0_8.http.web")]
    assert out.actions[0].changes == {"value": ("11.0.0.0/8", "10.0.0.0/8")}


def test_the_applier_waits_for_what_an_action_needs():
    """_dependencies: a rule waits for its ACL (named by name, not by a link), a reject for the accepts."""
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import _dependencies
    out = plan(with_sources(["10.0.0.0/8"]), converged(BASE))
    waiting, after = _dependencies(list(out.actions))
    accept = by_name(out, "rule", "allow-10-0-0-0_8.http.web")
    reject = by_name(out, "rule", "deny-v4.http.web")
    assert waiting[by_name(out, "acl", "allow-10-0-0-0_8.http.web")] == 0 and waiting[accept] == 1
    assert waiting[reject] == 2 and reject in after[accept]
