"""ip_address's answer to a concurrent allocation the Engine did not refuse: two address objects at one
address after our create; to refusals that do or do not name the address; to a create whose answer was
lost. The local Engine refuses duplicates (the integration tests cover that path), so this stands in
for an Engine that does not; only the client is stubbed, the applier code (shared by ip_address and gc) is real."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._apply import AddressOperations
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._observe import AddressState
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._plan import entry, pick
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import NEW, Prefix, pools_for
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import (
    AccessDeniedError, ConflictError, EngineConnectionError, ServerError, ValidationFailedError)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure

from ..fakes import FakeClient

PREFIX = {"identifier": "p" * 32, "name": "192.0.2.0/29"}


class Contested(FakeClient):
    """The fake Engine with one prefix, contested: ``intruders`` puts another owner's object next to ours at
    those IPs; ``refused`` IPs are refused with ``refusal(ip)``; ``meanwhile``: other runs' allocations that
    land during our first create; ``lost``: an error raised after the create was committed (its answer is
    lost); ``stored_description``: what the Engine stores instead of the description sent."""

    def __init__(self, intruders=(), refused=(), meanwhile=(), refusal=None, lost=None, stored_description=None):
        super().__init__()
        self.add_prefix(PREFIX["name"], ident=PREFIX["identifier"])
        self.intruders = set(intruders)
        self.refused = set(refused)
        self.meanwhile = list(meanwhile)
        self.refusal = refusal or (lambda ip: ValidationFailedError(
            "Validation failed", status=422, method="POST", path="/a",
            validation={"name": "The address %s is already in use." % ip}))
        self.lost = lost
        self.stored_description = stored_description

    def address_create(self, prefix_id, ip, description=""):
        for other in self.meanwhile:
            self.add_address(other, ident="other-" + other)
        self.meanwhile = []
        if ip in self.refused:
            self.calls.append(("POST", "address", ip))
            raise self.refusal(ip)
        made = super().address_create(prefix_id, ip, description if self.stored_description is None
                                      else self.stored_description)
        if ip in self.intruders:
            self.add_address(ip, ident="f" * 32)
        if self.lost is not None:
            raise self.lost
        return made


def calls(client, *methods):
    """The client's calls (those of ``methods`` if given), without the listings by status: nothing is being
    deleted or unclaimed here."""
    return [c for c in client.calls if not str(c[2]).startswith("status=") and (not methods or c[0] in methods)]


class Applier:
    """The applier for a plan made from one observation of ``pools``; ``_pick``/``_allocate`` as the tests read."""

    def __init__(self, client):
        self.client = client

    def _pick(self, pools):
        return pick(pools)

    def _allocate(self, pools, planned):
        applier = AddressOperations(self.client, AddressState([], [], pools=pools), "web", "anxlb", sleep=lambda s: None)
        return entry(applier.allocate(planned))


def module(client):
    return Applier(client)


def plan(mod, prefix):
    pools = pools_for([prefix])
    chosen, ip = mod._pick(pools)
    return pools, {"address": ip, "prefix_id": chosen.id}


def test_a_second_object_at_our_address_makes_us_give_it_up_and_take_the_next():
    client = Contested(intruders={"192.0.2.1"})
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    got = mod._allocate(pools, planned)
    assert got["address"] == "192.0.2.2"
    ours = "%032x" % 1
    assert calls(client)[:6] == [
        ("POST", "address", "192.0.2.1"), ("TAG", "anxlb-svc=web", ours), ("LIST", "address", "192.0.2.1"),
        ("DELETE", "address", ours), ("LIST", "address", None), ("POST", "address", "192.0.2.2")]
    assert client.address_ips() == ["192.0.2.1", "192.0.2.2"]   # the other owner's and ours


def test_an_address_the_engine_refuses_as_taken_is_skipped():
    client = Contested(refused={"192.0.2.1", "192.0.2.2"})
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    assert mod._allocate(pools, planned)["address"] == "192.0.2.3"


def test_after_a_collision_the_prefix_is_read_again_so_every_allocation_made_meanwhile_is_skipped():
    # We plan 192.0.2.1; while we create it, other runs take .1, .2 and .3.
    client = Contested(refused={"192.0.2.1"}, meanwhile=["192.0.2.1", "192.0.2.2", "192.0.2.3"])
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    assert mod._allocate(pools, planned)["address"] == "192.0.2.4"
    assert calls(client, "POST", "LIST") == [
        ("POST", "address", "192.0.2.1"), ("LIST", "address", None), ("POST", "address", "192.0.2.4"),
        ("LIST", "address", "192.0.2.4")]


def test_addresses_planned_for_later_in_the_run_survive_the_reread():
    client = Contested(refused={"192.0.2.1"})
    mod = module(client)
    prefix = Prefix(PREFIX)
    pools = pools_for([prefix])
    prefix.addresses["192.0.2.2"] = [{"identifier": NEW, "name": "192.0.2.2"}]   # the run's 2nd address
    got = mod._allocate(pools, {"address": "192.0.2.1", "prefix_id": prefix.id})
    assert got["address"] == "192.0.2.3" and prefix.addresses["192.0.2.2"][0]["identifier"] == NEW


def test_collisions_are_bounded():
    client = Contested(refused={"192.0.2.%d" % n for n in range(1, 7)})
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    with pytest.raises(Failure) as err:
        mod._allocate(pools, planned)
    assert err.value.msg == ("could not allocate an address for web: 5 attempts collided with concurrent "
                             "allocations in pool 192.0.2.0/29")
    assert calls(client, "POST") == [("POST", "address", "192.0.2.%d" % n) for n in range(1, 6)]


@pytest.mark.parametrize("refusal", [
    lambda ip: ConflictError("Address %s is in use" % ip, status=409, method="POST", path="/a"),
    lambda ip: ValidationFailedError("Bad Request", status=400, method="POST", path="/a",
                                     validation={"name": "%s already exists" % ip}),
])
def test_a_409_or_400_that_names_the_address_is_a_collision(refusal):
    client = Contested(refused={"192.0.2.1"}, refusal=refusal)
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    assert mod._allocate(pools, planned)["address"] == "192.0.2.2"


@pytest.mark.parametrize("refusal", [
    lambda ip: ConflictError("The prefix is locked", status=409, method="POST", path="/a"),
    lambda ip: ValidationFailedError("Validation failed", status=422, method="POST", path="/a",
                                     validation={"prefix": "No prefix with identifier x."}),
    lambda ip: AccessDeniedError("Forbidden: %s" % ip, status=403, method="POST", path="/a"),
])
def test_a_refusal_that_is_not_about_the_address_fails_the_run(refusal):
    client = Contested(refused={"192.0.2.1"}, refusal=refusal)
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    with pytest.raises((ConflictError, ValidationFailedError, AccessDeniedError)):
        mod._allocate(pools, planned)
    assert calls(client, "POST") == [("POST", "address", "192.0.2.1")]


@pytest.mark.parametrize("lost", [
    ServerError("Gateway Timeout", status=504, method="POST", path="/a", may_have_landed=True),
    EngineConnectionError("closed", method="POST", path="/a", may_have_landed=True),
])
def test_a_create_that_may_have_landed_is_adopted_by_address_and_description_not_sent_again(lost):
    client = Contested(lost=lost)
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    got = mod._allocate(pools, planned)
    assert got == {"address": "192.0.2.1", "id": "%032x" % 1, "prefix": "192.0.2.0/29", "prefix_id": "p" * 32,
                   "family": "v4"}
    assert [c[0] for c in client.calls] == ["POST", "LIST", "TAG", "LIST"]
    assert client.address_ips() == ["192.0.2.1"] and client.tags == {"%032x" % 1: ["anxlb-svc=web"]}   # one, tagged


def test_a_create_that_may_have_landed_but_is_not_there_fails_instead_of_being_sent_again():
    lost = ServerError("Bad Gateway", status=502, method="POST", path="/a", may_have_landed=True)
    client = Contested(lost=lost, stored_description="anxcloud.lbaas: api")   # at the address: not ours
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    with pytest.raises(ServerError) as err:
        mod._allocate(pools, planned)
    assert err.value is lost and [c[0] for c in client.calls] == ["POST", "LIST"]
