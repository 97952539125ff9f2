"""Contract: CloudDNS revisions over time (--dns-deploy-delay), is_editable and deployment_level, and fault
injection on the CloudDNS paths (docs/engine-api-facts.md, CloudDNS; tests/engine/README.md, "CloudDNS"
and "Faults"). Terraform waits for is_editable before each changeset and polls deployment_level until
100 after a zone update (resource_dns_record_batch.go, resource_dns_zone.go waitForZoneDeployment)."""
import time

import pytest
import requests

from localengine.testing import LocalEngine

from .conftest import DNS_SEED, ZONE, knotd, resolve, wait_editable, zone_path
from .helpers import error_of, ok

DNS_DELAY = 0.8   # seconds a revision takes: half validating, half deploying


@pytest.fixture(scope="module")
def slow_dns_local_engine():
    with LocalEngine(seed=DNS_SEED, dns=True, dns_deploy_delay=DNS_DELAY, extra_args=["--knot-bin", knotd()]) as engine:
        yield engine


@pytest.fixture
def slow_dns(slow_dns_local_engine):
    slow_dns_local_engine.reset()
    wait_editable(slow_dns_local_engine)
    return slow_dns_local_engine


def levels(engine):
    zone = ok(engine.api("GET", zone_path(ZONE)))
    return zone["is_editable"], zone["validation_level"], zone["deployment_level"], zone["revisions"][0]["state"]


def www(engine):
    (record,) = ok(engine.api("GET", zone_path(ZONE, "records"), params={"name": "www"}))
    return record


def test_a_revision_validates_then_deploys_and_the_zone_is_not_editable_meanwhile(slow_dns):
    start = time.monotonic()
    answer = ok(slow_dns.api("PUT", zone_path(ZONE, "records", www(slow_dns)["identifier"]),
                             json=dict(www(slow_dns), rdata="127.0.0.6")))
    assert (answer["is_editable"], answer["deployment_level"], answer["revisions"][0]["state"]) == (
        False, 0, "validating")
    assert answer["revisions"][1]["state"] == "active"   # the live one until the new one is
    seen = []
    while time.monotonic() - start < DNS_DELAY * 0.9:
        seen.append(levels(slow_dns))
        assert resolve(slow_dns, "www.local.test", "A")[1] == ["127.0.0.5"]   # DNS still has the old value
        time.sleep(0.05)
    assert all(editable is False for editable, _v, _d, _s in seen)
    assert [d for _e, _v, d, _s in seen] == sorted(d for _e, _v, d, _s in seen) and seen[-1][2] < 100
    assert {"validating", "deploying"} <= set(s for _e, _v, _d, s in seen)
    zone = wait_editable(slow_dns)
    assert time.monotonic() - start >= DNS_DELAY
    assert (zone["validation_level"], zone["deployment_level"], zone["revisions"][0]["state"]) == (100, 100, "active")
    assert zone["revisions"][1]["state"] == "inactive"
    assert resolve(slow_dns, "www.local.test", "A")[1] == ["127.0.0.6"]


def test_writes_are_refused_while_the_zone_is_not_editable(slow_dns):
    record = www(slow_dns)
    ok(slow_dns.api("PUT", zone_path(ZONE, "records", record["identifier"]), json=dict(record, rdata="127.0.0.6")))
    before = ok(slow_dns.api("GET", zone_path(ZONE)))
    new_id = www(slow_dns)["identifier"]
    for method, path, body in (
            ("POST", zone_path(ZONE, "records"), {"name": "x", "type": "A", "rdata": "127.0.0.7"}),
            ("PUT", zone_path(ZONE, "records", new_id), dict(record, rdata="127.0.0.8")),
            ("DELETE", zone_path(ZONE, "records", new_id), None),
            ("POST", zone_path(ZONE, "changeset"), {"create": [{"name": "y", "type": "A", "rdata": "127.0.0.9"}]}),
            ("DELETE", zone_path(ZONE), None)):
        err = error_of(slow_dns.api(method, path, json=body), 400)
        assert "not editable" in err["message"] and "is_editable" in err["message"] and "zone" in err["validation"]
    after = ok(slow_dns.api("GET", zone_path(ZONE)))
    assert after["revisions"] == before["revisions"]   # nothing written
    wait_editable(slow_dns)
    ok(slow_dns.api("POST", zone_path(ZONE, "records"), json={"name": "x", "type": "A", "rdata": "127.0.0.7"}))


def test_a_stuck_deployment_never_becomes_editable_and_dns_keeps_the_last_revision(slow_dns):
    slow_dns.set_faults({"deploy": [{"match": "local.*", "outcome": "stuck", "count": 1}]})
    ok(slow_dns.api("POST", zone_path(ZONE, "records"), json={"name": "new", "type": "A", "rdata": "127.0.0.7"}))
    time.sleep(DNS_DELAY + 0.3)
    assert levels(slow_dns) == (False, 100, 50, "deploying")
    assert resolve(slow_dns, "new.local.test", "A")[0] == "NXDOMAIN"
    assert slow_dns.admin("GET", "faults")["deploy"][0]["count"] == 0


def test_a_failed_deployment_makes_the_zone_editable_again_without_going_live(slow_dns):
    slow_dns.set_faults({"deploy": [{"match": ZONE, "outcome": "error", "count": 1}]})
    ok(slow_dns.api("POST", zone_path(ZONE, "records"), json={"name": "new", "type": "A", "rdata": "127.0.0.7"}))
    time.sleep(DNS_DELAY / 2 + 0.2)
    assert levels(slow_dns) == (True, 100, 0, "failed")
    assert resolve(slow_dns, "new.local.test", "A")[0] == "NXDOMAIN"
    # the next write deploys (the rule's count is used up) and carries the failed revision's records along
    ok(slow_dns.api("POST", zone_path(ZONE, "records"), json={"name": "next", "type": "A", "rdata": "127.0.0.8"}))
    wait_editable(slow_dns)
    assert resolve(slow_dns, "new.local.test", "A")[1] == ["127.0.0.7"]


def test_scripted_faults_hit_clouddns_paths_and_change_nothing(dns_engine):
    dns_engine.set_faults({"script": [{"method": "POST", "path": "/api/clouddns/v1/zone.json/*/changeset",
                                       "status": 503}]})
    before = ok(dns_engine.api("GET", zone_path(ZONE)))
    body = {"create": [{"name": "x", "type": "A", "rdata": "127.0.0.7", "ttl": 0}]}
    assert "Injected fault" in error_of(dns_engine.api("POST", zone_path(ZONE, "changeset"), json=body),
                                        503)["message"]
    assert ok(dns_engine.api("GET", zone_path(ZONE))) == before
    ok(dns_engine.api("POST", zone_path(ZONE, "changeset"), json=body))   # the count is used up


def test_a_changeset_committed_then_answered_504_or_dropped_is_live(dns_engine):
    """The case where a client that retries a write makes a duplicate (issue 29, point 5)."""
    dns_engine.set_faults({"script": [{"method": "POST", "path": "/changeset", "commit_then": 504},
                                      {"method": "POST", "path": "/records", "commit_then": "drop"}]})
    error_of(dns_engine.api("POST", zone_path(ZONE, "changeset"),
                            json={"create": [{"name": "x", "type": "A", "rdata": "127.0.0.7"}]}), 504)
    wait_editable(dns_engine)
    with pytest.raises(requests.exceptions.ConnectionError):
        dns_engine.api("POST", zone_path(ZONE, "records"), json={"name": "y", "type": "A", "rdata": "127.0.0.8"})
    wait_editable(dns_engine)
    assert resolve(dns_engine, "x.local.test", "A")[1] == ["127.0.0.7"]
    assert resolve(dns_engine, "y.local.test", "A")[1] == ["127.0.0.8"]
    assert [e["status"] for e in dns_engine.requests()["log"] if e["method"] == "POST"] == [504, 0]
