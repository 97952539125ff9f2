"""The service's DNS names (``_service/_dns_names.py``): the option checked before any request, addresses split by
record type, and the plan of its records from a zone as the Engine answers it (a stub client), with what its
placement tags remember."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._names import GcZones
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


def record(rtype, value, comment=SVC, ttl=60, name="shop"):
    return dict(name=name, type=rtype, rdata=value, ttl=ttl, comment=comment, region="default", immutable=False)


class Zones:
    """The Engine's zones as GETs answer them: each zone live, its current revision holding ``records``."""

    def __init__(self, **zones):
        self.zones = zones
        self.calls = []

    def request(self, method, path, params=None, **_kw):
        self.calls.append((method, path))
        zone = path.rsplit("/", 1)[-1]
        return dict(name=zone, is_editable=True, deployment_level=100, current_revision="r1",
                    revisions=[dict(identifier="r1", serial=1, state="active", records=self.zones[zone])])


class Objects:
    """The service's LBaaS part as the names part reads it: the load balancers' tags."""

    def __init__(self, *tags):
        self.state = type("State", (), {"lb_tags": {"lb1": list(tags)}})()


def planned(p, client, *tags):
    result = {}
    names = ServiceNames(client, ServiceDeclaration.from_params(p), True, lambda text: None, result, Objects(*tags))
    return names.plan(names.observe([])), result


def shown(plan):
    return sorted((a.op, a.obj["zone"], a.obj["name"], a.obj["type"], tuple(r["value"] for r in a.deletes or a.creates))
                  for a in plan)


def test_in_step_plans_nothing_and_a_new_address_is_one_change_per_type():
    held = [record("A", "127.0.10.5"), record("AAAA", "fd00:10::5")]
    assert list(planned(params(), Zones(**{"local.test": held}))[0]) == []
    plan, _result = planned(params(addresses=["127.0.10.6"]), Zones(**{"local.test": held}))
    by_type = dict((a.obj["type"], a) for a in plan)
    assert sorted(by_type) == ["A", "AAAA"]
    assert [r["value"] for r in by_type["A"].creates] == ["127.0.10.6"] and by_type["AAAA"].op == "delete"
    assert by_type["A"].creates[0]["comment"] == SVC and by_type["A"].creates[0]["ttl"] == 60


def test_absent_deletes_the_service_s_records_only():
    zone = [record("A", "127.0.10.5"), record("A", "127.0.0.6", comment="anxlb-svc=shop", name="alias")]
    plan, _result = planned(params(state="absent"), Zones(**{"local.test": zone}))
    assert shown(plan) == [("delete", "local.test", "shop", "A", ("127.0.10.5",))]


def test_a_record_of_the_owner_without_the_service_s_note_is_a_conflict_naming_it():
    zone = [record("A", "127.0.10.5", comment="anxlb-svc=shop")]   # a dns_record of the same owner
    with pytest.raises(Failure, match="without the service's note: a dns_record of the same owner") as err:
        planned(params(), Zones(**{"local.test": zone}))
    assert err.value.details["dns_conflicts"][0]["value"] == "127.0.10.5"


def test_a_renamed_service_deletes_its_records_at_other_names_of_the_zone_and_only_those():
    """dns.name shop -> shop2: our A and AAAA records at shop go (the deletes, sent before the creates), shop2's are
    created; records not ours, or whose comment is not the service's own (a dns_record of the same owner, with a
    comment of its own or the mark alone), or of another type, are never planned."""
    zone = [record("A", "127.0.0.6", comment="anxlb-svc=shop", name="alias"),   # a dns_record alias of the owner
            record("A", "127.0.10.5"), record("AAAA", "fd00:10::5"), record("A", "127.0.0.9", comment="made by hand"),
            record("A", "127.0.0.8", comment="anxlb-svc=shop; kept"), record("TXT", "x"),
            record("A", "127.0.0.7", comment="anxlb-svc=cart", name="cart")]
    plan, _result = planned(params(dns=dict(zone="local.test", name="shop2", ttl=60)), Zones(**{"local.test": zone}))
    assert shown(plan) == [
        ("create", "local.test", "shop2", "A", ("127.0.10.5",)), ("create", "local.test", "shop2", "AAAA", ("fd00:10::5",)),
        ("delete", "local.test", "shop", "A", ("127.0.10.5",)), ("delete", "local.test", "shop", "AAAA", ("fd00:10::5",))]
    # deletes first: the names' records go before the binds, and are created after them
    assert [(a.op, a.obj["name"]) for a in plan.ordered()][:2] == [("delete", "shop"), ("delete", "shop")]


def test_a_new_zone_or_dns_removed_deletes_the_records_the_placement_remembers():
    old = [record("A", "127.0.10.5"), record("A", "127.0.10.5", comment="by hand")]   # a hand-made twin stays
    placed = "anxlb-placed.shop=dns:old.test"
    client = Zones(**{"old.test": old, "local.test": []})
    plan, _result = planned(params(), client, placed)
    assert shown(plan) == [("create", "local.test", "shop", "A", ("127.0.10.5",)),
                           ("create", "local.test", "shop", "AAAA", ("fd00:10::5",)),
                           ("delete", "old.test", "shop", "A", ("127.0.10.5",))]
    plan, _result = planned(params(dns=None), Zones(**{"old.test": old}), placed)
    assert shown(plan) == [("delete", "old.test", "shop", "A", ("127.0.10.5",))]
    plan, _result = planned(params(dns=None, state="absent"), Zones(**{"old.test": old}), placed)
    assert shown(plan) == [("delete", "old.test", "shop", "A", ("127.0.10.5",))]
    # the changeset deletes both twins and creates the hand-made one again, whichever the Engine takes
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import changeset
    create, delete = changeset(list(plan)[0])
    assert len(delete) == 2 and [c["comment"] for c in create] == ["by hand"]


@pytest.mark.parametrize("comment,owner", [
    ("anxlb-svc=shop", "shop"), ("anxlb-svc=shop; note", "shop"), ("anxlb-svc=cart", "cart"), ("team-svc=shop", None),
    ("by hand", None), (None, None)])
def test_gc_finds_the_owners_of_its_prefix_marked_on_records(comment, owner):
    zones = GcZones(None, [], "anxlb")
    zones.records = {"local.test": [record("A", "127.0.0.1", comment=comment)]}
    assert zones.owners() == ({owner} if owner else set())
    assert bool(zones.world_of("shop")) == (owner == "shop")
