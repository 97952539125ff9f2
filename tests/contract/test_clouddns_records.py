"""Contract: CloudDNS records (docs/engine-api-facts.md, CloudDNS; tests/engine/README.md, "CloudDNS").

Bodies as the clients send them: go-anxcloud's generic client (pkg/apis/clouddns/v1/record_types.go:
identifier omitempty, name, rdata, region, ttl, type; the zone only in the path) and its legacy client
(pkg/clouddns/zone/record.go RecordRequest: name, type, rdata, region, ttl omitempty). The answers to
writes are the whole zone; go-anxcloud finds its record in the current revision by name, type, rdata
(TXT quoted with Go's %q) and ttl (record_genclient.go findInZone)."""
import json

import pytest

from .conftest import ZONE, ZONES, definition, zone_path
from .helpers import error_of, ok

RECORD_KEYS = {"identifier", "name", "type", "rdata", "region", "ttl", "comment", "immutable"}


@pytest.fixture
def zone(engine):
    ok(engine.api("POST", ZONES, json=definition(ZONE)))
    return ZONE


def records(engine, **filters):
    return ok(engine.api("GET", zone_path(ZONE, "records"), params=filters))


def mine(engine):
    """The records a client made (without the zone's SOA and NS)."""
    return [r for r in records(engine) if not r["immutable"]]


def current(zone_answer):
    (revision,) = [r for r in zone_answer["revisions"] if r["identifier"] == zone_answer["current_revision"]]
    return revision["records"]


def find_in_zone(zone_answer, name, rtype, rdata, ttl):
    """go-anxcloud's findInZone: TXT rdata is looked for as Go's %q of what was sent."""
    wanted = json.dumps(rdata) if rtype == "TXT" else rdata
    found = [r for r in current(zone_answer) if (r["name"], r["type"], r["rdata"], r["ttl"] or 0) ==
             (name, rtype, wanted, ttl)]
    assert len(found) == 1, current(zone_answer)
    return found[0]


def test_the_generic_clients_create_answers_the_zone_holding_the_record(engine, zone):
    # record_genclient.go, zone_test.go "should make a valid create record request"
    body = {"name": "test1", "rdata": "test record", "region": "default", "ttl": 300, "type": "TXT"}
    answer = ok(engine.api("POST", zone_path(zone, "records"), json=body))
    assert answer["name"] == zone and "revisions" in answer
    record = find_in_zone(answer, "test1", "TXT", "test record", 300)
    assert set(record) == RECORD_KEYS and record["rdata"] == '"test record"'   # "I love the engine."
    assert record["comment"] is None and record["immutable"] is False and record["region"] == "default"
    assert mine(engine) == [record]


def test_the_legacy_client_leaves_the_ttl_out_and_gets_the_zones_default(engine, zone):
    answer = ok(engine.api("POST", zone_path(zone, "records"),
                           json={"name": "www", "type": "A", "rdata": "127.0.0.1", "region": "default"}))
    assert find_in_zone(answer, "www", "A", "127.0.0.1", 0)["ttl"] is None
    # the generic client sends 0 for an unset ttl (record_types.go TTL int), external-dns leaves region empty
    ok(engine.api("POST", zone_path(zone, "records"), json={"name": "w2", "type": "A", "rdata": "127.0.0.2",
                                                            "region": "", "ttl": 0}))
    assert [(r["name"], r["ttl"], r["region"]) for r in mine(engine)] == [("www", None, "default"),
                                                                          ("w2", None, "default")]


def test_the_list_is_a_plain_array_filtered_by_name_type_and_data(engine, zone):
    for name, rtype, rdata in (("@", "A", "127.0.0.1"), ("@", "AAAA", "::1"), ("www", "A", "127.0.0.1"),
                               ("www", "AAAA", "::1"), ("test1", "TXT", "test record")):
        ok(engine.api("POST", zone_path(zone, "records"), json={"name": name, "type": rtype, "rdata": rdata,
                                                                "region": "default", "ttl": 300}))
    everything = records(engine)
    assert isinstance(everything, list) and len(everything) == 5 + 3   # and SOA, two NS
    assert [(r["name"], r["type"]) for r in records(engine, name="www")] == [("www", "A"), ("www", "AAAA")]
    assert [r["name"] for r in records(engine, data="::1")] == ["@", "www"]
    assert [r["name"] for r in records(engine, type="TXT")] == ["test1"]
    # filters compare with the stored form: Terraform's findDNSRecord quotes TXT data before it filters
    assert records(engine, data="test record") == []
    assert [r["name"] for r in records(engine, data='"test record"')] == ["test1"]
    assert [r["rdata"] for r in records(engine, name="www", type="A", data="127.0.0.1")] == ["127.0.0.1"]


def test_there_is_no_get_of_one_record(engine, zone):
    answer = ok(engine.api("POST", zone_path(zone, "records"), json={"name": "www", "type": "A", "rdata": "127.0.0.1"}))
    ident = find_in_zone(answer, "www", "A", "127.0.0.1", 0)["identifier"]
    error_of(engine.api("GET", zone_path(zone, "records", ident)), 405)   # gac: ErrOperationNotSupported


def test_every_write_makes_a_revision_with_new_record_identifiers(engine, zone):
    first = ok(engine.api("POST", zone_path(zone, "records"), json={"name": "www", "type": "A", "rdata": "127.0.0.1"}))
    old = find_in_zone(first, "www", "A", "127.0.0.1", 0)["identifier"]
    second = ok(engine.api("POST", zone_path(zone, "records"), json={"name": "api", "type": "A", "rdata": "127.0.0.2"}))
    assert second["current_revision"] != first["current_revision"]
    assert [r["state"] for r in second["revisions"]] == ["active", "inactive", "inactive"]
    assert second["revisions"][0]["serial"] > second["revisions"][1]["serial"]
    new = find_in_zone(second, "www", "A", "127.0.0.1", 0)["identifier"]
    assert new != old   # Terraform: "changes on revision change and therefore shouldn't be used as reference"
    # an identifier of an older revision names nothing
    assert "revision" in error_of(engine.api("DELETE", zone_path(zone, "records", old)), 404)["message"]
    error_of(engine.api("PUT", zone_path(zone, "records", old), json={"name": "www", "type": "A",
                                                                      "rdata": "127.0.0.3"}), 404)


def test_put_replaces_a_record_and_delete_removes_it_both_answering_the_zone(engine, zone):
    answer = ok(engine.api("POST", zone_path(zone, "records"), json={"name": "www", "type": "A", "rdata": "127.0.0.1",
                                                                     "ttl": 300, "comment": "by me"}))
    record = find_in_zone(answer, "www", "A", "127.0.0.1", 300)
    # the generic client's Update sends the whole Record, identifier included
    changed = dict(record, rdata="127.0.0.9", ttl=600)
    answer = ok(engine.api("PUT", zone_path(zone, "records", record["identifier"]), json=changed))
    updated = find_in_zone(answer, "www", "A", "127.0.0.9", 600)
    assert updated["comment"] == "by me" and [r["rdata"] for r in mine(engine)] == ["127.0.0.9"]
    # a left-out comment is no comment: the body replaces the record
    answer = ok(engine.api("PUT", zone_path(zone, "records", updated["identifier"]),
                           json={"name": "www", "type": "A", "rdata": "127.0.0.9", "region": "default"}))
    again = find_in_zone(answer, "www", "A", "127.0.0.9", 0)
    assert again["comment"] is None
    answer = ok(engine.api("DELETE", zone_path(zone, "records", again["identifier"])))
    assert answer["name"] == zone and [r for r in current(answer) if not r["immutable"]] == [] and mine(engine) == []


@pytest.mark.parametrize("rtype, sent, stored", [
    ("A", "127.0.0.1", "127.0.0.1"),
    ("AAAA", "2001:DB8:0:0::1", "2001:db8::1"),
    ("AAAA", "fd00:0010:0000:0000:0000:0000:0000:0005", "fd00:10::5"),
    ("CNAME", "Web.Example.COM", "web.example.com."),
    ("CNAME", "web.example.com.", "web.example.com."),
    ("MX", "10   Mail.Example.com", "10 mail.example.com."),
    ("SRV", "10 5 443 web.example.com", "10 5 443 web.example.com."),
    ("PTR", "host.example.com", "host.example.com."),
    ("TXT", "v=spf1 -all", '"v=spf1 -all"'),
    ("TXT", 'say "hi" \\o/', '"say \\"hi\\" \\\\o/"'),
    ("TXT", '"already quoted"', '"already quoted"'),
    ("TXT", '"two"  "strings"', '"two" "strings"'),
    ("TXT", "x" * 300, '"%s" "%s"' % ("x" * 255, "x" * 45)),
])
def test_the_engine_rewrites_rdata_to_its_stored_form(engine, zone, rtype, sent, stored):
    ok(engine.api("POST", zone_path(zone, "records"), json={"name": "r", "type": rtype, "rdata": sent}))
    assert [r["rdata"] for r in mine(engine)] == [stored]


def test_names_are_relative_lowercase_and_at_is_the_apex(engine, zone):
    for name in ("@", "WWW", "*.Apps", "_acme-challenge"):
        ok(engine.api("POST", zone_path(zone, "records"), json={"name": name, "type": "TXT", "rdata": "x"}))
    assert [r["name"] for r in mine(engine)] == ["@", "www", "*.apps", "_acme-challenge"]


@pytest.mark.parametrize("body, field", [
    ({"name": "", "type": "A", "rdata": "127.0.0.1"}, "name"),   # gac ErrEmptyRecordNameNotSupported
    ({"type": "A", "rdata": "127.0.0.1"}, "name"),
    ({"name": "www.local.test.", "type": "A", "rdata": "127.0.0.1"}, "name"),
    ({"name": "bad name", "type": "A", "rdata": "127.0.0.1"}, "name"),
    ({"name": "www", "type": "a", "rdata": "127.0.0.1"}, "type"),
    ({"name": "www", "type": "HINFO", "rdata": "x y"}, "type"),
    ({"name": "www", "type": "SOA", "rdata": "a. b. 1 2 3 4 5"}, "type"),
    ({"name": "@", "type": "NS", "rdata": "ns.example.com."}, "name"),
    ({"name": "www", "type": "A", "rdata": "::1"}, "rdata"),
    ({"name": "www", "type": "A", "rdata": "127.000.0.1"}, "rdata"),
    ({"name": "www", "type": "A", "rdata": " 127.0.0.1"}, "rdata"),
    ({"name": "www", "type": "AAAA", "rdata": "127.0.0.1"}, "rdata"),
    ({"name": "www", "type": "CNAME", "rdata": "not a host"}, "rdata"),
    ({"name": "www", "type": "MX", "rdata": "mail.example.com."}, "rdata"),
    ({"name": "www", "type": "MX", "rdata": "70000 mail.example.com."}, "rdata"),
    ({"name": "_sip._tcp", "type": "SRV", "rdata": "10 5 mail.example.com."}, "rdata"),
    ({"name": "_sip._tcp", "type": "SRV", "rdata": "10 5 99999 sip.example.com."}, "rdata"),
    ({"name": "www", "type": "TXT", "rdata": "two\nlines"}, "rdata"),
    ({"name": "www", "type": "TXT", "rdata": ""}, "rdata"),
    ({"name": "www", "type": "TXT", "rdata": '"%s"' % ("x" * 256)}, "rdata"),
    ({"name": "www", "type": "A", "rdata": "127.0.0.1", "ttl": 30}, "ttl"),
    ({"name": "www", "type": "A", "rdata": "127.0.0.1", "ttl": "300"}, "ttl"),
    ({"name": "www", "type": "A", "rdata": "127.0.0.1", "ttl": True}, "ttl"),
    ({"name": "www", "type": "A", "rdata": "127.0.0.1", "comment": 5}, "comment"),
    ({"name": "www", "type": "A", "rdata": "127.0.0.1", "comment": "x" * 256}, "comment"),
])
def test_bad_records_are_400_naming_the_field_and_change_nothing(engine, zone, body, field):
    before = ok(engine.api("GET", zone_path(zone)))
    err = error_of(engine.api("POST", zone_path(zone, "records"), json=body), 400)
    assert field in err["validation"], err
    assert ok(engine.api("GET", zone_path(zone))) == before


def test_a_cname_stands_alone_and_not_at_the_apex(engine, zone):
    ok(engine.api("POST", zone_path(zone, "records"), json={"name": "www", "type": "A", "rdata": "127.0.0.1"}))
    error_of(engine.api("POST", zone_path(zone, "records"), json={"name": "www", "type": "CNAME",
                                                                  "rdata": "web.example.com."}), 400)
    error_of(engine.api("POST", zone_path(zone, "records"), json={"name": "@", "type": "CNAME",
                                                                  "rdata": "web.example.com."}), 400)
    ok(engine.api("POST", zone_path(zone, "records"), json={"name": "alias", "type": "CNAME", "rdata": "www"}))
    error_of(engine.api("POST", zone_path(zone, "records"), json={"name": "alias", "type": "CNAME",
                                                                  "rdata": "other.example.com."}), 400)


def test_duplicates_are_not_refused(engine, zone):
    """No uniqueness on the Engine side is known: a client must look before it creates."""
    for _attempt in range(2):
        ok(engine.api("POST", zone_path(zone, "records"), json={"name": "www", "type": "A", "rdata": "127.0.0.1"}))
    assert [r["rdata"] for r in mine(engine)] == ["127.0.0.1", "127.0.0.1"]


def test_the_zones_soa_ns_and_immutable_records_cannot_be_changed(dns_engine):
    soa, ns1, _ns2 = [r for r in records(dns_engine) if r["name"] == "@"]
    (pinned,) = records(dns_engine, name="pinned")
    assert (soa["type"], ns1["type"], pinned["immutable"], pinned["rdata"]) == ("SOA", "NS", True, '"do not touch"')
    for record in (soa, ns1, pinned):
        err = error_of(dns_engine.api("PUT", zone_path(ZONE, "records", record["identifier"]),
                                      json=dict(record, rdata="changed")), 400)
        assert "immutable" in err["message"]
        error_of(dns_engine.api("DELETE", zone_path(ZONE, "records", record["identifier"])), 400)
    assert records(dns_engine, name="pinned") == [pinned]   # no write made a revision
