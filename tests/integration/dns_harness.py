"""A local Engine with CloudDNS served by knot (tests/engine/README.md, "DNS mode") for the DNS modules' tests,
and the reads the tests check the Engine with: its stored records, and knot's answers through dnspython.

The Engine fixtures are the contract tests' (``dns_engine``, one Engine per ``dns_seed`` from the session's
``dns_local_engines`` of tests/conftest.py): a test module imports ``dns_engine`` (and ``dns_seed``, or its own
override) from here."""
# SEED: test_dns_record's slow Engine starts from it
from ..contract.conftest import DNS_SEED as SEED  # noqa: F401  pylint: disable=unused-import
from ..contract.conftest import ZONE
from ..contract.conftest import dns_engine, dns_seed, knotd, wait_editable  # noqa: F401  pylint: disable=unused-import
from ..contract.conftest import resolve as contract_resolve

# ZONE: seeds/dns.yml's, local.test: www A 127.0.0.5 (comment "seeded"), pinned TXT (immutable)
RECORDS = "/api/clouddns/v1/zone.json/%s/records" % ZONE


def zone_live(engine, timeout=15.0):
    """The seeded zone once editable and deployed."""
    return wait_editable(engine, ZONE, timeout)


def stored(engine, name=None, rtype=None):
    """(name, type, rdata, ttl, comment) of the zone's records as the Engine holds them (SOA and NS left out)."""
    resp = engine.api("GET", RECORDS)
    resp.raise_for_status()
    return sorted((r["name"], r["type"], r["rdata"], r["ttl"], r["comment"]) for r in resp.json()
                  if r["type"] not in ("SOA", "NS") and (name is None or r["name"] == name)
                  and (rtype is None or r["type"] == rtype))


def resolve(engine, name, rdtype):
    """(rcode, sorted rdata texts, ttl) of knot's answer over TCP."""
    return contract_resolve(engine, name, rdtype, tcp=True)
