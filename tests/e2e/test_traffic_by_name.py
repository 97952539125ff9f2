"""Traffic by name (issue 29, point 4): the service playbook with ``dns:`` against the local Engine in HAProxy
and DNS mode. The name is asked of the local knot with dnspython right after the run, and the backends are
reached through HAProxy at the address it answers; a new address is what knot answers after the next run.
The first address comes from the pool (the role passes it to the service as its address).

The preview is an ansible-playbook run with --check --diff of its own; the three runs that write (apply, rerun, the
new address) are the plays of one ansible-playbook run, each played when the test gets there (playbooks.py)."""
import os

import dns.message
import dns.query
import dns.rdatatype
import pytest
from localengine.testing import LocalEngine

from ..contract.conftest import knotd
from .backends import Node, free_port, sample
from .conftest import haproxy_binary
from .playbooks import SERVICES, Playbooks

SEED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine", "seeds", "dns_service.yml")
FQDN = "shop.local.test."
NODES = [("node1", "127.0.0.1"), ("node2", "127.0.0.2")]


@pytest.fixture(scope="module")
def named_engine():
    with LocalEngine(seed=SEED, dns=True, deploy_delay=0.2, update_delay=0.2,
                     extra_args=["--haproxy", "--haproxy-bin", haproxy_binary(), "--knot-bin", knotd()]) as engine:
        yield engine


@pytest.fixture
def playbooks(named_engine, tmp_path):
    """The collection's playbooks run against ``named_engine`` (the HAProxy-mode one of conftest is not asked)."""
    harness = Playbooks(named_engine, tmp_path)
    yield harness
    harness.close()


def resolve_a(engine):
    """The A values knot answers for the service's name (over UDP, as a stub resolver asks)."""
    answer = dns.query.udp(dns.message.make_query(FQDN, "A"), "127.0.0.1", port=engine.dns_port, timeout=3)
    return sorted(r.to_text() for rrset in answer.answer if rrset.rdtype == dns.rdatatype.A for r in rrset)


def shop(port, target, **where):
    return dict(dict(name="shop", load_balancers=["lb1"], ports=[dict(name="http", port=port, target_port=target)],
                     servers=[dict(name=n, address=h) for n, h in NODES], dns=dict(zone="local.test", name="shop", ttl=60)),
                **where)


def test_a_service_is_reached_by_its_name(named_engine, playbooks):
    engine = named_engine
    port, target = free_port(), free_port()
    pooled, moved = shop(port, target, address_pool=["anxlb-pool=demo"]), shop(port, target, addresses=["127.0.10.77"])
    nodes = [Node(name, host, (target,)).start() for name, host in NODES]
    try:
        # check mode writes nothing, and knot has no such name yet
        assert playbooks.run(pooled, "--check", "--diff") == 0
        assert resolve_a(engine) == []

        runs = playbooks.session((pooled, SERVICES, {}), (pooled, SERVICES, {}), (moved, SERVICES, {}))
        assert runs.play() > 0
        (address,) = resolve_a(engine)   # right after the run: the role waits until the revision is live
        assert address.startswith("127.0.10.")
        assert sample(address, port, 4) == {"node1": 2, "node2": 2}
        assert runs.play() == 0   # a no-op

        # a new address: the name follows it after the run, and traffic by the name reaches the backends there
        assert runs.play() > 0
        assert resolve_a(engine) == ["127.0.10.77"]
        assert sample(resolve_a(engine)[0], port, 4) == {"node1": 2, "node2": 2}
    finally:
        for node in nodes:
            node.stop()
