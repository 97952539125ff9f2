"""A local Engine with CloudDNS served by knot (tests/engine/README.md, "DNS mode") for the DNS modules' tests,
and the reads the tests check the Engine with: its stored records, and knot's answers through dnspython."""
import os
import time

import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import pytest
from localengine.testing import LocalEngine

from ..contract.conftest import knotd

SEED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine", "seeds", "dns.yml")
ZONE = "local.test"   # seeds/dns.yml: www A 127.0.0.5 (comment "seeded"), pinned TXT (immutable)
RECORDS = "/api/clouddns/v1/zone.json/%s/records" % ZONE


@pytest.fixture(scope="session")
def dns_local_engines():
    """Local Engines with knot, one per seed, each started when a test first asks for it (``dns_engine``)."""
    started = {}
    yield started
    for engine in started.values():
        engine.stop()


@pytest.fixture
def dns_seed():
    """The seed ``dns_engine`` starts from: seeds/dns.yml; a test module that needs another overrides this fixture."""
    return SEED


@pytest.fixture
def dns_engine(dns_local_engines, dns_seed):
    """The session's Engine with knot for ``dns_seed``, wiped and reseeded, its zone served again."""
    if dns_seed not in dns_local_engines:
        dns_local_engines[dns_seed] = LocalEngine(seed=dns_seed, dns=True, extra_args=["--knot-bin", knotd()]).start()
    engine = dns_local_engines[dns_seed]
    engine.reset()
    zone_live(engine)
    yield engine


def zone_live(engine, timeout=15.0):
    deadline = time.monotonic() + timeout
    while True:
        body = engine.api("GET", "/api/clouddns/v1/zone.json/" + ZONE).json()
        if body["is_editable"] and body["deployment_level"] == 100:
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


def stored(engine, name=None, rtype=None):
    """(name, type, rdata, ttl, comment) of the zone's records as the Engine holds them (SOA and NS left out)."""
    resp = engine.api("GET", RECORDS)
    resp.raise_for_status()
    return sorted((r["name"], r["type"], r["rdata"], r["ttl"], r["comment"]) for r in resp.json()
                  if r["type"] not in ("SOA", "NS") and (name is None or r["name"] == name)
                  and (rtype is None or r["type"] == rtype))


def resolve(engine, name, rdtype):
    """(rcode, sorted rdata texts, ttl) of knot's answer over TCP."""
    query = dns.message.make_query(name, rdtype)
    answer = dns.query.tcp(query, "127.0.0.1", port=engine.dns_port, timeout=3)
    rrsets = [r for r in answer.answer if r.rdtype == dns.rdatatype.from_text(rdtype)]
    return (dns.rcode.to_text(answer.rcode()), sorted(r.to_text() for rrset in rrsets for r in rrset),
            rrsets[0].ttl if rrsets else None)
