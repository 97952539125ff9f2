"""Contract: IPAM prefixes, addresses, reservations and the VLAN lookup (ENGINE_API.md section 6)."""
from .test_lbaas import error_of

V4 = "0a11ce11000000000000000000000001"
V6 = "0a11ce11000000000000000000000002"
ADDR = "/api/ipam/v1/address.json"


def test_prefix_list_and_get(engine):
    body = engine.api("GET", "/api/ipam/v1/prefix.json", params={"page": 1, "limit": 10, "search": ""}).json()
    assert isinstance(body["data"], list) and {p["name"] for p in body["data"]} == {"127.0.10.0/24", "fd00:10::/64"}
    prefix = engine.api("GET", "/api/ipam/v1/prefix.json/" + V4).json()
    assert (prefix["name"], prefix["version"], prefix["netmask"], prefix["status"]) == ("127.0.10.0/24", 4, 24, "Active")
    assert prefix["locations"][0]["identifier"] and prefix["vlans"][0]["identifier"]
    vlan = engine.api("GET", "/api/vlan/v1/vlan.json/" + prefix["vlans"][0]["identifier"]).json()
    assert vlan["locations"][0]["identifier"] == prefix["locations"][0]["identifier"]


def test_seeded_prefix_has_network_gateway_and_broadcast(engine):
    body = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": V4, "page": 1, "limit": 50}).json()
    assert set(body) == {"state", "messages", "data"}
    assert sorted(a["name"] for a in body["data"]["data"]) == ["127.0.10.0", "127.0.10.1", "127.0.10.255"]


def test_create_specific_address_and_validation(engine):
    created = engine.api("POST", ADDR, json={"prefix": V6, "name": "FD00:10:0::0005", "description_customer": "x",
                                             "role": "Default", "organization": "", "rdns_name": "vip.example"})
    assert created.status_code == 200
    summary = created.json()
    assert set(summary) == {"identifier", "name", "description_customer", "role_text", "rdns_name"}
    assert summary["name"] == "fd00:10::5" and summary["rdns_name"] == "vip.example"   # stored shortened
    full = engine.api("GET", ADDR + "/" + summary["identifier"]).json()
    assert (full["prefix"], full["version"], full["status"], full["rdns_name"]) == (V6, 6, "Inactive", "vip.example.")
    taken = error_of(engine.api("POST", ADDR, json={"prefix": V6, "name": "fd00:10::5"}), 422)
    assert "already in use" in taken["validation"]["name"]
    outside = error_of(engine.api("POST", ADDR, json={"prefix": V4, "name": "127.0.11.1"}), 422)
    assert "not part of prefix" in outside["validation"]["name"]
    error_of(engine.api("POST", ADDR, json={"prefix": V4, "name": "bogus"}), 422)
    assert engine.api("DELETE", ADDR + "/" + summary["identifier"]).status_code == 200
    error_of(engine.api("GET", ADDR + "/" + summary["identifier"]), 404)


def test_search_is_a_substring_match(engine):
    engine.api("POST", ADDR, json={"prefix": V4, "name": "127.0.10.17"})
    body = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"search": "10.1", "page": 1, "limit": 50})
    assert sorted(a["name"] for a in body.json()["data"]["data"]) == ["127.0.10.1", "127.0.10.17"]


def test_random_reservation_is_a_bare_page_and_cannot_be_deleted(engine):
    prefix = engine.api("GET", "/api/ipam/v1/prefix.json/" + V4).json()
    body = engine.api("POST", "/api/ipam/v1/address/reserve/ip/count.json",
                      json={"location_identifier": prefix["locations"][0]["identifier"],
                            "vlan_identifier": prefix["vlans"][0]["identifier"], "count": 1, "ip_version": 4}).json()
    assert set(body) == {"page", "total_pages", "total_items", "limit", "data"} and body["total_items"] == 1
    item = body["data"][0]
    assert set(item) == {"identifier", "text", "prefix"} and item["prefix"] == V4
    full = engine.api("GET", ADDR + "/" + item["identifier"]).json()
    assert (full["status"], full["description_internal"]) == ("In progress", "reserved")
    error_of(engine.api("DELETE", ADDR + "/" + item["identifier"]), 409)
