"""Contract: CloudDNS zones (docs/engine-api-facts.md, CloudDNS; tests/engine/README.md, "CloudDNS").

Bodies as go-anxcloud sends them: the legacy client (pkg/clouddns/zone/zone.go, Definition with
``zone_name``) and the generic one (pkg/apis/clouddns/v1/zone_genclient.go FilterAPIRequestBody:
``zoneName``, no ``name``; list and create at ``zone.json/`` with a trailing slash, update at ``zone.json``
without the name)."""
import re

import pytest

from localengine.testing import LocalEngine

from .conftest import ZONES, definition, zone_path
from .helpers import EXAMPLE_SEED, error_of, ok

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
ZONE_KEYS = {"name", "master", "dnssec_mode", "admin_email", "refresh", "retry", "expire", "ttl", "master_ns",
             "notify_allowed_ips", "dns_servers", "customer", "created_at", "updated_at", "published_at",
             "is_editable", "validation_level", "deployment_level", "revisions", "current_revision"}
REVISION_KEYS = {"identifier", "serial", "state", "records", "created_at", "modified_at"}


def generic(name, **changes):
    """The generic client's body: the Zone struct with zoneName, its name emptied (omitempty drops it)."""
    body = definition(name, **changes)
    body["zoneName"] = body.pop("zone_name")
    return body


def test_a_zone_made_by_the_legacy_client_reads_back_whole(engine):
    zone = ok(engine.api("POST", ZONES, json=definition("shop.test", refresh=7200)))
    assert set(zone) == ZONE_KEYS and zone["name"] == "shop.test" and zone["refresh"] == 7200
    assert zone["is_editable"] is True and zone["deployment_level"] == 100 and zone["validation_level"] == 100
    assert all(RFC3339.match(zone[k]) for k in ("created_at", "updated_at", "published_at"))   # Go time.Time
    (revision,) = zone["revisions"]
    assert set(revision) == REVISION_KEYS and zone["current_revision"] == revision["identifier"]
    assert revision["state"] == "active" and isinstance(revision["serial"], int)
    assert ok(engine.api("GET", zone_path("shop.test"))) == zone


def test_the_generic_client_lists_and_creates_with_a_trailing_slash(engine):
    ok(engine.api("POST", ZONES + "/", json=generic("shop.test")))
    listing = ok(engine.api("GET", ZONES + "/"))
    # zone_genclient.go FilterAPIResponse: "some non-functional pagination remnants", zones under results
    assert "results" in listing and [z["name"] for z in listing["results"]] == ["shop.test"]
    assert ok(engine.api("GET", ZONES, params={"page": 5, "limit": 1}))["results"] == listing["results"]


def test_the_soa_and_ns_records_are_the_zones_own(engine):
    zone = ok(engine.api("POST", ZONES, json=definition("shop.test", dns_servers=[{"server": "ns1.example.net",
                                                                                   "alias": ""}])))
    records = zone["revisions"][0]["records"]
    assert [(r["name"], r["type"], r["immutable"]) for r in records] == [("@", "SOA", True), ("@", "NS", True)]
    soa = records[0]["rdata"].split()
    assert soa[:2] == ["ns1.example.net.", "admin.shop.test."] and soa[2] == str(zone["revisions"][0]["serial"])
    assert soa[3:] == ["3600", "600", "604800", "300"] and records[1]["rdata"] == "ns1.example.net."


def test_an_update_puts_the_whole_zone_to_the_collection_and_makes_a_revision(engine):
    first = ok(engine.api("POST", ZONES, json=definition("shop.test")))
    updated = ok(engine.api("PUT", ZONES, json=generic("shop.test", admin_email="dns@shop.test", ttl=600)))
    assert updated["admin_email"] == "dns@shop.test" and updated["ttl"] == 600
    assert len(updated["revisions"]) == 2 and updated["current_revision"] != first["current_revision"]
    assert updated["revisions"][0]["serial"] > first["revisions"][0]["serial"]
    assert updated["revisions"][0]["records"][0]["rdata"].startswith("ns1.local.test. dns.shop.test. ")
    # the name is in the body, never in the path (zone_genclient.go FilterAPIRequest strips it)
    error_of(engine.api("PUT", zone_path("shop.test"), json=generic("shop.test")), 405)
    error_of(engine.api("PUT", ZONES, json=generic("other.test")), 404)


@pytest.mark.parametrize("changes, field", [
    ({"zone_name": None}, "zone_name"),
    ({"zone_name": "single"}, "zone_name"),
    ({"zone_name": "bad name.test"}, "zone_name"),
    ({"master": "yes"}, "master"),
    ({"dnssec_mode": "on"}, "dnssec_mode"),
    ({"admin_email": "nobody"}, "admin_email"),
    ({"refresh": 0}, "refresh"),
    ({"ttl": "300"}, "ttl"),
    ({"expire": None}, "expire"),
    ({"notify_allowed_ips": ["x"]}, "notify_allowed_ips"),
    ({"dns_servers": [{"alias": "a"}]}, "dns_servers"),
])
def test_a_zone_needs_every_soa_value_and_valid_fields(engine, changes, field):
    err = error_of(engine.api("POST", ZONES, json=definition("shop.test", **changes)), 400)
    assert field in err["validation"]
    assert ok(engine.api("GET", ZONES))["results"] == []   # nothing made


def test_names_are_lowercase_without_a_trailing_dot_and_unique(engine):
    ok(engine.api("POST", ZONES, json=definition("Shop.Test.")))
    assert ok(engine.api("GET", zone_path("shop.test")))["name"] == "shop.test"
    assert "zone_name" in error_of(engine.api("POST", ZONES, json=definition("shop.test")), 400)["validation"]
    assert "zone_name" in error_of(engine.api("POST", ZONES, json=dict(definition("a.test"), zoneName="b.test")),
                                   400)["validation"]


def test_unknown_zones_are_404_and_a_deleted_zone_is_gone(engine):
    error_of(engine.api("GET", zone_path("nowhere.test")), 404)
    error_of(engine.api("GET", zone_path("nowhere.test", "records")), 404)
    ok(engine.api("POST", ZONES, json=definition("shop.test")))
    assert ok(engine.api("DELETE", zone_path("shop.test"))) == {}
    error_of(engine.api("GET", zone_path("shop.test")), 404)
    error_of(engine.api("DELETE", zone_path("shop.test")), 404)


def test_the_example_seed_has_a_zone_with_its_records_and_reseeding_adds_nothing(tmp_path):
    state = str(tmp_path / "engine.db")
    for _start in range(2):
        with LocalEngine(seed=EXAMPLE_SEED, state=state) as engine:
            zones = ok(engine.api("GET", ZONES))["results"]
            assert [z["name"] for z in zones] == ["example.test"] and len(zones[0]["revisions"]) == 1
            records = [(r["name"], r["type"], r["rdata"], r["ttl"], r["immutable"])
                       for r in ok(engine.api("GET", zone_path("example.test", "records")))]
    assert records == [
        ("@", "SOA", "ns1.example.test. hostmaster.example.test. 1 3600 600 604800 300", None, True),
        ("@", "NS", "ns1.example.test.", None, True), ("@", "NS", "ns2.example.test.", None, True),
        ("www", "A", "127.0.20.2", 60, False), ("www", "AAAA", "fd00:20::2", None, False),
        ("@", "MX", "10 mail.example.test.", None, False), ("@", "TXT", '"v=spf1 -all"', None, True)]
