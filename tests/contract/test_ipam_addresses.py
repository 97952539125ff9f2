"""Contract: IPAM addresses and random reservations (docs/engine-api-facts.md, IPAM)."""
import ipaddress
import time

import pytest

from localengine.account import CUSTOMER

from .helpers import (ADDRESSES, FILTERED, LOCATION, PREFIXES, RESERVE, V4, V6, VLAN, after_delay, error_of, items,
                      ok)

SUMMARY_KEYS = {"identifier", "name", "description_customer", "role_text", "rdns_name"}
FULL_KEYS = SUMMARY_KEYS | {"description_internal", "version", "status", "vlan", "prefix"}


def add(engine, prefix=V4, name="127.0.10.17", **body):
    return engine.api("POST", ADDRESSES, json=dict({"prefix": prefix, "name": name, "description_customer": "",
                                                    "role": "Default", "organization": "", "rdns_name": ""}, **body))


def address(engine, ident):
    return ok(engine.api("GET", ADDRESSES + "/" + ident))


def names(engine, path=FILTERED, **params):
    return sorted(a["name"] for a in items(ok(engine.api("GET", path, params=dict({"limit": 100}, **params)))))


def reserve(engine, **body):
    return engine.api("POST", RESERVE, json=dict({"location_identifier": LOCATION, "vlan_identifier": VLAN,
                                                  "count": 1}, **body))


def test_create_answers_the_summary_and_get_the_full_object(engine):
    made = ok(add(engine, prefix=V6, name="FD00:10:0::0005", description_customer="vip", role="Reserved",
                  rdns_name="vip.example"))
    assert set(made) == SUMMARY_KEYS
    assert (made["name"], made["role_text"], made["rdns_name"]) == ("fd00:10::5", "Reserved", "vip.example")
    full = address(engine, made["identifier"])
    assert set(full) == FULL_KEYS
    assert (full["prefix"], full["version"], full["status"], full["vlan"], full["description_internal"]) == (
        V6, 6, "Inactive", VLAN, "")
    assert full["rdns_name"] == "vip.example."   # an FQDN on later reads


def test_rdns_gains_its_trailing_dot_once_processed(slow_engine):
    made = ok(add(slow_engine, rdns_name="a.example"))
    assert address(slow_engine, made["identifier"])["rdns_name"] == "a.example"
    after_delay()
    assert address(slow_engine, made["identifier"])["rdns_name"] == "a.example."
    assert ok(slow_engine.api("PUT", ADDRESSES + "/" + made["identifier"], json={"rdns_name": "b.example"}))[
        "rdns_name"] == "b.example"


def test_rdns_name_as_go_anxcloud_sends_it(engine):
    """gac:pkg/ipam/address/address.go (PR #504): Create and Update carry rdns_name always (no omitempty),
    Summary (the list) and Address (get) return it. An Update with "" clears it: the field is always sent."""
    made = ok(add(engine, rdns_name="vip.example.com"))
    listed = [a for a in items(ok(engine.api("GET", ADDRESSES, params={"prefix": V4, "limit": 100})))
              if a["identifier"] == made["identifier"]]
    assert [a["rdns_name"] for a in listed] == ["vip.example.com."]
    update = {"description_customer": "vip", "rdns_name": "other.example.com"}   # Update: name, role omitted
    assert ok(engine.api("PUT", ADDRESSES + "/" + made["identifier"], json=update))["rdns_name"] == "other.example.com"
    assert address(engine, made["identifier"])["rdns_name"] == "other.example.com."
    ok(engine.api("PUT", ADDRESSES + "/" + made["identifier"], json={"rdns_name": ""}))
    assert address(engine, made["identifier"])["rdns_name"] == ""


@pytest.mark.parametrize("body, field, text", [
    ({"prefix": "0" * 32}, "prefix", "No prefix"), ({"prefix": None}, "prefix", "No prefix"),
    ({"name": "bogus"}, "name", "valid"), ({"name": ""}, "name", "valid"), ({"name": "127.0.11.1"}, "name", "not part"),
    ({"name": "fd00:10::9"}, "name", "not part"), ({"name": "127.0.10.1"}, "name", "already in use"),
    ({"description_customer": 3}, "description_customer", "string")])
def test_create_validation_names_the_field(engine, body, field, text):
    assert text in error_of(add(engine, **body), 422)["validation"][field]


def test_the_same_address_in_another_spelling_is_taken(engine):
    ok(add(engine, prefix=V6, name="fd00:10::5"))
    assert "already in use" in error_of(add(engine, prefix=V6, name="FD00:0010:0:0::5"), 422)["validation"]["name"]


def test_update_merges_and_role_is_answered_as_role_text(engine):
    made = ok(add(engine, description_customer="d", rdns_name="x.example"))
    updated = ok(engine.api("PUT", ADDRESSES + "/" + made["identifier"], json={"role": "Reserved", "rdns_name": ""}))
    assert (updated["role_text"], updated["description_customer"], updated["rdns_name"]) == ("Reserved", "d", "")
    moved = ok(engine.api("PUT", ADDRESSES + "/" + made["identifier"], json={"name": "127.0.10.18", "role": ""}))
    assert (moved["name"], moved["role_text"]) == ("127.0.10.18", "Reserved")   # an empty role is "not sent"
    error_of(engine.api("PUT", ADDRESSES + "/" + made["identifier"], json={"name": "127.0.10.1"}), 422)
    error_of(engine.api("PUT", ADDRESSES + "/" + "0" * 32, json={}), 404)


def test_delete_then_404(engine):
    made = ok(add(engine))
    assert ok(engine.api("DELETE", ADDRESSES + "/" + made["identifier"])) == {}
    error_of(engine.api("GET", ADDRESSES + "/" + made["identifier"]), 404)
    ok(add(engine))   # the address is free again


def test_delete_marks_for_deletion_first(slow_engine):
    made = ok(add(slow_engine))
    ok(slow_engine.api("DELETE", ADDRESSES + "/" + made["identifier"]))
    assert address(slow_engine, made["identifier"])["status"] == "Marked for deletion"
    error_of(slow_engine.api("PUT", ADDRESSES + "/" + made["identifier"], json={"role": "x"}), 409)
    ok(slow_engine.api("DELETE", ADDRESSES + "/" + made["identifier"]))
    after_delay()
    error_of(slow_engine.api("GET", ADDRESSES + "/" + made["identifier"]), 404)


def test_lists_are_wrapped_pages_of_summaries(engine):
    ok(add(engine, name="127.0.10.17"))
    ok(add(engine, prefix=V6, name="fd00:10::a"))
    for path in (ADDRESSES, FILTERED):
        body = ok(engine.api("GET", path, params={"page": 1, "limit": 2, "search": ""}))
        assert body["data"]["total_items"] == 7 and body["data"]["total_pages"] == 4
        assert all(set(a) == SUMMARY_KEYS for a in items(body))
    assert items(ok(engine.api("GET", ADDRESSES, params={"page": 5, "limit": 2}))) == []


def test_search_is_a_case_insensitive_substring(engine):
    ok(add(engine, name="127.0.10.17"))
    ok(add(engine, prefix=V6, name="fd00:10::a"))
    assert names(engine, ADDRESSES, search="10.1") == ["127.0.10.1", "127.0.10.17"]
    assert names(engine, FILTERED, search="FD00:10::A") == ["fd00:10::a"]


@pytest.mark.parametrize("params, expected", [
    ({"prefix": V6}, ["fd00:10::", "fd00:10::1"]), ({"version": "6"}, ["fd00:10::", "fd00:10::1"]),
    ({"status": "Inactive"}, ["127.0.10.17"]), ({"role_text": "Gateway"}, ["127.0.10.1", "fd00:10::1"]),
    ({"vlan": VLAN, "search": "127.0.10.2"}, ["127.0.10.255"]), ({"location": "0" * 32}, []),
    ({"location": LOCATION, "prefix": V4, "search": "10.1"}, ["127.0.10.1", "127.0.10.17"]),
    ({"organization_identifier": CUSTOMER, "version": "6"}, ["fd00:10::", "fd00:10::1"]),
    ({"organization_identifier": "0" * 32}, [])])
def test_filtered_list(engine, params, expected):
    ok(add(engine, name="127.0.10.17"))
    assert names(engine, **params) == expected


def test_random_reservation_is_a_bare_page(engine):
    body = ok(reserve(engine, prefix_identifier=V4, ip_version=4, reservation_period=60))
    assert set(body) == {"page", "total_pages", "total_items", "limit", "data"}
    assert (body["page"], body["total_pages"], body["total_items"], body["limit"]) == (1, 1, 1, 1)
    item = body["data"][0]
    assert set(item) == {"identifier", "text", "prefix"} and item["prefix"] == V4
    assert ipaddress.ip_address(item["text"]) in ipaddress.ip_network("127.0.10.0/24")
    full = address(engine, item["identifier"])
    assert (full["name"], full["status"], full["description_internal"]) == (item["text"], "In progress", "reserved")
    assert "cannot be deleted" in error_of(engine.api("DELETE", ADDRESSES + "/" + item["identifier"]), 409)["message"]


def test_reservations_skip_network_gateway_and_broadcast_and_never_repeat(engine):
    made = ok(engine.api("POST", PREFIXES, json={"location": LOCATION, "version": 4, "netmask": 29, "vlan": VLAN}))
    got = [i["text"] for i in ok(reserve(engine, prefix_identifier=made["identifier"], count=5))["data"]]
    net = ipaddress.ip_network(made["name"])
    assert sorted(got, key=ipaddress.ip_address) == [str(net[i]) for i in range(2, 7)]
    assert "0 free" in error_of(reserve(engine, prefix_identifier=made["identifier"]), 422)["validation"]["count"]


def test_a_failed_reservation_reserves_nothing(engine):
    made = ok(engine.api("POST", PREFIXES, json={"location": LOCATION, "version": 4, "netmask": 30, "vlan": VLAN}))
    error_of(reserve(engine, prefix_identifier=made["identifier"], count=2), 422)
    assert ok(reserve(engine, prefix_identifier=made["identifier"]))["total_items"] == 1


def test_ipv6_reservations_in_a_huge_prefix(engine):
    body = ok(reserve(engine, ip_version=6, count=3))
    assert len({i["text"] for i in body["data"]}) == 3 and all(i["prefix"] == V6 for i in body["data"])


def test_reservations_expire(engine):
    item = ok(reserve(engine, reservation_period=0.2))["data"][0]
    time.sleep(0.3)
    error_of(engine.api("GET", ADDRESSES + "/" + item["identifier"]), 404)


def test_reservations_are_reproducible_with_a_fault_seed(engine):
    picks = []
    for _attempt in range(2):
        engine.reset()
        engine.set_faults({"seed": 11})
        picks.append([i["text"] for i in ok(reserve(engine, ip_version=4, count=3))["data"]])
    assert picks[0] == picks[1]


def test_reservation_waits_for_pending_prefixes(slow_engine):
    ok(slow_engine.api("POST", PREFIXES, json={"location": LOCATION, "version": 4, "netmask": 29, "vlan": VLAN}))
    assert "not be ready" in error_of(reserve(slow_engine, ip_version=4), 409)["message"]
    after_delay()
    ok(reserve(slow_engine, ip_version=4))


@pytest.mark.parametrize("body, field", [
    ({"vlan_identifier": "0" * 32}, "vlan_identifier"), ({"location_identifier": "0" * 32}, "location_identifier"),
    ({"count": 0}, "count"), ({"count": "1"}, "count"), ({"ip_version": 5}, "ip_version"),
    ({"reservation_period": 0}, "reservation_period"), ({"prefix_identifier": "0" * 32}, "prefix_identifier")])
def test_reservation_validation(engine, body, field):
    assert field in error_of(reserve(engine, **body), 422)["validation"]
