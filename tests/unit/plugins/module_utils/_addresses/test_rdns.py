"""ip_address's rdns_name (go-anxcloud PR 504; docs/user-guide.md, IP pools): in the address plan (pure),
compared without the Engine's trailing dot and case, an update in place on kept addresses only, given to
new ones, predicted by check mode; and the update operation through the one applier, which writes the
name and keeps the object's other texts."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._apply import AddressOperations
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._observe import AddressState
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._plan import (
    ADDRESS, CHANGE, flat, plan_owner, rdns_text)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import pools_for
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import Applier
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kind import UPDATE
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import Plan

from .test_plan import TAG, prefix   # the /29 pool with its network, router and broadcast taken


def state(held, untagged=()):
    """``held``: {ip: rdns_name as the Engine answers it}; ``untagged`` likewise, created for the owner."""
    pr = prefix(tuple(held) + tuple(untagged))
    return AddressState([pr.id], [flat(pr, ip, "id-" + ip, "web", rdns_name=name) for ip, name in held.items()],
                        [flat(pr, ip, "id-" + ip, "web", rdns_name=name) for ip, name in dict(untagged).items()],
                        [pr], pools_for([pr]))


def test_rdns_text_is_the_name_without_trailing_dot_or_case():
    assert rdns_text(" Shop.Example.COM. ") == "shop.example.com"
    assert rdns_text(None) == rdns_text("") == ""


def test_the_update_op_is_the_generic_update_effect_ranked_before_allocations():
    assert ADDRESS.effect(CHANGE) == UPDATE
    st = state({"192.0.2.2": ""})
    plan = plan_owner(st, "web", 2, True, TAG, rdns_name="shop.example.com").ordered()
    assert [(a.op, a.obj["address"]) for a in plan] == [("update", "192.0.2.2"), ("allocate", "192.0.2.3")]


def test_unset_option_leaves_names_alone_and_equal_names_plan_nothing():
    assert list(plan_owner(state({"192.0.2.2": "other.example."}), "web", 1, True, TAG)) == []
    assert list(plan_owner(state({"192.0.2.2": "shop.example.com."}), "web", 1, True, TAG,
                           rdns_name="SHOP.example.com")) == []
    assert list(plan_owner(state({"192.0.2.2": ""}), "web", 1, True, TAG, rdns_name="")) == []


def test_a_different_name_is_an_update_in_place_predicted_by_check_mode():
    st = state({"192.0.2.2": "old.example."})
    plan = plan_owner(st, "web", 1, True, TAG, rdns_name="shop.example.com").ordered()
    assert [(a.op, a.id, a.changes) for a in plan] == [
        ("update", "id-192.0.2.2", {"rdns_name": ("old.example", "shop.example.com")})]
    assert plan.to_list() == [{"action": "update", "address": "192.0.2.2", "prefix": "192.0.2.0/29",
                               "id": "id-192.0.2.2", "reason": "rdns_name differs"}]
    after = plan.predict(st.world)
    assert after["id-192.0.2.2"]["rdns_name"] == "shop.example.com" and after["id-192.0.2.2"]["planned"] == "update"
    assert "state" not in after["id-192.0.2.2"]   # an address has no deployment state to predict
    assert st.world["id-192.0.2.2"]["rdns_name"] == "old.example"   # the observation itself is untouched
    removed = plan_owner(st, "web", 1, True, TAG, rdns_name="")
    assert [a.changes for a in removed] == [{"rdns_name": ("old.example", "")}]


def test_released_addresses_are_not_renamed_and_new_ones_carry_the_name():
    st = state({"192.0.2.2": "", "192.0.2.3": ""})
    plan = plan_owner(st, "web", 1, True, TAG, rdns_name="shop.example.com").ordered()
    assert [(a.op, a.obj["address"]) for a in plan] == [("release", "192.0.2.3"), ("update", "192.0.2.2")]
    grown = plan_owner(state({}), "web", 1, True, TAG, rdns_name="Shop.example.com")
    assert [(a.op, a.obj["rdns_name"]) for a in grown] == [("allocate", "shop.example.com")]
    gone = plan_owner(st, "web", 1, False, TAG, rdns_name="shop.example.com")
    assert [a.op for a in gone] == ["release", "release"]


def test_an_adopted_address_is_also_renamed_after_its_adoption():
    st = state({}, untagged={"192.0.2.2": "old.example."})
    plan = plan_owner(st, "web", 1, True, TAG, rdns_name="shop.example.com").ordered()
    assert [a.op for a in plan] == ["adopt", "update"]
    assert plan.predict(st.world)["id-192.0.2.2"]["rdns_name"] == "shop.example.com"


class AddressClient:
    """Address objects by identifier, full objects; records the writes."""

    def __init__(self):
        self.objects = {}
        self.calls = []

    def address_get(self, ident):
        return dict(self.objects[ident])

    def address_create(self, prefix, ip, description="", rdns_name=""):
        ident = "%032x" % (len(self.objects) + 1)
        self.objects[ident] = {"identifier": ident, "name": ip, "description_customer": description,
                               "role_text": "Default", "rdns_name": rdns_name}
        self.calls.append(("create", ip, rdns_name))
        return {"identifier": ident, "name": ip}

    def address_update(self, ident, name, description="", role="Default", rdns_name=""):
        self.objects[ident].update(name=name, description_customer=description, role_text=role, rdns_name=rdns_name)
        self.calls.append(("update", ident, rdns_name))

    def address_list(self, prefix=None, search=None, **kwargs):
        return [{"identifier": i, "name": o["name"]} for i, o in self.objects.items() if (search or "") in o["name"]]

    def tag_add(self, ident, tag):
        self.calls.append(("tag", ident, tag))


def test_the_update_writes_the_name_as_written_and_keeps_the_other_texts_without_a_tag_write():
    client = AddressClient()
    ident = "5" * 32
    client.objects[ident] = {"identifier": ident, "name": "192.0.2.5", "description_customer": "anxcloud.lbaas: web",
                             "role_text": "Reserved", "rdns_name": "old.example."}
    pr = prefix(("192.0.2.5",))
    st = AddressState([pr.id], [flat(pr, "192.0.2.5", ident, "web", rdns_name="old.example.")], [], [pr], pools_for([pr]))
    plan = plan_owner(st, "web", 2, True, TAG, rdns_name="Shop.Example.com").ordered()
    ops = AddressOperations(client, st, "web", "anxlb", rdns_name="Shop.Example.com")
    applier = Applier(client, None, operations={"address": ops})
    assert applier.apply(Plan(plan)) == []   # nothing to wait for
    made = applier.ids[plan[1].id]
    assert client.calls == [("update", ident, "Shop.Example.com"), ("create", "192.0.2.2", "Shop.Example.com"),
                            ("tag", made, TAG)]
    assert client.objects[ident] == {"identifier": ident, "name": "192.0.2.5", "description_customer": "anxcloud.lbaas: web",
                                     "role_text": "Reserved", "rdns_name": "Shop.Example.com"}
