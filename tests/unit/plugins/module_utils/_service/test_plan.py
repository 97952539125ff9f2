"""Planning one service on one load balancer from observed objects (no I/O)."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import build
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._observed import Observed
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._plan import LbPlanner

from ..fakes import state

TAG = "anxlb-svc=web"
LB = {"kind": "loadbalancer", "id": "l" * 32, "name": "lb1"}
OK = state("Deployed")
SERVICE = {"name": "web", "ports": [{"name": "http", "port": 80, "target_port": 30080},
                                    {"name": "https", "port": 443, "target_port": 30443}],
           "addresses": ["192.0.2.10"], "servers": [{"name": "n1", "address": "10.0.0.1"}]}


class World:
    """Builds the observation a converged service would produce, to be modified per test."""

    def __init__(self):
        self.n = 0
        d = build(SERVICE)
        self.backends, self.frontends, self.binds, self.servers = [], [], [], []
        for port, fields in d.by_kind["backend"].items():
            b = self.add(self.backends, "backend", fields, load_balancer=LB["id"])
            f = self.add(self.frontends, "frontend", d.by_kind["frontend"][port], load_balancer=LB["id"], default_backend=b["id"])
            for (p, dummy), bind in d.by_kind["bind"].items():
                if p == port:
                    self.add(self.binds, "bind", bind, frontend=f["id"])
            for (p, dummy), server in d.by_kind["server"].items():
                if p == port:
                    self.add(self.servers, "server", server, backend=b["id"])

    def add(self, where, kind, fields, tags=(TAG,), **links):
        self.n += 1
        obj = dict(fields, kind=kind, id="%032x" % self.n, state=dict(OK), tags=list(tags), **links)
        where.append(obj)
        return obj

    def observed(self, **kw):
        return Observed(LB, {"backend": self.backends, "frontend": self.frontends, "bind": self.binds,
                             "server": self.servers}, **kw)


def plan(service, observed):
    return LbPlanner(build(service), observed, TAG).plan()


def ops(result):
    return sorted((a.op, a.kind.name, a.obj["name"]) for a in result.actions)


def test_converged_service_plans_nothing():
    out = plan(SERVICE, World().observed())
    assert out.actions == [] and out.waits == []


def test_fresh_service_creates_the_whole_tree_with_placeholders():
    out = plan(SERVICE, Observed(LB))
    assert ops(out) == sorted([("create", k, n) for k, n in [
        ("backend", "http.web"), ("backend", "https.web"), ("frontend", "http.web"), ("frontend", "https.web"),
        ("bind", "v4.http.web"), ("bind", "v4.https.web"), ("server", "n1.http.web"), ("server", "n1.https.web")]])
    server = [a for a in out.actions if a.obj["name"] == "n1.https.web"][0]
    assert server.obj["backend"] == "(new backend https.web on lb1)"
    # ownership by containment: the backends and frontends carry the owner tag, their binds and servers none
    assert sorted((a.kind.name, tuple(a.tags)) for a in out.actions) == sorted(
        [(k, (TAG,)) for k in ("backend", "backend", "frontend", "frontend")] + [(k, ()) for k in ("bind", "bind", "server", "server")])
    assert [c[:2] for c in out.binds_to_check] == [("192.0.2.10", 80), ("192.0.2.10", 443)]


def test_removing_a_port_touches_only_that_port():
    service = dict(SERVICE, ports=[SERVICE["ports"][1]])
    out = plan(service, World().observed())
    assert ops(out) == [("delete", "backend", "http.web"), ("delete", "bind", "v4.http.web"),
                        ("delete", "frontend", "http.web"), ("delete", "server", "n1.http.web")]


def test_changing_a_target_port_updates_servers_in_place():
    service = dict(SERVICE, ports=[SERVICE["ports"][0], dict(SERVICE["ports"][1], target_port=31443)])
    out = plan(service, World().observed())
    assert ops(out) == [("update", "server", "n1.https.web")]
    assert out.actions[0].changes == {"port": (30443, 31443)}


def test_untagged_object_with_the_desired_name_is_adopted_and_a_duplicate_of_ours_deleted():
    world = World()
    world.backends[0]["tags"] = []
    dup = world.add(world.backends, "backend", dict(world.backends[1], tags=None), load_balancer=LB["id"])
    out = plan(SERVICE, world.observed())
    assert ops(out) == [("delete", "backend", dup["name"]), ("tag", "backend", "http.web")]


def test_foreign_objects_are_never_touched_and_a_held_address_is_a_conflict():
    world = World()
    world.add(world.backends, "backend", {"name": "other"}, tags=["anxlb-svc=shop"], load_balancer=LB["id"])
    service = dict(SERVICE, addresses=["192.0.2.10", "2001:db8::1"])
    foreign = [{"kind": "bind", "id": "f" * 32, "name": "v6.http.shop", "address": "2001:db8::1", "port": 80,
                "tags": ["anxlb-svc=shop"]}]
    planner = LbPlanner(build(service), world.observed(foreign_binds=foreign), TAG)
    out = planner.plan()
    assert ops(out) == [("create", "bind", "v6.http.web"), ("create", "bind", "v6.https.web")]
    assert planner.conflicts() == [dict(load_balancer="lb1", load_balancer_id=LB["id"], address="2001:db8::1", port=80,
                                        bind="v6.http.web", holder="shop", holder_bind="v6.http.shop",
                                        holder_bind_id="f" * 32)]


def test_orphaned_tagged_bind_is_removed():
    world = World()
    world.add(world.binds, "bind", {"name": "v4.gone.web", "address": "192.0.2.10", "port": 8080},
              frontend="9" * 32)
    out = plan(SERVICE, world.observed())
    assert ops(out) == [("delete", "bind", "v4.gone.web")]


def test_names_of_the_services_scheme_are_told_apart_from_other_names():
    desired = build(dict(SERVICE, name_suffix="prod"))
    assert desired.names_a_parent("http.web.prod") and desired.names_a_parent("admin.web.prod")
    assert not any(desired.names_a_parent(n) for n in (
        "http.web", "web.prod", "v4.http.web.prod", "http.web.prod2", ".web.prod", "", None))
    assert build(SERVICE).names_a_parent("metrics.web") and not build(SERVICE).names_a_parent("metrics.web2")


def test_an_untagged_parent_named_as_ours_but_not_wanted_is_left_alone_and_reported():
    # A run that ended between the create of port "admin" and its tag write left this backend.
    left = {"kind": "backend", "id": "b" * 32, "name": "admin.web"}
    out = plan(SERVICE, World().observed(untagged_named=[left]))
    assert out.actions == []
    assert len(out.warnings) == 1 and "admin.web" in out.warnings[0] and "b" * 32 in out.warnings[0]
    assert "left alone" in out.warnings[0] and "lb1" in out.warnings[0]


def test_an_object_of_another_prefix_with_a_desired_name_is_never_adopted_but_reported_as_taken():
    """Issue 18: the same service name under tag prefix xanxlb; every *-svc= tag is an owner."""
    world = World()
    for obj in world.backends + world.frontends + world.binds + world.servers:
        obj["tags"] = ["xanxlb-svc=web"]
    out = plan(dict(SERVICE, addresses=["192.0.2.99"]), world.observed())
    assert not [a for a in out.actions if a.op != "create"], ops(out)
    assert sorted((t["type"], t["name"], tuple(t["owner_tags"])) for t in out.taken) == [
        ("backend", "http.web", ("xanxlb-svc=web",)), ("backend", "https.web", ("xanxlb-svc=web",)),
        ("frontend", "http.web", ("xanxlb-svc=web",)), ("frontend", "https.web", ("xanxlb-svc=web",))]


def test_a_child_of_ours_carrying_another_owner_tag_is_not_ours_and_blocks_deleting_its_parent():
    world = World()
    stray = world.add(world.binds, "bind", {"name": "v4.extra", "address": "192.0.2.77", "port": 80},
                      tags=["team2-svc=api"], frontend=world.frontends[0]["id"])
    out = plan(dict(SERVICE, ports=SERVICE["ports"][1:]), world.observed())
    assert ("delete", "bind", "v4.extra") not in ops(out)
    assert [(t["type"], t["name"], t["holder_name"], t["owner_tags"]) for t in out.taken] == [
        ("frontend", "http.web", stray["name"], ["team2-svc=api"])]


def test_an_untagged_child_of_ours_is_ours_as_it_is_never_tagged_and_a_tagged_one_stays_valid():
    """Ownership by containment: a bind or server under a parent of ours is ours without a tag of its own; one
    carrying our tag (written by earlier versions) is neither untagged nor tagged again."""
    world = World()
    for child in world.binds:
        child["tags"] = []
    assert plan(SERVICE, world.observed()).actions == []
    world.binds[0]["port"] = 8080   # differs: updated in place, still without a tag
    (action,) = plan(SERVICE, world.observed()).actions
    assert (action.op, action.kind.name, action.tags) == ("update", "bind", [])
    assert action.premise is world.frontends[0]   # the write relies on the parent's tag
    assert all(s["tags"] == [TAG] for s in world.servers)   # the tagged servers: no action at all above


def test_a_new_server_under_an_existing_backend_of_ours_is_created_without_a_tag():
    world = World()
    out = plan(dict(SERVICE, servers=SERVICE["servers"] + [{"name": "n2", "address": "10.0.0.2"}]), world.observed())
    assert sorted((a.op, a.kind.name, a.obj["name"], tuple(a.tags)) for a in out.actions) == [
        ("create", "server", "n2.http.web", ()), ("create", "server", "n2.https.web", ())]
    assert all(a.premise in world.backends for a in out.actions)
