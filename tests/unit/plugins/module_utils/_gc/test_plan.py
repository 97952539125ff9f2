"""gc's decisions from a snapshot (no I/O but the bind listing, stubbed): who goes, what stays and why, the cap."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._request import GcRequest
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._observe import AddressState
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._plan import flat
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import Prefix
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._plan import (
    age_reason, parse_created, select, summary)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import owned_rrsets
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._collection import Collection, GcState, OwnerSnapshot
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._names import GcZones
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import DELETE, Action

from ..fakes import FakeClient

NOW = 1767225600
LB1 = {"kind": "loadbalancer", "id": "1" * 32, "name": "lb1"}
LB2 = {"kind": "loadbalancer", "id": "2" * 32, "name": "lb2"}
UNKNOWN = {"kind": "loadbalancer", "id": None, "name": "(unknown load balancer)"}
PREFIX = Prefix({"identifier": "p" * 32, "name": "192.0.2.0/24"})


def test_the_live_set_decides_and_remove_goes_in_any_case():
    assert select(["api", "shop", "old"], ["shop"], []) == (["api", "old"], ["shop"])
    assert select(["api", "shop"], ["shop", "gone"], ["x"]) == (["api", "x"], ["shop"])
    assert select(["api", "shop"], None, ["api"]) == (["api"], [])
    assert select(["api"], [], []) == (["api"], [])


def test_age_is_the_youngest_known_time_and_unknown_counts_as_young_when_min_age_is_set():
    assert parse_created("2026-01-01 00:00:00") == NOW and parse_created(None) is None and parse_created("x") is None
    assert age_reason(NOW, [], 0) is None
    assert age_reason(NOW, [NOW - 1000, NOW - 10], 600) == "last written 2025-12-31T23:59:50Z (10s ago), younger than min_age (600s)"
    assert age_reason(NOW, [NOW - 1000, None], 600) is None
    assert age_reason(NOW, [None], 600).startswith("its age is unknown")


def with_binds(*binds):
    """The fake Engine with ``binds`` on frontends of load balancer lb2."""
    return FakeClient().add_binds(binds, {"identifier": LB2["id"], "name": "lb2"})


def params(**over):
    out = dict(keep=["shop"], keep_new=[], collect_all=False, strict_keep=False, remove=[], tag_prefix="anxlb", load_balancers=[], pools=[], min_age=0,
               prune_orphans=False, max_delete=100, lease_timeout=1800, lease_holder="gc@test:1", wait_timeout=60)
    out.update(over)
    return GcRequest.from_params(out)


def obj(kind, name, lb, owner="api", extra_tags=(), **links):
    ident = "%s-%s-%s" % (kind, name, lb["name"])
    return Action(DELETE, kind, dict(kind=kind, id=ident, name=name, tags=["anxlb-svc=%s" % owner] + list(extra_tags),
                                     confirmed=True, **links), reason="not part of the service any more", lb=lb)


def snapshot(owner="api", lbs=(LB1, LB2), addresses=(), extra=()):
    snap = OwnerSnapshot(owner)
    snap.lbs = list(lbs)
    for lb in lbs:
        snap.deletes += [obj("bind", "v4.http." + owner, lb, frontend="f"), obj("frontend", "http." + owner, lb)]
    snap.deletes += list(extra)
    snap.addresses = AddressState([PREFIX.id], [flat(PREFIX, ip, "addr-" + ip, owner) for ip in addresses])
    return snap


def state(*snaps, lb_tags=None):
    out = GcState()
    out.owners = list(snaps)
    out.collect = [s.owner for s in snaps]
    out.kept = {"shop": 3}
    out.lbs = dict((lb["id"], lb) for lb in (LB1, LB2))
    out.lb_tags = lb_tags or {LB1["id"]: [], LB2["id"]: []}
    return out


def decide(gc_state, client=None, check_mode=True, **over):
    return gc_run(client, check_mode, **over).plan(gc_state)


def gc_run(client=None, check_mode=True, **over):
    run = Collection(client or with_binds(), params(**over), check_mode, warn=lambda text: None, clock=lambda: NOW)
    run.scope = set(LB["id"] for LB in (LB1, LB2) if LB["name"] in over.get("load_balancers", [])) or None
    run.holder = "gc@test:1"
    return run


def kinds(plan):
    return sorted((a.kind.name, (a.lb or {}).get("name") or a.obj.get("prefix")) for a in plan)


def test_everything_of_a_collected_owner_goes_children_first_then_markers_then_addresses():
    tags = {LB1["id"]: ["anxlb-reconciled.api=1,0.1.0,abc,%d" % (NOW - 5000), "anxlb-reconciled.shop=1,0.1.0,d,1"],
            LB2["id"]: []}
    plan = decide(state(snapshot(addresses=["192.0.2.5"]), lb_tags=tags)).ordered()
    assert [(a.kind.name, (a.lb or {}).get("name")) for a in plan] == [
        ("bind", "lb1"), ("bind", "lb2"), ("frontend", "lb1"), ("frontend", "lb2"), ("marker", "lb1"), ("address", None)]
    assert plan[4].obj["name"].startswith("anxlb-reconciled.api=") and plan.decision["skipped"] == []
    assert plan.decision["kept"] == {"shop": 3}


def test_scope_leases_orphans_and_live_owners_tags_keep_objects_with_reasons():
    orphan = obj("server", "n1.http.api", UNKNOWN, backend="gone")
    shared = obj("server", "n9.http.api", LB1, extra_tags=["anxlb-svc=shop"], backend="b")
    tags = {LB1["id"]: [], LB2["id"]: ["anxlb-lease=other@ci:1@%d" % (NOW + 600)]}
    plan = decide(state(snapshot(extra=[orphan, shared]), lb_tags=tags))
    assert plan == []
    reasons = dict((s.get("load_balancer"), s["reason"]) for s in plan.decision["skipped"])
    assert reasons["lb1"].startswith("server 'n9.http.api' (server-n9.http.api-lb1) also carries the owner tag of an "
                                     "owner that is not collected")
    assert reasons["lb2"].startswith("load balancer lb2 is leased by other@ci:1 (until 2026-01-01T00:10:00Z)")
    assert reasons["(unknown load balancer)"].startswith("orphans: their parent is gone")
    # an expired lease is no reason; prune_orphans takes the orphan; a scope leaves lb2 alone
    tags[LB2["id"]] = ["anxlb-lease=other@ci:1@%d" % (NOW - 1)]
    plan = decide(state(snapshot(extra=[orphan]), lb_tags=tags), prune_orphans=True, load_balancers=["lb1"])
    assert kinds(plan) == [("bind", "lb1"), ("frontend", "lb1"), ("server", "(unknown load balancer)")]
    assert [s["reason"] for s in plan.decision["skipped"]] == ["load balancer lb2 is outside load_balancers"]


def test_an_address_a_remaining_bind_uses_stays_and_one_only_our_deleted_binds_use_goes():
    other = {"identifier": "b" * 32, "name": "v4.http.other", "address": "192.0.2.6", "port": 80, "frontend": "f" * 32}
    ours = {"identifier": "bind-v4.http.api-lb1", "name": "v4.http.api", "address": "192.0.2.5", "port": 80, "frontend": "f"}
    plan = decide(state(snapshot(addresses=["192.0.2.5", "192.0.2.6"])), client=with_binds(other, ours))
    assert [a.obj["address"] for a in plan if a.kind.name == "address"] == ["192.0.2.5"]
    (kept,) = plan.decision["skipped"]
    assert kept["prefix"] == "192.0.2.0/24" and kept["reason"] == (
        "address 192.0.2.6 is still used by bind 'v4.http.other' (%s) on load balancer lb2" % ("b" * 32))


def test_young_or_ageless_owners_stay_whole_with_min_age():
    tags = {LB1["id"]: ["anxlb-reconciled.api=1,0.1.0,abc,%d" % (NOW - 60)], LB2["id"]: []}
    plan = decide(state(snapshot(), snapshot("old", lbs=[LB2]), lb_tags=tags), min_age=600)
    reasons = dict((s["owner"], s["reason"]) for s in plan.decision["skipped"])
    assert reasons["api"] == "last written 2025-12-31T23:59:00Z (60s ago), younger than min_age (600s)"
    assert reasons["old"].startswith("its age is unknown")
    assert plan == []


def test_the_cap_fails_a_real_run_in_one_sentence_and_check_mode_keeps_the_plan_as_its_preview():
    with pytest.raises(Failure) as err:
        decide(state(snapshot(addresses=["192.0.2.5"])), check_mode=False, max_delete=4)
    assert err.value.msg == (
        "gc would remove 5 objects and addresses of 1 owner(s) (api), more than max_delete (4), so nothing was deleted; "
        "preview them with --check --diff, check the live set (keep), then raise max_delete to at least 5 to go ahead")
    # the plan is not on the task's fatal: line (Ansible prints the whole result there): counts per owner only
    assert err.value.details == {"would_remove": 5, "removed": [], "would_remove_by_owner": {"api": 5},
                                 "over_max_delete": True}
    run = gc_run(max_delete=4)
    plan = run.plan(state(snapshot(addresses=["192.0.2.5"])))
    assert len([a for a in plan if a.kind.name != "marker"]) == 5 and run.capped == 5
    assert decide(state(snapshot(addresses=["192.0.2.5"])), check_mode=False, max_delete=5)   # at the cap: goes


def names(owner, *values, zone="example.com"):
    """The owner's A records of ``values`` at its own name, as gc's zone reading gives them (``_names.GcZones``)."""
    records = [dict(name=owner, type="A", rdata=v, ttl=300, comment="anxlb-svc=" + owner, region="default") for v in values]
    return owned_rrsets(zone, records, lambda r: True)


def state_with_names(*snaps, lb_tags=None):
    out = state(*snaps, lb_tags=lb_tags)
    out.zones = GcZones(None, [], "anxlb")
    return out


def test_each_dns_record_counts_against_the_cap_and_shows_in_the_summary():
    def snaps():
        api, old = snapshot(addresses=["192.0.2.5"]), OwnerSnapshot("old")
        api.names, old.names = names("api", "203.0.113.1", "203.0.113.2"), names("old", "203.0.113.3")
        return state_with_names(api, old)
    assert decide(snaps(), check_mode=False, max_delete=8)   # 5 objects and addresses, 3 records: goes
    with pytest.raises(Failure) as err:
        decide(snaps(), check_mode=False, max_delete=6)
    assert err.value.msg.startswith("gc would remove 8 objects, addresses and DNS records of 2 owner(s) (api, old), "
                                    "more than max_delete (6), so nothing was deleted")
    assert err.value.details["would_remove_by_owner"] == {"api": 7, "old": 1}
    plan = decide(snaps())
    assert summary(plan.ordered(), [], {}).startswith(
        "zone example.com: 3 DNS record(s) to delete; lb1: 2 to destroy; lb2: 2 to destroy; 192.0.2.0/24: 1 to release "
        "| owners collected: api, old")


def test_the_names_of_an_owner_whose_objects_stay_somewhere_stay_too():
    api = snapshot()
    api.names = names("api", "203.0.113.1")
    tags = {LB1["id"]: [], LB2["id"]: ["anxlb-lease=other@ci:1@%d" % (NOW + 600)]}
    plan = decide(state_with_names(api, lb_tags=tags))
    assert kinds(plan) == [("bind", "lb1"), ("frontend", "lb1")]   # the names point at what lb2 still serves
    stays = [s for s in plan.decision["skipped"] if s["reason"].startswith("its DNS names stay")]
    assert stays and stays[0]["reason"] == "its DNS names stay with its objects on lb2, which stay"
    assert stays[0]["objects"] == [dict(type="A", name="api 203.0.113.1", id=None)]


def test_every_removal_names_the_owners_absence_from_the_live_set_or_remove():
    tags = {LB1["id"]: ["anxlb-reconciled.api=1,0.1.0,abc,%d" % (NOW - 5000)], LB2["id"]: []}
    plan = decide(state(snapshot(addresses=["192.0.2.5"]), snapshot("old", lbs=[LB2]), lb_tags=tags), remove=["old"])
    reasons = sorted(set((a.owner, a.kind.name == "marker", a.reason) for a in plan))
    assert reasons == [
        ("api", False, "owner 'api' is not in the live set"),
        ("api", True, "owner 'api' is not in the live set; its marker goes once nothing of it is left on the load "
                      "balancer"),
        ("old", False, "owner 'old' is named in remove")]


def test_the_summary_says_to_destroy_in_check_mode_and_destroyed_after_a_real_run():
    plan = decide(state(snapshot(addresses=["192.0.2.5"])))
    assert summary(plan, [], {"shop": 3}) == (
        "lb1: 2 to destroy; lb2: 2 to destroy; 192.0.2.0/24: 1 to release | owners collected: api | kept: 1 owner(s) "
        "| skipped: nothing")
    assert summary(plan, [], {"shop": 3}, done=True).startswith("lb1: 2 destroyed; lb2: 2 destroyed; 192.0.2.0/24: 1 released |")
