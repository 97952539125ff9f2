"""allow_sources through the service_loadbalancer role and the service module, behind HAProxy: a client
bound to an allowed loopback source (127.0.0.5) is answered, one bound to another (127.0.0.6) refused;
check mode writes nothing and changes no answer; a rerun is a no-op; removing allow_sources opens it again.
Loopback only, bounded waits."""
from .backends import Node, free_port
from .test_haproxy_acl import ALLOWED, REFUSED, VIP, answers, becomes
from .test_traffic import playbook


def service(port, target, sources=None):
    declared = {"name": "e2e-allow", "load_balancers": ["lb1"], "addresses": [VIP],
                "ports": [{"name": "http", "port": port, "target_port": target}],
                "servers": [{"name": "node1", "address": "127.0.0.1"}]}
    if sources is not None:
        declared["allow_sources"] = sources
    return declared


def test_allow_sources_admit_one_source_refuse_another_and_removing_them_opens_it(hengine, tmp_path):
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        assert playbook(hengine, tmp_path, service(port, target)) > 0
        assert becomes(port, ("node1", "node1")) == ("node1", "node1")

        allowed = service(port, target, [ALLOWED, "2001:db8::/32"])
        assert playbook(hengine, tmp_path, allowed, "--check", "--diff") == 0
        assert answers(port) == ("node1", "node1")   # the preview changed nothing

        assert playbook(hengine, tmp_path, allowed) > 0
        got = becomes(port, ("node1", "refused"))
        assert got[0] == "node1" and got[1] in REFUSED, got
        assert playbook(hengine, tmp_path, allowed) == 0   # a rerun writes nothing

        opened = service(port, target)
        assert playbook(hengine, tmp_path, opened, "--check") == 0
        got = answers(port)
        assert got[0] == "node1" and got[1] in REFUSED, got
        assert playbook(hengine, tmp_path, opened) > 0
        assert becomes(port, ("node1", "node1")) == ("node1", "node1")
        assert playbook(hengine, tmp_path, opened) == 0
        assert "tcp-request" not in "".join(hengine.haproxy()["config"].values())
        assert hengine.haproxy()["errors"] == []
    finally:
        node.stop()
