"""wait: served (issue 41) against the local Engine, whose knot is the zone's authoritative server: with the Engine's
deploy delay on, the task returns only once knot answers the new data (and no data for what it deleted), asked at
host@port or host:port; a server that cannot be reached fails the task naming it and the option that skips the check;
without nameservers the zone's NS records are asked, and a name this host cannot resolve fails naming it."""
import socket
import time

import pytest

from localengine.testing import LocalEngine

from .conftest import ForkedModule
from .dns_harness import SEED, ZONE, knotd, resolve, zone_live

DELAY = 1.5


@pytest.fixture(scope="module")
def slow_dns_engine():
    """Revisions take DELAY seconds to validate and deploy, and are live once knot serves them."""
    with LocalEngine(seed=SEED, dns=True, dns_deploy_delay=DELAY, extra_args=["--knot-bin", knotd()]) as engine:
        zone_live(engine)
        yield engine


@pytest.fixture
def dns_module(slow_dns_engine, module_fork_server):
    zone_live(slow_dns_engine)
    return ForkedModule(slow_dns_engine, module_fork_server)


def closed_port():
    """A loopback port nothing listens on (UDP nor TCP)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_task_returns_once_knot_answers_the_new_data(slow_dns_engine, dns_module):
    at = ["127.0.0.1@%d" % slow_dns_engine.dns_port]
    started = time.monotonic()
    done = dns_module("dns_record", dict(zone=ZONE, name="acme", type="TXT", values=["token-1"], ttl=120,
                                         wait="served", nameservers=at))
    assert time.monotonic() - started >= DELAY and done["changed"], done
    assert resolve(slow_dns_engine, "acme.local.test", "TXT") == ("NOERROR", ['"token-1"'], 120)
    (server,) = done["served"]
    assert server["server"] == at[0] and server["source"] == "nameservers[0]" and server["waiting"] is None
    # the zone task: a change and a prune, asked at host:port; what prune deleted answers no data
    sets = dict(zone=ZONE, owner="acme", wait="served", nameservers=["127.0.0.1:%d" % slow_dns_engine.dns_port])
    dns_module("dns_record_sets", dict(sets, record_sets=[dict(name="a", type="A", values=["127.0.0.51"]),
                                                          dict(name="b", type="A", values=["127.0.0.52"])]))
    pruned = dns_module("dns_record_sets", dict(sets, prune=True, record_sets=[
        dict(name="a", type="A", values=["127.0.0.61"])]))
    assert pruned["changed"] and pruned["served"][0]["queries"] >= 2, pruned
    assert resolve(slow_dns_engine, "a.local.test", "A")[1] == ["127.0.0.61"]
    assert resolve(slow_dns_engine, "b.local.test", "A")[0] == "NXDOMAIN"
    # a run that changes nothing checks too, and sends the Engine one read
    again = dns_module("dns_record_sets", dict(sets, prune=True, record_sets=[dict(name="a", type="A", values=["127.0.0.61"])]))
    assert again["changed"] is False and again["served"][0]["queries"] == 1 and len(again.requests(slow_dns_engine)) == 1


def test_an_unreachable_server_fails_naming_it_and_wait_true(slow_dns_engine, dns_module):
    port = closed_port()
    failed = dns_module("dns_record", dict(zone=ZONE, name="x", type="A", values=["127.0.0.70"], wait="served",
                                           nameservers=["127.0.0.1@%d" % port]))
    message = failed.message()
    assert "the name server 127.0.0.1@%d (nameservers[0]) does not answer over UDP or TCP" % port in message
    assert "set wait: true" in message and failed["changed"] is True   # the change was written; only the check failed


def test_without_nameservers_the_zones_ns_are_asked_and_an_unresolvable_one_is_named(slow_dns_engine, dns_module):
    failed = dns_module("dns_record", dict(zone=ZONE, name="y", type="A", values=["127.0.0.71"], wait="served"))
    assert "the name server ns1.local.test (NS ns1.local.test.) does not resolve on this host" in failed.message()
    assert "nameservers" in failed.message()
    reads = [e["path"] for e in failed.requests(slow_dns_engine) if e["method"] == "GET"]
    assert any("name=%40" in p and "type=NS" in p for p in reads), reads
