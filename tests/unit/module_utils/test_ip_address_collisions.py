"""ip_address's answer to a concurrent allocation the Engine did not refuse: two address objects at one
address after our create. The local Engine refuses duplicates (the integration tests cover that path),
so this stands in for an Engine that does not; only the client is stubbed, the module code is real."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._address_pool import Prefix, pools_for
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine_errors import ValidationFailedError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.modules import ip_address
from ansible_collections.anxcloud.lbaas.plugins.modules.ip_address import IpAddressModule

PREFIX = {"identifier": "p" * 32, "name": "192.0.2.0/29"}


class Client(object):
    """Addresses per IP; ``intruders`` puts another owner's object next to ours at those IPs."""

    def __init__(self, intruders=(), refused=()):
        self.objects = {}
        self.intruders = set(intruders)
        self.refused = set(refused)
        self.calls = []
        self.ids = iter("%032x" % i for i in range(1, 100))

    def address_create(self, prefix_id, ip, description=""):
        self.calls.append(("create", ip))
        if ip in self.refused:
            raise ValidationFailedError("in use", status=422, method="POST", path="/a")
        ident = next(self.ids)
        self.objects[ident] = ip
        if ip in self.intruders:
            self.objects["f" * 32] = ip
        return {"identifier": ident, "name": ip}

    def tag_add(self, ident, tag):
        self.calls.append(("tag", ident))

    def address_list(self, prefix=None, search=None):
        return [{"identifier": i, "name": ip} for i, ip in self.objects.items() if search in ip]

    def address_delete(self, ident):
        self.calls.append(("delete", self.objects.pop(ident)))


def module(client):
    mod = object.__new__(IpAddressModule)
    mod.client = client
    mod.params = {"owner": "web", "strategy": "first"}
    mod.tag = "anxlb-svc=web"
    return mod


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch):
    monkeypatch.setattr(ip_address.time, "sleep", lambda seconds: None)


def plan(mod, prefix):
    pools = pools_for([prefix])
    chosen, ip = mod._pick(pools)
    return pools, {"address": ip, "prefix_id": chosen.id}


def test_a_second_object_at_our_address_makes_us_give_it_up_and_take_the_next():
    client = Client(intruders={"192.0.2.1"})
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    got = mod._allocate(pools, planned)
    assert got["address"] == "192.0.2.2"
    assert client.calls[:4] == [("create", "192.0.2.1"), ("tag", "%032x" % 1), ("delete", "192.0.2.1"),
                                ("create", "192.0.2.2")]
    assert sorted(client.objects.values()) == ["192.0.2.1", "192.0.2.2"]   # the other owner's and ours


def test_an_address_the_engine_refuses_as_taken_is_skipped():
    client = Client(refused={"192.0.2.1", "192.0.2.2"})
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    assert mod._allocate(pools, planned)["address"] == "192.0.2.3"


def test_collisions_are_bounded():
    client = Client(refused={"192.0.2.%d" % n for n in range(1, 7)})
    mod = module(client)
    pools, planned = plan(mod, Prefix(PREFIX))
    with pytest.raises(Failure) as err:
        mod._allocate(pools, planned)
    assert err.value.msg == ("could not allocate an address for web: 5 attempts collided with concurrent "
                             "allocations in pool 192.0.2.0/29")
    assert [c for c in client.calls if c[0] == "create"] == [("create", "192.0.2.%d" % n) for n in range(1, 6)]
