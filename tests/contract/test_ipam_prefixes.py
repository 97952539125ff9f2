"""Contract: IPAM prefixes, VLANs and locations (docs/engine-api-facts.md, IPAM)."""
import ipaddress

import pytest

from .helpers import (FILTERED, LOCATION, PREFIXES, V4, V6, VLAN, after_delay, error_of, ok)

PREFIX_KEYS = {"identifier", "name", "description_customer", "description_internal", "version", "netmask",
               "role_text", "status", "type", "router_redundancy", "locations", "vlans"}
LOCATION_KEYS = {"identifier", "code", "name", "country", "lat", "lon", "city_code"}
VLAN_KEYS = {"identifier", "name", "description_customer", "description_internal", "role_text", "status",
             "vm_provisioning", "locations"}
SUMMARY_KEYS = {"identifier", "name", "description_customer"}


def prefix(engine, ident):
    return ok(engine.api("GET", PREFIXES + "/" + ident))


def create(engine, **body):
    return engine.api("POST", PREFIXES, json=dict({"location": LOCATION, "version": 4, "netmask": 29,
                                                   "create_empty": True}, **body))


def addresses(engine, ident):
    return sorted(a["name"] for a in ok(engine.api("GET", FILTERED, params={"prefix": ident, "limit": 100}))[
        "data"]["data"])


def test_list_is_top_level_data_with_page_keys(engine):
    body = ok(engine.api("GET", PREFIXES, params={"page": 1, "limit": 10, "search": ""}))
    assert set(body) == {"page", "total_pages", "total_items", "limit", "data"}
    assert body["data"] == [{"identifier": V4, "name": "127.0.10.0/24", "description_customer": "loopback VIPs for the demo"},
                            {"identifier": V6, "name": "fd00:10::/64", "description_customer": "IPv6 VIPs (data only)"}]
    assert [p["name"] for p in ok(engine.api("GET", PREFIXES, params={"search": "fd00"}))["data"]] == ["fd00:10::/64"]
    assert ok(engine.api("GET", PREFIXES, params={"page": 2, "limit": 10}))["data"] == []


def test_get_is_the_full_object_named_by_its_cidr(engine):
    p = prefix(engine, V4)
    assert set(p) == PREFIX_KEYS
    assert (p["name"], p["version"], p["netmask"], p["status"], p["type"]) == ("127.0.10.0/24", 4, 24, "Active", 0)
    assert set(p["locations"][0]) == LOCATION_KEYS and p["locations"][0]["identifier"] == LOCATION
    assert isinstance(p["locations"][0]["lat"], str)
    assert p["vlans"] == [{"identifier": VLAN, "name": "local", "description_customer": ""}]
    assert prefix(engine, V6)["vlans"][0]["identifier"] == VLAN
    error_of(engine.api("GET", PREFIXES + "/" + "0" * 32), 404)


def test_the_vlan_of_a_prefix(engine):
    vlan = ok(engine.api("GET", "/api/vlan/v1/vlan.json/" + VLAN))
    assert set(vlan) == VLAN_KEYS and vlan["locations"][0]["identifier"] == LOCATION and vlan["status"] == "Active"
    error_of(engine.api("GET", "/api/vlan/v1/vlan.json/" + V4), 404)
    error_of(engine.api("DELETE", "/api/vlan/v1/vlan.json/" + VLAN), 405)


def test_seeded_prefixes_have_network_gateway_and_ipv4_broadcast(engine):
    assert addresses(engine, V4) == ["127.0.10.0", "127.0.10.1", "127.0.10.255"]
    assert addresses(engine, V6) == ["fd00:10::", "fd00:10::1"]


@pytest.mark.parametrize("body, expected", [({"create_empty": True}, 3), ({"create_empty": False}, 8),
                                            ({"version": 6, "netmask": 64}, 2), ({"netmask": 32}, 1)])
def test_create_carves_from_the_local_pool_and_adds_address_objects(engine, body, expected):
    made = ok(create(engine, **body))
    assert set(made) == SUMMARY_KEYS
    net = ipaddress.ip_network(made["name"])
    assert net.subnet_of(ipaddress.ip_network("127.128.0.0/9" if net.version == 4 else "fd00:ff00::/32"))
    assert len(addresses(engine, made["identifier"])) == expected
    full = prefix(engine, made["identifier"])
    assert full["status"] == "Active" and ok(engine.api("GET", "/api/vlan/v1/vlan.json/" + full["vlans"][0]["identifier"]))


def test_created_prefixes_do_not_overlap_and_can_use_an_existing_vlan(engine):
    one, two = ok(create(engine, vlan=VLAN)), ok(create(engine, vlan=VLAN, description_customer="d"))
    assert not ipaddress.ip_network(one["name"]).overlaps(ipaddress.ip_network(two["name"]))
    assert prefix(engine, two["identifier"])["vlans"][0]["identifier"] == VLAN and two["description_customer"] == "d"


@pytest.mark.parametrize("body, field", [
    ({"location": "0" * 32}, "location"), ({"location": None}, "location"), ({"version": 5}, "version"),
    ({"netmask": 8}, "netmask"), ({"netmask": 33}, "netmask"), ({"netmask": None}, "netmask"), ({"type": 2}, "type"),
    ({"create_empty": "yes"}, "create_empty"), ({"vlan": V4}, "vlan"), ({"description_customer": 1}, "description_customer"),
    ({"netmask": 16, "create_empty": False}, "create_empty")])
def test_create_validation(engine, body, field):
    assert field in error_of(create(engine, **body), 422)["validation"]


def test_update_changes_the_description_only(engine):
    assert ok(engine.api("PUT", PREFIXES + "/" + V4, json={"description_customer": "new"}))["description_customer"] == "new"
    assert prefix(engine, V4)["description_customer"] == "new"
    ok(engine.api("PUT", PREFIXES + "/" + V4, json={"name": "127.0.10.0/24"}))
    assert "name" in error_of(engine.api("PUT", PREFIXES + "/" + V4, json={"name": "127.0.11.0/24"}), 422)["validation"]


def test_delete_takes_the_addresses_along(engine):
    assert ok(engine.api("DELETE", PREFIXES + "/" + V4)) == {}
    error_of(engine.api("GET", PREFIXES + "/" + V4), 404)
    assert addresses(engine, V4) == []


def test_pending_then_active_and_marked_for_deletion_then_gone(slow_engine):
    made = ok(create(slow_engine))
    assert prefix(slow_engine, made["identifier"])["status"] == "Pending"
    assert "not yet ready" in error_of(slow_engine.api("DELETE", PREFIXES + "/" + made["identifier"]), 409)["message"]
    after_delay()
    assert prefix(slow_engine, made["identifier"])["status"] == "Active"
    ok(slow_engine.api("DELETE", PREFIXES + "/" + made["identifier"]))
    assert prefix(slow_engine, made["identifier"])["status"] == "Marked for deletion"
    assert ok(slow_engine.api("DELETE", PREFIXES + "/" + made["identifier"])) == {}
    after_delay()
    error_of(slow_engine.api("GET", PREFIXES + "/" + made["identifier"]), 404)


@pytest.mark.parametrize("outcome, status", [("error", "Failed"), ("stuck", "Pending")])
def test_deploy_faults_apply_to_prefixes(engine, outcome, status):
    engine.set_faults({"deploy": [{"match": "127.128.*", "outcome": outcome}]})
    assert prefix(engine, ok(create(engine))["identifier"])["status"] == status


def test_an_exhausted_pool_is_a_409(engine):
    ok(create(engine, netmask=9))   # the whole IPv4 pool
    assert "No free /9" in error_of(create(engine, netmask=9), 409)["message"]
