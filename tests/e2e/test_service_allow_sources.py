"""allow_sources through the service_loadbalancer role and the service module, behind HAProxy: a client
bound to an allowed loopback source (127.0.0.5) is answered, one bound to another (127.0.0.6) refused;
check mode writes nothing and changes no answer; a rerun is a no-op; removing allow_sources opens it again.
Another owner's accept rule that lets a refused source in is reported. Loopback only, bounded waits."""
from .backends import Node, free_port
from .test_haproxy_acl import ALLOWED, REFUSED, VIP, acl, answers, becomes, rule
from .test_haproxy_mode import LBAAS, settled
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


def test_another_owners_accept_rule_lets_a_refused_source_in_and_the_run_says_so(hengine, tmp_path):
    """The allow-list holds (127.0.0.6 refused) until another owner's accept rule for 0.0.0.0/0 at index 0 lets
    127.0.0.6 in; the role's run then writes nothing and warns naming the rule (at the default verbosity), and once
    the rule is gone the list holds again."""
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        allowed = service(port, target, [ALLOWED])
        assert playbook(hengine, tmp_path, allowed) > 0
        got = becomes(port, ("node1", "refused"))
        assert got[0] == "node1" and got[1] in REFUSED, got

        (frontend,) = [o["identifier"] for o in hengine.dump()["objects"]
                       if o["_kind"] == "frontend" and o["name"] == "http.e2e-allow"]
        made = [("ACL", acl(hengine, frontend, "open-all", "0.0.0.0/0", 0)),
                ("rule", rule(hengine, frontend, "open-all", "accept", "open-all", 0))]
        for kind, ident in made:
            assert hengine.api("POST", "/api/core/v1/resource.json/%s/tags/anxlb-svc=other" % ident, json="").ok
            assert settled(hengine, kind, ident) == "Deployed", hengine.haproxy()
        assert becomes(port, ("node1", "node1")) == ("node1", "node1")   # the list no longer holds

        out, writes = playbook(hengine, tmp_path, allowed, output=True)
        text = " ".join(out.split())   # the controller wraps warnings
        assert writes == 0 and "allow_sources do not hold: rule 'open-all' (%s, index 0, owner tag anxlb-svc=other) " \
            "in frontend 'http.e2e-allow' on load balancer lb1" % made[1][1] in text, out[-4000:]
        assert answers(port) == ("node1", "node1")   # another owner's rule is never written

        for kind, ident in reversed(made):
            assert hengine.api("DELETE", LBAAS % kind + "/" + ident).status_code == 200
        got = becomes(port, ("node1", "refused"))
        assert got[0] == "node1" and got[1] in REFUSED, got
    finally:
        node.stop()
