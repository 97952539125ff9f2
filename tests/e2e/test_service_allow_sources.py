"""allow_sources behind HAProxy: a client bound to an allowed loopback source (127.0.0.5) is answered, one bound to
another (127.0.0.6) refused; check mode writes nothing and changes no answer; a rerun is a no-op; removing
allow_sources opens it again. Another owner's accept rule that lets a refused source in is reported.

The steps whose subject is the service module's own behaviour run it as its own process (the integration harness's
``module``: the real module code, as the controller starts it, without the controller). The role's path is one
run: the service_loadbalancer role reconciling the service with its allow_sources while another owner's rule lets a
refused source in writes nothing (it hands allow_sources on as declared: without them the service would delete its
ACLs and rules) and the module's warning reaches the output at the default verbosity, although the role quiets the
service task's result. The role's apply, check mode, rerun and removal with real traffic are test_traffic.py's.
Loopback only, bounded waits."""
from ..integration.conftest import warning_texts
from .backends import Node, free_port, wait_for
from .test_haproxy_acl import ALLOWED, REFUSED, VIP, acl, answers, becomes, rule
from .test_haproxy_mode import LBAAS, settled


def service(port, target, sources=None):
    """The service as the role's entry declares it, and as the role hands it to the service module."""
    declared = {"name": "e2e-allow", "load_balancers": ["lb1"], "addresses": [VIP],
                "ports": [{"name": "http", "port": port, "target_port": target}],
                "servers": [{"name": "node1", "address": "127.0.0.1"}]}
    if sources is not None:
        declared["allow_sources"] = sources
    return declared


def reconcile(module, engine, declared, check=False, diff=False):
    """The service module run as its own process for ``declared``; the result, and the Engine's writes during it."""
    done = module("service", declared, check=check, diff=diff)
    assert not done.failed and done.rc == 0, done
    return done.result, done.writes(engine)


def test_allow_sources_admit_one_source_refuse_another_and_removing_them_opens_it(hengine, module):
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        assert reconcile(module, hengine, service(port, target))[1] > 0
        assert becomes(port, ("node1", "node1")) == ("node1", "node1")

        allowed = service(port, target, [ALLOWED, "2001:db8::/32"])
        result, writes = reconcile(module, hengine, allowed, check=True, diff=True)
        assert writes == 0 and result["changed"], result
        assert answers(port) == ("node1", "node1")   # the preview changed nothing

        assert reconcile(module, hengine, allowed)[1] > 0
        got = becomes(port, ("node1", "refused"))
        assert got[0] == "node1" and got[1] in REFUSED, got
        assert reconcile(module, hengine, allowed)[1] == 0   # a rerun writes nothing

        opened = service(port, target)
        result, writes = reconcile(module, hengine, opened, check=True)
        assert writes == 0 and result["changed"], result
        got = answers(port)
        assert got[0] == "node1" and got[1] in REFUSED, got
        assert reconcile(module, hengine, opened)[1] > 0
        assert becomes(port, ("node1", "node1")) == ("node1", "node1")
        assert reconcile(module, hengine, opened)[1] == 0
        # The Engine renders deletions into HAProxy on its next round (nothing is deployed, so nothing to wait for in
        # the run): the allow-list's ACLs and rules leave the running configuration within a few rounds.
        assert wait_for(lambda: "tcp-request" not in "".join(hengine.haproxy()["config"].values()), timeout=10), \
            hengine.haproxy()["config"]
        assert hengine.haproxy()["errors"] == []
    finally:
        node.stop()


def test_another_owners_accept_rule_lets_a_refused_source_in_and_the_run_says_so(hengine, module, playbooks):
    """The allow-list holds (127.0.0.6 refused) until another owner's accept rule for 0.0.0.0/0 at index 0 lets
    127.0.0.6 in; the role's run then writes nothing and warns naming the rule (at the default verbosity), and once
    the rule is gone the list holds again."""
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        allowed = service(port, target, [ALLOWED])
        assert reconcile(module, hengine, allowed)[1] > 0
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

        played, writes = playbooks.run(allowed, output=True)
        warning = "allow_sources do not hold: rule 'open-all' (%s, index 0, owner tag anxlb-svc=other) " \
            "in frontend 'http.e2e-allow' on load balancer lb1" % made[1][1]
        out = played.proc.stdout + played.proc.stderr
        assert writes == 0 and warning in " ".join(out.split()), out[-4000:]   # the controller wraps warnings
        # it is the service module's warning, which the role's task hands on (its record: as the module wrote it)
        texts = warning_texts(played.task("Reconcile e2e-allow")["result"])
        assert any(warning in text for text in texts), texts
        assert answers(port) == ("node1", "node1")   # another owner's rule is never written

        for kind, ident in reversed(made):
            assert hengine.api("DELETE", LBAAS % kind + "/" + ident).status_code == 200
        got = becomes(port, ("node1", "refused"))
        assert got[0] == "node1" and got[1] in REFUSED, got
    finally:
        node.stop()
