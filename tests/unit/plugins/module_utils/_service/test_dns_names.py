"""The service's DNS names, pure parts: the option checked before any request, addresses split by record type,
and the plan of the A/AAAA rrsets from the records carrying the service's mark."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._gc import collected_owner
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import ZoneObservation
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import ServiceDeclaration
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._dns_names import (
    ServiceNames, check_dns, family_values)


def params(**extra):
    return dict(dict(name="shop", tag_prefix="anxlb", state="present", addresses=["127.0.10.5", "FD00:10::0005"],
                     dns=dict(zone="Local.Test.", name="shop", ttl=60), wait=True, wait_timeout=600), **extra)


def test_the_option_is_checked_and_normalised():
    assert check_dns(params()["dns"]) == ("local.test", "shop", 60)
    assert check_dns(params(dns=None)["dns"]) is None


@pytest.mark.parametrize("dns,named", [(dict(zone="local.test", name="shop", ttl=59), "dns.ttl"),
                                       (dict(zone="local.test", name="shop", ttl=604801), "dns.ttl"),
                                       (dict(zone="local.test", name=""), "dns needs zone and name")])
def test_a_bad_option_names_itself(dns, named):
    with pytest.raises(Failure) as exc:
        check_dns(params(dns=dns)["dns"])
    assert named in exc.value.msg


def test_addresses_by_record_type():
    assert family_values(["127.0.10.5", "FD00:10::0005"]) == {"A": ["127.0.10.5"], "AAAA": ["fd00:10::5"]}
    assert family_values([]) == {"A": [], "AAAA": []}
    with pytest.raises(Failure, match="addresses\\[1\\]: 'shop' is not a valid IP address"):
        family_values(["127.0.10.5", "shop"])


SVC = "anxlb-svc=shop; dns name of the service"   # what the service writes: its mark, then its note


def record(rtype, value, comment=SVC, ttl=60):
    return dict(name="shop", type=rtype, rdata=value, ttl=ttl, comment=comment, region="default")


def planned(p, records):
    names = ServiceNames(None, ServiceDeclaration.from_params(p), check_mode=True, warn=None)
    names.spec, names.mark, names.comment, names.records = check_dns(p["dns"]), "anxlb-svc=shop", SVC, records
    names.values = family_values(p["addresses"]) if p["state"] == "present" else None
    return names.plan(ZoneObservation(_world(names, records)))


def _world(names, records):
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import observed_rrset
    world = {}
    for rtype in ("A", "AAAA"):
        world.update(observed_rrset("local.test", "shop", rtype, records))
    return world


def test_in_step_plans_nothing_and_a_new_address_is_one_change_per_type():
    assert list(planned(params(), [record("A", "127.0.10.5"), record("AAAA", "fd00:10::5")])) == []
    plan = planned(params(addresses=["127.0.10.6"]), [record("A", "127.0.10.5"), record("AAAA", "fd00:10::5")])
    by_type = dict((a.obj["type"], a) for a in plan)
    assert sorted(by_type) == ["A", "AAAA"]
    assert [r["value"] for r in by_type["A"].creates] == ["127.0.10.6"] and by_type["AAAA"].op == "delete"
    assert by_type["A"].creates[0]["comment"] == SVC and by_type["A"].creates[0]["ttl"] == 60


def test_absent_deletes_what_carries_the_mark():
    plan = planned(params(state="absent"), [record("A", "127.0.10.5")])
    assert [(a.op, [r["value"] for r in a.deletes]) for a in plan] == [("delete", ["127.0.10.5"])]


@pytest.mark.parametrize("comment,live,remove,owner", [
    ("anxlb-svc=shop", ["cart"], [], "shop"), ("anxlb-svc=shop; note", ["cart"], [], "shop"),
    ("anxlb-svc=cart", ["cart"], [], None), ("team-svc=shop", ["cart"], [], None), ("by hand", ["cart"], [], None),
    (None, [], [], None), ("anxlb-svc=shop", None, ["shop"], "shop"), ("anxlb-svc=cart", None, ["shop"], None)])
def test_gc_collects_only_marks_of_its_prefix_whose_owner_is_gone(comment, live, remove, owner):
    assert collected_owner(comment, "anxlb", live, set(remove)) == owner


def test_a_renamed_service_deletes_its_records_at_other_names_of_the_zone_and_only_those():
    """dns.name shop -> shop2: our A and AAAA records at shop go (the deletes, sent before the creates), shop2's are
    created; records not ours, or whose comment is not the service's own (a dns_record of the same owner, with a
    comment of its own or the mark alone), or of another type, are not in the world and so never planned."""
    p = params(dns=dict(zone="local.test", name="shop2", ttl=60))
    names = ServiceNames(None, ServiceDeclaration.from_params(p), check_mode=True, warn=None)
    names.spec, names.mark, names.comment, names.values = check_dns(p["dns"]), "anxlb-svc=shop", SVC, family_values(p["addresses"])
    zone = [dict(record("A", "127.0.0.6", comment="anxlb-svc=shop"), name="alias"),   # a dns_record alias of the owner
            record("A", "127.0.10.5"), record("AAAA", "fd00:10::5"), record("A", "127.0.0.9", comment="made by hand"),
            record("A", "127.0.0.8", comment="anxlb-svc=shop; kept"), record("TXT", "x"),
            dict(record("A", "127.0.0.7", comment="anxlb-svc=cart"), name="cart")]
    assert names._others_wanted({})   # nothing at shop2 yet: this run writes, so it reads the zone
    world = names._left_elsewhere(zone)
    assert sorted(world) == ["local.test shop A", "local.test shop AAAA"]
    assert [r["value"] for r in world["local.test shop A"]["records"]] == ["127.0.10.5"]
    plan = names.plan(ZoneObservation(world))
    assert sorted((a.op, a.obj["name"], a.obj["type"], tuple(r["value"] for r in a.deletes or a.creates)) for a in plan) == [
        ("create", "shop2", "A", ("127.0.10.5",)), ("create", "shop2", "AAAA", ("fd00:10::5",)),
        ("delete", "shop", "A", ("127.0.10.5",)), ("delete", "shop", "AAAA", ("fd00:10::5",))]
    # deletes first: a run failing after them leaves shop2 not as declared, so the next run reads the zone again
    assert [(a.op, a.obj["name"]) for a in plan.ordered()][:2] == [("delete", "shop"), ("delete", "shop")]
    in_step = dict((k.replace(" shop ", " shop2 "), dict(o, name="shop2", id=k.replace(" shop ", " shop2 ")))
                   for k, o in world.items())
    assert not names._others_wanted(in_step)   # the name as declared: a no-op reads only the name
