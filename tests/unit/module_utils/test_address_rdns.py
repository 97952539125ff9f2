"""ip_address's rdns_name in the address plan (pure): compared without the Engine's trailing dot and case,
updated in place on kept addresses only, given to new ones, predicted by check mode."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._observe import AddressState
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._plan import flat, plan_owner, rdns_text
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import Prefix, pools_for

TAG = "anxlb-svc=web"


def state(held):
    """``held``: {ip: rdns_name as the Engine answers it}."""
    pr = Prefix({"identifier": "p" * 32, "name": "192.0.2.0/29"})
    for ip in ("192.0.2.0", "192.0.2.1", "192.0.2.7") + tuple(held):
        pr.addresses[ip] = [{"identifier": "x" + ip, "name": ip}]
    return AddressState([pr.id], [flat(pr, ip, "id-" + ip, "web", rdns_name=name) for ip, name in held.items()],
                        [], [pr], pools_for([pr]))


def test_rdns_text_is_the_name_without_trailing_dot_or_case():
    assert rdns_text("Shop.Example.COM.") == "shop.example.com"
    assert rdns_text(None) == rdns_text("") == ""


def test_unset_option_leaves_names_alone_and_equal_names_plan_nothing():
    st = state({"192.0.2.2": "other.example."})
    assert list(plan_owner(st, "web", 1, True, TAG)) == []
    assert list(plan_owner(state({"192.0.2.2": "shop.example.com."}), "web", 1, True, TAG,
                           rdns_name="SHOP.example.com")) == []


def test_a_different_name_is_an_update_in_place_predicted_by_check_mode():
    st = state({"192.0.2.2": "old.example."})
    plan = plan_owner(st, "web", 1, True, TAG, rdns_name="shop.example.com").ordered()
    assert [(a.op, a.id, a.changes) for a in plan] == [
        ("update", "id-192.0.2.2", {"rdns_name": ("old.example", "shop.example.com")})]
    assert plan.to_list() == [{"action": "update", "address": "192.0.2.2", "prefix": "192.0.2.0/29",
                               "id": "id-192.0.2.2", "reason": "rdns_name differs"}]
    assert plan.predict(st.world)["id-192.0.2.2"]["rdns_name"] == "shop.example.com"
    assert st.world["id-192.0.2.2"]["rdns_name"] == "old.example"   # the observation itself is untouched
    removed = plan_owner(st, "web", 1, True, TAG, rdns_name="")
    assert [a.changes for a in removed] == [{"rdns_name": ("old.example", "")}]


def test_released_addresses_are_not_renamed_and_new_ones_carry_the_name():
    st = state({"192.0.2.2": "", "192.0.2.3": ""})
    plan = plan_owner(st, "web", 1, True, TAG, rdns_name="shop.example.com").ordered()
    assert [(a.op, a.obj["address"]) for a in plan] == [("release", "192.0.2.3"), ("update", "192.0.2.2")]
    grown = plan_owner(state({}), "web", 1, True, TAG, rdns_name="shop.example.com")
    assert [(a.op, a.obj["rdns_name"]) for a in grown] == [("allocate", "shop.example.com")]
