"""Contract-test fixtures. ``engine`` (the session's local Engine, reset for each test, no delays) and
``slow_engine`` come from tests/conftest.py; here the slow Engine's deploys, updates and deletes take DELAY
seconds, the delay the helpers wait out."""
import os
import shutil
import time

import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import pytest

from localengine.testing import LocalEngine

from .helpers import DELAY, SEEDS


@pytest.fixture
def engine_delays():
    return {"deploy_delay": DELAY, "update_delay": DELAY, "delete_delay": DELAY}


# ---- CloudDNS (test_clouddns_*.py, and tests/integration/dns_harness.py) ---------------------------
# An Engine with knot (--dns) for the whole session, one per seed (``dns_seed``, seeds/dns.yml unless a test
# module overrides it), reset for each test that asks for ``dns_engine``; tests of the API alone use the
# shared ``engine`` and make their zones themselves.
DNS_SEED = os.path.join(SEEDS, "dns.yml")
ZONES = "/api/clouddns/v1/zone.json"
ZONE = "local.test"   # seeds/dns.yml


def knotd():
    found = shutil.which("knotd") or ("/usr/sbin/knotd" if os.access("/usr/sbin/knotd", os.X_OK) else None)
    if not found:
        pytest.fail("knot is not installed; `make test` installs it (scripts/apt-deps.sh knot)")
    return found


@pytest.fixture
def dns_seed():
    """The seed ``dns_engine`` starts from: seeds/dns.yml; a test module that needs another overrides this fixture."""
    return DNS_SEED


@pytest.fixture
def dns_engine(dns_local_engines, dns_seed):
    """The session's Engine with knot for ``dns_seed`` (``dns_local_engines``, tests/conftest.py), wiped and reseeded,
    its seeded zone served again."""
    if dns_seed not in dns_local_engines:
        dns_local_engines[dns_seed] = LocalEngine(seed=dns_seed, dns=True, extra_args=["--knot-bin", knotd()]).start()
    engine = dns_local_engines[dns_seed]
    engine.reset()
    wait_editable(engine, ZONE)
    yield engine


def zone_path(zone=None, *rest):
    return "/".join([ZONES] + ([zone] if zone else []) + list(rest))


def definition(name, **changes):
    """A zone as go-anxcloud's legacy client sends it (pkg/clouddns/zone/zone.go Definition): zone_name,
    master, dnssec_mode, admin_email and the SOA values; ``name`` left out (omitempty)."""
    body = {"zone_name": name, "master": True, "dnssec_mode": "unvalidated", "admin_email": "admin@" + name,
            "refresh": 3600, "retry": 600, "expire": 604800, "ttl": 300}
    body.update(changes)
    return body


def wait_editable(engine, zone=ZONE, timeout=15.0):
    """The zone once is_editable (and deployment_level 100), as Terraform waits before each changeset."""
    deadline = time.monotonic() + timeout
    while True:
        resp = engine.api("GET", zone_path(zone))
        assert resp.status_code == 200, resp.text
        body = resp.json()
        if body["is_editable"] and body["deployment_level"] == 100:
            return body
        assert time.monotonic() < deadline, "zone %s not editable after %gs: %s" % (zone, timeout, body)
        time.sleep(0.05)


def resolve(engine, name, rdtype, tcp=False):
    """(rcode text, sorted rdata texts, ttl) of knot's answer to one query over UDP or TCP on loopback."""
    query = dns.message.make_query(name, rdtype)
    ask = dns.query.tcp if tcp else dns.query.udp
    answer = ask(query, "127.0.0.1", port=engine.dns_port, timeout=3)
    rrsets = [r for r in answer.answer if r.rdtype == dns.rdatatype.from_text(rdtype)]
    texts = sorted(r.to_text() for rrset in rrsets for r in rrset)
    return dns.rcode.to_text(answer.rcode()), texts, (rrsets[0].ttl if rrsets else None)
