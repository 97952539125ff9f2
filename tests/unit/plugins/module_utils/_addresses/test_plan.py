"""Addresses as a kind of the shared reconciler: the plan (pure), its prediction, and the release check."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._observe import AddressState
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._plan import entry, flat, plan_owner
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import Plan
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import Prefix, pools_for
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._run import check_releases
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure

from ..fakes import FakeClient

TAG = "anxlb-svc=web"


def prefix(taken=()):
    out = Prefix({"identifier": "p" * 32, "name": "192.0.2.0/29"})
    for ip in ("192.0.2.0", "192.0.2.1", "192.0.2.7") + tuple(taken):
        out.addresses[ip] = [{"identifier": "x" + ip, "name": ip}]
    return out


def state(held=(), untagged=(), taken=()):
    pr = prefix(tuple(held) + tuple(untagged) + tuple(taken))
    return AddressState([pr.id], [flat(pr, ip, "id-" + ip, "web") for ip in held],
                        [flat(pr, ip, "id-" + ip, "web") for ip in untagged], [pr], pools_for([pr]))


def ops(plan):
    return [(a.op, a.obj["address"]) for a in plan]


def test_allocations_of_one_plan_are_distinct_and_predicted_with_placeholders():
    st = state(taken=["192.0.2.2"])
    plan = plan_owner(st, "web", 2, True, TAG)
    assert ops(plan) == [("allocate", "192.0.2.3"), ("allocate", "192.0.2.4")]
    after = plan.predict(st.world)
    assert sorted(entry(o)["id"] for o in after.values()) == ["(new address)", "(new address)"] and len(after) == 2
    assert plan.to_list()[0] == {"action": "allocate", "address": "192.0.2.3", "prefix": "192.0.2.0/29", "id": None,
                                 "reason": "owner web holds 0 of 2 v4 address(es)"}


def test_surplus_goes_highest_first_untagged_ones_are_adopted_and_absent_releases_all():
    st = state(held=["192.0.2.2", "192.0.2.5"], untagged=["192.0.2.3"])
    plan = plan_owner(st, "web", 2, True, TAG).ordered()
    assert ops(plan) == [("release", "192.0.2.5"), ("adopt", "192.0.2.3")]
    assert sorted(o["address"] for o in plan.predict(st.world).values()) == ["192.0.2.2", "192.0.2.3"]
    assert ops(plan_owner(st, "web", 1, False, TAG)) == [
        ("release", "192.0.2.2"), ("release", "192.0.2.3"), ("release", "192.0.2.5")]
    assert plan_owner(state(held=["192.0.2.2"]), "web", 1, True, TAG) == Plan()


def with_binds(*binds):
    """The fake Engine with ``binds`` on frontends of load balancer lb1."""
    return FakeClient().add_binds(binds, {"identifier": "l" * 32, "name": "lb1"})


def test_a_release_of_an_address_a_bind_uses_fails_naming_it_unless_forced_or_the_bind_is_going():
    bind = {"identifier": "b" * 32, "name": "v4.http.other", "address": "192.0.2.2", "port": 80, "frontend": "f" * 32}
    plan = plan_owner(state(held=["192.0.2.2"]), "web", 0, False, TAG)
    with pytest.raises(Failure) as err:
        check_releases(with_binds(bind), plan)
    assert err.value.msg == ("address 192.0.2.2 is still used by bind 'v4.http.other' (%s) on load balancer lb1: "
                             "releasing it would hand out an address a load balancer still serves; remove the bind "
                             "first, or set force: true" % ("b" * 32))
    warned = []
    assert list(check_releases(with_binds(bind), plan, force=True, warn=warned.append)) == ["192.0.2.2"] and len(warned) == 1
    assert check_releases(with_binds(bind), plan, ignore={"b" * 32}) == {}
    assert check_releases(with_binds(dict(bind, address="192.0.2.3")), plan) == {}
