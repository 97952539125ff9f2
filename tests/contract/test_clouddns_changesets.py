"""Contract: CloudDNS changesets (docs/engine-api-facts.md, CloudDNS; tests/engine/README.md, "CloudDNS").

``POST /api/clouddns/v1/zone.json/<zone>/changeset`` as Terraform sends it (resource_dns_record.go /
resource_dns_record_batch.go: dnsZoneChangeSet {create, delete} of dnsZoneChangeSetRecord {name, type,
region omitempty, rdata, ttl}; a 400 decoded into dnsZoneChangeSetError {Create, Delete []map[string][]string},
read by index) and as go-anxcloud's legacy client does (pkg/clouddns/zone/zone.go Apply: the answer is
[]Record)."""
import pytest

from .conftest import ZONE, ZONES, definition, zone_path
from .helpers import ok

CHANGESET = zone_path(ZONE, "changeset")


@pytest.fixture
def zone(engine):
    ok(engine.api("POST", ZONES, json=definition(ZONE)))
    return ZONE


def entry(name, rtype, rdata, ttl=0):
    """dnsZoneChangeSetRecord: ttl always sent (0 when unset), region left out when empty."""
    return {"name": name, "type": rtype, "rdata": rdata, "ttl": ttl}


def mine(engine):
    return [(r["name"], r["type"], r["rdata"], r["ttl"]) for r in ok(engine.api("GET", zone_path(ZONE, "records")))
            if not r["immutable"]]


def refused(resp):
    """The changeset error: the Engine's error body, plus create/delete aligned by index with the request."""
    assert resp.status_code == 400, resp.text
    error = resp.json()["error"]
    assert error["code"] == 400 and isinstance(error["message"], str)
    assert all(isinstance(v, str) for v in error["validation"].values())   # the legacy client decodes these
    return error


def test_a_changeset_applies_creates_and_deletes_in_one_revision(engine, zone):
    ok(engine.api("POST", CHANGESET, json={"create": [entry("www", "A", "127.0.0.1", 300),
                                                      entry("txt", "TXT", "hello world")], "delete": []}))
    before = ok(engine.api("GET", zone_path(ZONE)))
    # a TTL change as Terraform 0.5.4+ and issue 29 want it: delete the old and create the new, atomically;
    # the TXT is deleted by the quoted form it was listed with (Terraform deletes what findDNSRecord found)
    answer = ok(engine.api("POST", CHANGESET, json={
        "create": [entry("www", "A", "127.0.0.1", 600)],
        "delete": [entry("www", "A", "127.0.0.1", 300), entry("txt", "TXT", '"hello world"')]}))
    assert mine(engine) == [("www", "A", "127.0.0.1", 600)]
    after = ok(engine.api("GET", zone_path(ZONE)))
    assert len(after["revisions"]) == len(before["revisions"]) + 1
    # 200 answers the new revision's records (gac Apply decodes []Record)
    assert answer == after["revisions"][0]["records"] == ok(engine.api("GET", zone_path(ZONE, "records")))


def test_a_changeset_with_one_bad_entry_changes_nothing_and_names_it_by_index(engine, zone):
    ok(engine.api("POST", CHANGESET, json={"create": [entry("keep", "A", "127.0.0.1")]}))
    before = ok(engine.api("GET", zone_path(ZONE)))
    error = refused(engine.api("POST", CHANGESET, json={
        "create": [entry("a", "A", "127.0.0.2"), entry("b", "A", "not-an-ip"), entry("c", "MX", "mail.test.")],
        "delete": [entry("keep", "A", "127.0.0.1"), entry("gone", "A", "127.0.0.9")]}))
    assert [sorted(e) for e in error["create"]] == [[], ["rdata"], ["rdata"]]
    assert [sorted(e) for e in error["delete"]] == [[], ["record"]]
    assert all(isinstance(texts, list) and all(isinstance(t, str) for t in texts)
               for e in error["create"] + error["delete"] for texts in e.values())
    assert sorted(error["validation"]) == ["create[1].rdata", "create[2].rdata", "delete[1].record"]
    assert ok(engine.api("GET", zone_path(ZONE))) == before   # all or nothing


def test_a_delete_entry_must_match_name_type_rdata_and_ttl(engine, zone):
    ok(engine.api("POST", CHANGESET, json={"create": [entry("www", "A", "127.0.0.1", 300)]}))
    for wrong in (entry("www", "A", "127.0.0.1"), entry("www", "A", "127.0.0.2", 300),
                  entry("WWW2", "A", "127.0.0.1", 300), entry("www", "AAAA", "::1", 300)):
        assert refused(engine.api("POST", CHANGESET, json={"delete": [wrong]}))["delete"][0]
    # the same normalisation as on create: case and forms do not matter
    ok(engine.api("POST", CHANGESET, json={"delete": [entry("WWW", "A", "127.0.0.1", 300)]}))
    assert mine(engine) == []


def test_each_delete_entry_removes_one_record(engine, zone):
    """Duplicates exist (no uniqueness is known): one entry deletes one of them, two delete two."""
    ok(engine.api("POST", CHANGESET, json={"create": [entry("www", "A", "127.0.0.1")] * 3}))
    ok(engine.api("POST", CHANGESET, json={"delete": [entry("www", "A", "127.0.0.1")]}))
    assert mine(engine) == [("www", "A", "127.0.0.1", None)] * 2
    ok(engine.api("POST", CHANGESET, json={"delete": [entry("www", "A", "127.0.0.1")] * 2}))
    assert mine(engine) == []
    assert refused(engine.api("POST", CHANGESET, json={"delete": [entry("www", "A", "127.0.0.1")]}))


def test_a_changeset_may_not_leave_a_cname_beside_other_data(engine, zone):
    ok(engine.api("POST", CHANGESET, json={"create": [entry("www", "A", "127.0.0.1")]}))
    error = refused(engine.api("POST", CHANGESET, json={"create": [entry("www", "CNAME", "web.example.com.")]}))
    assert list(error["create"][0]) == ["name"]
    # replacing the A by a CNAME in one changeset is fine
    ok(engine.api("POST", CHANGESET, json={"create": [entry("www", "CNAME", "web.example.com.")],
                                           "delete": [entry("www", "A", "127.0.0.1")]}))
    assert mine(engine) == [("www", "CNAME", "web.example.com.", None)]


@pytest.mark.parametrize("body", [{}, {"create": [], "delete": []}, {"create": None}, {"create": {"name": "x"}}])
def test_an_empty_or_malformed_changeset_is_400(engine, zone, body):
    before = ok(engine.api("GET", zone_path(ZONE)))
    refused(engine.api("POST", CHANGESET, json=body))
    assert ok(engine.api("GET", zone_path(ZONE))) == before


def test_the_zones_own_and_immutable_records_cannot_be_deleted_by_changeset(dns_engine):
    soa = list(ok(dns_engine.api("GET", zone_path(ZONE, "records"), params={"type": "SOA"})))[0]
    for target in ({"name": "@", "type": "SOA", "rdata": soa["rdata"], "ttl": 0},
                   {"name": "@", "type": "NS", "rdata": "ns1.local.test.", "ttl": 0},
                   {"name": "pinned", "type": "TXT", "rdata": '"do not touch"', "ttl": 0}):
        error = refused(dns_engine.api("POST", zone_path(ZONE, "changeset"), json={"delete": [target]}))
        assert error["delete"][0], error
