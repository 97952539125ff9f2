"""Binds on an address in no IPAM prefix of the account (_outside.py, issue 30 point 3): a warning, not a
refusal, asked (one prefix listing) only when a plan creates a bind or moves one, once per run."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._outside import OutsidePrefixes, bind_addresses
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import AccessDeniedError, EngineError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._planner import create
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kind import TAG, UPDATE
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import BIND, SERVER
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import Action, Plan

from ..fakes import FakeClient

BIND_OBJ = {"kind": "bind", "id": "b" * 32, "name": "v4.80.web", "frontend": "f" * 32, "address": "198.51.100.5",
            "port": 80}


def bind_create(address):
    return create(BIND, "v4.80.web", "f" * 32, {"address": address, "port": 80}, "no bind")


def account():
    client = FakeClient()
    client.add_prefix("198.51.100.0/24")
    client.add_prefix("2001:db8::/64")
    return client


def listings(client):
    return [c for c in client.calls if c[:2] == ("LIST", "prefix")]


def test_only_created_and_moved_binds_are_checked():
    moved = Action(UPDATE, BIND, BIND_OBJ, changes={"address": ("198.51.100.5", "203.0.113.9")})
    ported = Action(UPDATE, BIND, BIND_OBJ, changes={"port": (80, 81)})
    tagged = Action(TAG, BIND, BIND_OBJ, tags=["anxlb-svc=web"])
    server = create(SERVER, "a.80.web", "k" * 32, {"ip": "203.0.113.7", "port": 80}, "no server")
    assert bind_addresses(Plan([bind_create("2001:db8::5"), moved, ported, tagged, server])) == [
        "2001:db8::5", "203.0.113.9"]


def test_an_address_outside_every_prefix_is_warned_about_once_and_the_plan_stays():
    client, warnings = account(), []
    outside = OutsidePrefixes(client, warnings.append, "addresses")
    plan = Plan([bind_create("203.0.113.9"), bind_create("198.51.100.7"), bind_create("2001:db8::1")])
    assert outside.check(plan) is plan
    assert warnings == ["addresses: 203.0.113.9 is in no IPAM prefix of this account, so the Engine will most likely "
                        "not route it to the load balancer; the bind is made anyway. Check the address for a typo, or "
                        "take one from a prefix of the account (anxcloud.lbaas.ip_address)"]
    outside.check(plan)   # the plan again (the reconciler's confirming round): nothing asked, nothing said twice
    assert len(warnings) == 1 and len(listings(client)) == 1


def test_a_plan_without_new_binds_asks_nothing():
    client, warnings = account(), []
    OutsidePrefixes(client, warnings.append).check(Plan([Action(TAG, BIND, BIND_OBJ, tags=["anxlb-svc=web"])]))
    assert listings(client) == [] and warnings == []


def test_a_token_without_ipam_rights_is_said_once_and_the_run_goes_on():
    class NoIpam(FakeClient):
        def prefix_list(self, search=None):
            self.calls.append(("LIST", "prefix", search))
            raise AccessDeniedError("forbidden", status=403, method="GET", path="/api/ipam/v1/prefix.json")
    client, warnings = NoIpam(), []
    outside = OutsidePrefixes(client, warnings.append, "address")
    outside.check(Plan([bind_create("203.0.113.9")]))
    outside.check(Plan([bind_create("203.0.113.10")]))
    assert len(warnings) == 1 and warnings[0].startswith(
        "address: could not list the account's IPAM prefixes to check 203.0.113.9 (")
    assert len(listings(client)) == 1


def test_ahead_the_listing_goes_out_at_the_plan_and_the_warning_follows_at_settle():
    """A real run of the service: the listing is started with the plan (on the client's pool; the fake runs it at
    once) and nothing waits for it; ``settle`` (the end of the run) says what it found, once."""
    client, warnings = account(), []
    outside = OutsidePrefixes(client, warnings.append, "addresses", ahead=True)
    plan = Plan([bind_create("203.0.113.9"), bind_create("198.51.100.7")])
    assert outside.check(plan) is plan and len(listings(client)) == 1 and warnings == []
    outside.check(Plan([bind_create("203.0.113.10")]))   # a later plan of the run, the listing not settled yet
    outside.settle()
    assert [w.split(" is in")[0] for w in warnings] == ["addresses: 203.0.113.9", "addresses: 203.0.113.10"]
    outside.check(Plan([bind_create("203.0.113.11")]))   # once settled, a later plan is told at once
    outside.settle()
    assert len(warnings) == 3 and len(listings(client)) == 1


def test_ahead_a_listing_that_fails_is_a_warning_never_a_failure_and_no_plan_asks_nothing():
    class Broken(FakeClient):
        def prefix_list(self, search=None):
            self.calls.append(("LIST", "prefix", search))
            raise EngineError("the Engine answered 503 Service Unavailable", status=503)
    client, warnings = Broken(), []
    outside = OutsidePrefixes(client, warnings.append, "addresses", ahead=True)
    outside.settle()   # nothing sent: nothing to say
    assert listings(client) == [] and warnings == []
    outside.check(Plan([bind_create("203.0.113.9")]))
    outside.settle()
    (warning,) = warnings
    assert warning.startswith("addresses: could not list the account's IPAM prefixes to check 203.0.113.9 (")
    assert "the Engine answered 503 Service Unavailable" in warning
