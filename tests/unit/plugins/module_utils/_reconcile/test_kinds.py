"""Every kind a reconciler runs against the one interface (``_model._kind``): the LBaaS objects, the
IPAM address, gc's marker; and the one lease implementation the service guard and gc share."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._apply import AddressOperations
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._observe import AddressState
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._plan import (
    ADDRESS, ADOPT, ALLOCATE, RELEASE, placeholder as address_placeholder)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import Prefix, flat, pools_for
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import AccessDeniedError, ServerError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._apply import gc_operations
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._plan import MARKER_KIND, GcPlan, marker_removal
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import ACL, BACKEND, BIND, FRONTEND, RULE, SERVER
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import Applier, EngineOperations
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kind import (
    CREATE, DELETE, TAG, Kind, kind_named)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._lease import Leases, LeaseTag
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import (
    UPDATE, Action, Placeholder, Plan, is_placeholder, placeholder)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Waiter

from ..fakes import FakeClient

LB = {"kind": "loadbalancer", "id": "a" * 32, "name": "lb1"}
DESIRED = {
    "backend": ("load_balancer", {"mode": "tcp", "health_check": None, "server_timeout": 30}),
    "frontend": ("load_balancer", {"mode": "tcp", "default_backend": "b" * 32, "client_timeout": "5000"}),
    "bind": ("frontend", {"address": "192.0.2.1", "port": 80, "ssl": False, "ssl_certificate_path": None}),
    "server": ("backend", {"ip": "192.0.2.10", "port": 8080, "check": "enabled"}),
    "acl": ("frontend", {"parent_type": "frontend", "criterion": "src", "value": "10.0.0.0/8", "index": 0}),
    "rule": ("frontend", {"parent_type": "frontend", "index": 1, "condition": "if", "condition_test": "office",
                          "type": "connection", "action": "accept"}),
}


@pytest.mark.parametrize("kind", [BACKEND, FRONTEND, BIND, SERVER, ACL, RULE], ids=lambda k: k.name)
def test_an_lbaas_kind_against_the_interface(kind):
    parent, fields = DESIRED[kind.name]
    assert isinstance(kind, Kind) and kind_named(kind.name) is kind and kind.references()[0] == parent
    desired = dict(fields, kind=kind.name, id=placeholder(kind.name, "x.web", "lb1"), name="x.web", **{parent: "p" * 32})
    assert kind.identity(desired) == ("p" * 32, "x.web")
    body = kind.to_engine(desired)
    assert None not in body.values() and body["name"] == "x.web" and body[parent] == "p" * 32
    read = kind.from_engine(dict(body, identifier="1" * 32, state={"id": "3", "title": "Deployed", "type": 1}))
    assert dict((f, read[f]) for f in fields) == fields   # normalised back to what was asked for
    assert kind.update_body(read, {"name": "y.web"})["name"] == "y.web"
    predicted = Plan([Action(CREATE, kind, desired, tags=["anxlb-svc=web"])]).predict({})[desired["id"]]
    assert predicted["state"]["title"] == "NewlyCreated" and predicted["planned"] == "create"
    assert predicted["tags"] == ["anxlb-svc=web"] and kind.effect(CREATE) == CREATE
    entry = Action(CREATE, kind, desired, lb=LB, reason="r").to_dict()
    assert entry["id"] == "(new %s x.web on lb1)" % kind.name and entry["type"] == kind.name and entry["load_balancer"] == "lb1"


def test_lbaas_kinds_are_written_by_the_engine_operations_which_confirm_by_the_wait():
    client = FakeClient()
    applier = Applier(client, Waiter(client, 1, sleep=lambda s: None))
    backend = dict(kind="backend", id=placeholder("backend", "80.web"), name="80.web", load_balancer=LB["id"], mode="tcp")
    plan = Plan([Action(CREATE, BACKEND, backend, tags=["anxlb-svc=web"])])
    assert isinstance(applier.ops(BACKEND), EngineOperations) and applier.confirms_by_wait(plan)
    target = applier.apply(plan)[0]
    assert applier.ids[backend["id"]] == target.id and target.spec is BACKEND
    assert [c[0] for c in client.writes()] == ["POST", "TAG"]


def test_placeholders_are_typed_and_read_as_before():
    ph = placeholder("frontend", "80.web", "lb1")
    assert isinstance(ph, Placeholder) and is_placeholder(ph) and ph == "(new frontend 80.web on lb1)"
    assert not is_placeholder("(new frontend 80.web on lb1)")   # text is not a placeholder ...
    assert is_placeholder(Placeholder.parse("(new frontend 80.web on lb1)"))   # ... until typed where it comes back
    assert Placeholder.parse("1" * 32) == "1" * 32 and not is_placeholder(Placeholder.parse("1" * 32))
    assert ph.numbered(2) == "(new frontend 80.web on lb1 #2)" and is_placeholder(ph.numbered(2))


# ---- the address ------------------------------------------------------------------------------------
PREFIX = Prefix({"identifier": "p" * 32, "name": "192.0.2.0/29"})


class AddressClient:
    """Address objects by id; every call recorded."""

    def __init__(self):
        self.objects = {}
        self.calls = []

    def map(self, fn, items):
        return [fn(i) for i in items]

    def address_create(self, prefix, ip, description=""):
        ident = "%032x" % (len(self.objects) + 1)
        self.objects[ident] = ip
        self.calls.append(("create", ip))
        return {"identifier": ident, "name": ip}

    def address_list(self, prefix=None, search=None, **kwargs):
        return [{"identifier": i, "name": ip} for i, ip in self.objects.items() if (search or "") in ip]

    def address_delete(self, ident):
        self.calls.append(("delete", self.objects.pop(ident)))

    def tag_add(self, ident, tag):
        self.calls.append(("tag", ident, tag))


def test_the_address_kind_against_the_interface():
    assert isinstance(ADDRESS, Kind) and kind_named("address") is ADDRESS
    assert [ADDRESS.effect(op) for op in (ALLOCATE, RELEASE, ADOPT)] == [CREATE, DELETE, TAG]
    new = flat(PREFIX, "192.0.2.3", address_placeholder(PREFIX.id, "192.0.2.3"), "web")
    assert ADDRESS.identity(new) == (PREFIX.id, "192.0.2.3") and is_placeholder(new["id"])
    old = flat(PREFIX, "192.0.2.5", "5" * 32, "web")
    plan = Plan([Action(ALLOCATE, ADDRESS, new, tags=["anxlb-svc=web"]), Action(RELEASE, ADDRESS, old)]).ordered()
    assert [a.op for a in plan] == [RELEASE, ALLOCATE]   # a release first: its address may be the one picked
    after = plan.predict({old["id"]: old})
    assert list(after) == [new["id"]] and after[new["id"]]["planned"] == ALLOCATE and "state" not in after[new["id"]]
    assert plan.to_list()[1] == {"action": "allocate", "address": "192.0.2.3", "prefix": "192.0.2.0/29", "id": None,
                                 "reason": ""}


def test_the_address_operations_write_in_plan_order_through_the_one_applier():
    client = AddressClient()
    client.objects["5" * 32] = "192.0.2.5"
    new = flat(PREFIX, "192.0.2.1", address_placeholder(PREFIX.id, "192.0.2.1"), "web")
    loose = flat(PREFIX, "192.0.2.6", "6" * 32, "web")
    ops = AddressOperations(client, AddressState([PREFIX.id], [], pools=pools_for([PREFIX])), "web", "anxlb")
    applier = Applier(client, None, operations={"address": ops})
    plan = Plan([Action(ALLOCATE, ADDRESS, new, tags=["anxlb-svc=web"]), Action(ADOPT, ADDRESS, loose, tags=["anxlb-svc=web"]),
                 Action(RELEASE, ADDRESS, flat(PREFIX, "192.0.2.5", "5" * 32, "web"))]).ordered()
    assert not applier.confirms_by_wait(plan) and ops.sequential
    assert applier.apply(plan) == []   # nothing to wait for
    made = applier.ids[new["id"]]
    assert client.calls == [("delete", "192.0.2.5"), ("tag", "6" * 32, "anxlb-svc=web"), ("create", "192.0.2.1"),
                            ("tag", made, "anxlb-svc=web")]


# ---- the marker (gc) --------------------------------------------------------------------------------
def test_the_marker_kind_goes_after_the_objects_it_vouches_for_are_gone():
    client = FakeClient()
    lb = dict(LB, id=client.add("loadbalancer", "lb1"))
    bind = client.add("bind", "v4.80.web", frontend="f" * 32)
    marker = "anxlb-reconciled.web=1,0.1.0,abc,1"
    client.tag_add(lb["id"], marker)
    removal = marker_removal(lb, marker, "web")
    assert isinstance(MARKER_KIND, Kind) and removal.effect == DELETE and MARKER_KIND.identity(removal.obj) == (lb["id"], marker)
    assert removal.to_dict() == {"type": "marker", "name": marker, "id": None, "owner": "web", "load_balancer": "lb1",
                                 "reason": "the owner's marker; nothing of it is left on the load balancer"}
    delete = Action(DELETE, BIND, {"kind": "bind", "id": bind, "name": "v4.80.web"}, lb=lb, owner="web")
    plan = GcPlan([removal, delete]).ordered()
    assert [a.kind.name for a in plan] == ["bind", "marker"] and plan.predict({bind: {}}) == {}
    failed = {}
    client.calls = []
    gc_applier(client, failed).apply(plan)
    steps = [c[:2] for c in client.calls if c[0] in ("DELETE", "GET", "UNTAG", "DELETE TAG")]
    assert steps[:3] == [("DELETE", "bind"), ("GET", "bind"), ("UNTAG", marker)] and failed == {}
    assert marker not in client.entities   # its tag entity went with it


def test_an_owner_whose_removal_fails_is_recorded_and_the_next_goes_on():
    client = FakeClient()
    refused = client.add("bind", "a")
    other = client.add("bind", "b")
    client.delete_errors[refused] = [AccessDeniedError("refused", status=403, method="DELETE", path="/x")]
    failed = {}
    plan = GcPlan([Action(DELETE, BIND, {"kind": "bind", "id": refused, "name": "a"}, owner="one"),
                   Action(DELETE, BIND, {"kind": "bind", "id": other, "name": "b"}, owner="two")]).ordered()
    applier = gc_applier(client, failed)
    assert not applier.confirms_by_wait(plan)   # the loop looks again: only that shows what a failed owner kept
    assert applier.apply(plan) == []
    assert list(failed) == ["one"] and "refused" in failed["one"]
    assert refused in client.objects and other not in client.objects


def gc_applier(client, failed):
    """gc's applier as its run makes it: its kinds' operations, owner by owner."""
    return Applier(client, Waiter(client, 1, sleep=lambda s: None), operations=gc_operations(client, None),
                   isolate=lambda action: action.owner, failed=failed)


# ---- the lease: one implementation for the service guard and gc --------------------------------------
def test_leases_one_at_a_time_leave_out_a_load_balancer_another_run_holds_and_say_so_once():
    client = FakeClient()
    lb1 = dict(LB, id=client.add("loadbalancer", "lb1"))
    lb2 = dict(LB, id=client.add("loadbalancer", "lb2"), name="lb2")
    theirs = LeaseTag("anxlb", "other@host:1", 2 * 10 ** 9).name
    client.tag_add(lb2["id"], theirs)
    warned = []
    leases = Leases(client, "anxlb", "gc@ctl:1", 600, client.resource_tags, clock=lambda: 10 ** 9, warn=warned.append)
    failed = leases.acquire_each([lb1, lb2], {lb1["id"]: [], lb2["id"]: [theirs]})
    assert list(failed) == [lb2["id"]] and "is leased by other@host:1" in failed[lb2["id"]]
    assert [lb["id"] for lb, _lease in leases.held] == [lb1["id"]] and not leases.changed([lb1], {lb1["id"]: []})
    assert leases.changed([lb1], {lb1["id"]: ["anxlb-reconciled.web=1,x,y,1"]})

    def refuse(ident, tag):
        raise ServerError("down", status=503, method="DELETE", path="/t")
    client.tag_remove = refuse
    leases.warn_left(leases.release())
    assert len(warned) == 1 and warned[0].startswith("the lease tag 'anxlb-lease=gc@ctl:1@") and warned[0].endswith(
        "stays on load balancer lb1 until 2001-09-09T01:56:40Z: it could not be removed")


def test_update_is_an_update_for_every_lbaas_kind():
    assert all(kind.effect(UPDATE) == UPDATE for kind in (BACKEND, FRONTEND, BIND, SERVER, ACL, RULE))
