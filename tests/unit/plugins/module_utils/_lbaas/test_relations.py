"""What blocks a delete and what the tree nests come from the kinds' declaration (_relations, _blockers,
_views.tree), so a kind declared tomorrow is covered with no edit."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._blockers import blockers
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._lookup import describe, noun
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._relations import child_kinds, referrers
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._views import tree
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model import _kind, _kinds
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import BACKEND, FRONTEND, KINDS, LbaasKind

from ..fakes import FakeClient

LB = "a" * 32


def shown(found):
    return [(r.kind.name, r.kind.parent_kind, r.field, r.by_parent) for r in found]


def test_children_of_every_kind_and_links_block_a_delete():
    assert shown(referrers("frontend")) == [("bind", "frontend", "frontend", True), ("acl", "frontend", "frontend", True),
                                            ("rule", "frontend", "frontend", True)]
    assert shown(referrers("backend")) == [("server", "backend", "backend", True), ("acl", "backend", "backend", True),
                                           ("rule", "backend", "backend", True),
                                           ("frontend", "loadbalancer", "default_backend", False)]
    assert [r.kind.name for r in referrers("loadbalancer")] == ["backend", "frontend"]
    assert [referrers(k) for k in ("bind", "server", "rule")] == [[], [], []]


def test_child_kinds_are_the_variants_under_the_parent():
    assert [(k.name, k.parent) for k in child_kinds("frontend")] == [("bind", "frontend"), ("acl", "frontend"),
                                                                     ("rule", "frontend")]
    assert [(k.name, k.parent) for k in child_kinds("backend")] == [("server", "backend"), ("acl", "backend"),
                                                                    ("rule", "backend")]
    assert [k.name for k in child_kinds("loadbalancer")] == ["backend", "frontend"]


def test_a_kind_declared_tomorrow_is_covered_with_no_edit(monkeypatch):
    monkeypatch.setattr(_kind, "_REGISTRY", dict(_kind._REGISTRY))   # the toy kind registers itself: only here
    cert = LbaasKind("certificate", "frontend", "frontend", {"pem": str}, links={"fallback": "backend"}, noun="TLS certificate")
    monkeypatch.setitem(KINDS, "certificate", cert)
    assert ("certificate", "frontend", True) in [(r.kind.name, r.field, r.by_parent) for r in referrers("frontend")]
    assert ("certificate", "fallback", False) in [(r.kind.name, r.field, r.by_parent) for r in referrers("backend")]
    assert "certificate" in [k.name for k in child_kinds("frontend")]
    assert describe("certificate", {"name": "www"}) == "TLS certificate 'www'"


def test_labels_come_from_the_declaration():
    assert [noun(k) for k in KINDS] == ["load balancer", "backend", "frontend", "bind", "server", "ACL", "rule"]
    assert noun(_kinds.ACL.under("backend")) == "ACL"


def frontend_with_acl_and_rule():
    client = FakeClient()
    backend = client.add("backend", "80.web", load_balancer=LB)
    frontend = client.add("frontend", "80.web", load_balancer=LB, default_backend=backend)
    acl = client.add("acl", "office", parent_type="frontend", frontend=frontend)
    rule = client.add("rule", "accept-office", parent_type="frontend", frontend=frontend, condition_test="office")
    server = client.add("server", "n1", backend=backend)
    other = client.add("frontend", "81.web", load_balancer=LB)   # on the same load balancer, using another backend
    client.add("acl", "elsewhere", parent_type="frontend", frontend=other)
    return client, dict(backend=backend, frontend=frontend, acl=acl, rule=rule, server=server, other=other)


def test_blockers_list_each_referring_kind_once_filtered_by_the_object():
    client, ids = frontend_with_acl_and_rule()
    obj = FRONTEND.from_engine(client.objects[ids["frontend"]])
    assert blockers(client, FRONTEND, obj) == [("acl", {"identifier": ids["acl"], "name": "office"}),
                                               ("rule", {"identifier": ids["rule"], "name": "accept-office"})]
    assert client.calls == [("LIST", "bind", (("frontend", ids["frontend"]),)),
                            ("LIST", "acl", (("frontend", ids["frontend"]),)),
                            ("LIST", "rule", (("frontend", ids["frontend"]),))]


def test_a_link_the_engine_does_not_filter_by_is_read_on_the_shared_parent_only():
    client, ids = frontend_with_acl_and_rule()
    obj = BACKEND.from_engine(client.objects[ids["backend"]])
    assert blockers(client, BACKEND, obj) == [("server", {"identifier": ids["server"], "name": "n1"}),
                                              ("frontend", {"identifier": ids["frontend"], "name": "80.web"})]
    assert [c for c in client.calls if c[0] == "LIST"][-1] == ("LIST", "frontend", (("load_balancer", LB),))
    assert sorted(c[2] for c in client.calls if c[0] == "GET") == sorted([ids["frontend"], ids["other"]])


def test_tree_nests_every_kind_under_its_parent_by_name():
    client, ids = frontend_with_acl_and_rule()
    client.tags[ids["frontend"]] = ["anxlb-svc=web"]
    lb = {"kind": "loadbalancer", "id": LB, "name": "lb1"}
    out = tree(client, lb)
    assert sorted(out) == ["backends", "frontends"]
    web, other = out["frontends"]
    assert (web["name"], web["default_backend"], web["owner"]) == ("80.web", "80.web", "web")
    assert [(a["name"], a["frontend"], a["owner"]) for a in web["acls"]] == [("office", "80.web", "web")]
    assert [(r["name"], r["owner"]) for r in web["rules"]] == [("accept-office", "web")]
    assert [(a["name"], a["owner"]) for a in other["acls"]] == [("elsewhere", None)]
    (backend,) = out["backends"]
    assert [(s["name"], s["backend"]) for s in backend["servers"]] == [("n1", "80.web")]
    assert backend["acls"] == backend["rules"] == []
