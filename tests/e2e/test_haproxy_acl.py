"""Who may connect, at the Engine level: ACL and connection rule objects created through the local
Engine's API only (the go-anxcloud bodies, gac:pkg/apis/lbaas/v1/e2e_test.go), rendered into HAProxy,
decide with real traffic which loopback source addresses are answered. Loopback only, bounded waits."""
import time

from .backends import Node, ask, free_port, wait_for
from .test_haproxy_mode import LBAAS, config, create, settled, state, update, web_service

VIP = "127.0.10.50"
ALLOWED, OTHER = "127.0.0.5", "127.0.0.6"
REFUSED = ("RemoteDisconnected", "ConnectionResetError", "BrokenPipeError")   # accepted, then closed unanswered


def acl(engine, frontend, name, value, index):
    return create(engine, "ACL", name=name, parent_type="frontend", criterion="src", value=value, index=index,
                  frontend=frontend)


def rule(engine, frontend, name, action, acl_name, index):
    return create(engine, "rule", name=name, parent_type="frontend", index=index, frontend=frontend, condition="if",
                  condition_test=acl_name, type="connection", action=action)


def answers(port):
    """(answer to a client from ALLOWED, answer to one from OTHER)."""
    return ask(VIP, port, source=ALLOWED), ask(VIP, port, source=OTHER)


def becomes(port, expected, timeout=10):
    """Polls until both clients get the expected kind of answer ("node1" or "refused"); the last answers."""
    def matches():
        got = answers(port)
        return got if all(g == e or (e == "refused" and g in REFUSED) for g, e in zip(got, expected)) else None
    return wait_for(matches, timeout) or answers(port)


def test_an_src_acl_and_connection_rules_admit_one_source_and_refuse_another(hengine):
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        ids = web_service(hengine, port, target, address=VIP)
        fe = ids["frontend"]
        assert answers(port) == ("node1", "node1")

        # admit ALLOWED (index 0), then refuse everyone else (index 1): `if` only, as the Engine's clients send
        made = {"ACL": [acl(hengine, fe, "allowed", ALLOWED + "/32", 0), acl(hengine, fe, "everyone", "0.0.0.0/0", 1)],
                "rule": [rule(hengine, fe, "admit", "accept", "allowed", 0),
                         rule(hengine, fe, "refuse", "reject", "everyone", 1)]}
        for kind, idents in made.items():
            for ident in idents:
                assert settled(hengine, kind, ident) == "Deployed", (kind, hengine.haproxy())
        got = answers(port)   # Deployed means HAProxy runs it: no waiting
        assert got[0] == "node1" and got[1] in REFUSED, got
        text = config(hengine)
        lines = [line.strip() for line in text.splitlines() if line.strip().startswith(("acl ", "tcp-request "))]
        allowed, everyone = made["ACL"]
        assert lines == ["acl acl_%s src 127.0.0.5/32" % allowed, "acl acl_%s src 0.0.0.0/0" % everyone,
                         "tcp-request connection accept if acl_%s" % allowed,
                         "tcp-request connection reject if acl_%s" % everyone], text

        # the index orders the rules: refusing first refuses ALLOWED too; back again admits it
        admit, refuse = made["rule"]
        update(hengine, "rule", admit, index=2)
        assert settled(hengine, "rule", admit) == "Updated"
        got = answers(port)
        assert got[0] in REFUSED and got[1] in REFUSED, got
        update(hengine, "rule", admit, index=0)
        assert settled(hengine, "rule", admit) == "Updated"
        got = becomes(port, ("node1", "refused"))
        assert got[0] == "node1" and got[1] in REFUSED, got

        # deleting the rules opens it again; then the ACLs (no rule names them any more) can go too
        for ident in made["rule"]:
            assert hengine.api("DELETE", LBAAS % "rule" + "/" + ident).status_code == 200
        assert becomes(port, ("node1", "node1")) == ("node1", "node1")
        assert wait_for(lambda: "tcp-request" not in config(hengine), timeout=5), config(hengine)   # noted after the reload
        for ident in made["ACL"]:
            assert hengine.api("DELETE", LBAAS % "ACL" + "/" + ident).status_code == 200
        assert wait_for(lambda: "acl " not in config(hengine), timeout=10), config(hengine)
        assert answers(port) == ("node1", "node1")
        assert hengine.haproxy()["errors"] == []   # haproxy -c accepted every version rendered on the way
    finally:
        node.stop()


def test_a_rule_waits_for_its_acl_to_be_deployed(hengine):
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        ids = web_service(hengine, port, target, address=VIP)
        fe = ids["frontend"]
        # the ACL's deployment fails (fault injection): the rule naming it is not rendered and stays pending
        hengine.set_faults({"deploy": [{"match": "broken", "outcome": "error"}]})
        broken = acl(hengine, fe, "broken", "0.0.0.0/0", 0)
        waiting = rule(hengine, fe, "refuse", "reject", "broken", 0)
        assert settled(hengine, "ACL", broken) == "DeploymentError"
        time.sleep(1)
        assert state(hengine, "rule", waiting) == "NewlyCreated"   # finished by the clock, not run by HAProxy
        assert "tcp-request" not in config(hengine) and "acl " not in config(hengine)
        assert answers(port) == ("node1", "node1")
        # a redeploy of the ACL lets both run
        hengine.clear_faults()
        update(hengine, "ACL", broken)
        assert settled(hengine, "ACL", broken) == "Updated" and settled(hengine, "rule", waiting) == "Deployed"
        got = answers(port)
        assert got[0] in REFUSED and got[1] in REFUSED, got
        assert hengine.haproxy()["errors"] == []
    finally:
        node.stop()


def test_every_form_the_api_accepts_renders_to_a_configuration_haproxy_accepts(hengine):
    """IPv6 and IPv4 networks, addresses, dst_port, ACLs on a backend, ACLs sharing a
    name (one HAProxy ACL: a rule naming it matches any of them), equal indexes: all Deployed, no errors."""
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        ids = web_service(hengine, port, target, address=VIP)
        fe, be = ids["frontend"], ids["backend"]
        made = {"ACL": [acl(hengine, fe, "nets", "fd00:10::/64", 0), acl(hengine, fe, "nets", "::1", 0),
                        acl(hengine, fe, "nets", ALLOWED, 1),
                        create(hengine, "ACL", name="port", parent_type="frontend", criterion="dst_port", value=str(port),
                               index=2, frontend=fe),
                        create(hengine, "ACL", name="on-backend", parent_type="backend", criterion="src",
                               value="10.0.0.0/8", index=0, backend=be)],
                "rule": [rule(hengine, fe, "admit", "accept", "nets", 0), rule(hengine, fe, "refuse", "reject", "port", 0)]}
        for kind, idents in made.items():
            for ident in idents:
                assert settled(hengine, kind, ident) == "Deployed", (kind, hengine.haproxy())
        text = config(hengine)
        nets = " || ".join("acl_" + i for i in made["ACL"][:3])
        assert "tcp-request connection accept if %s\n" % nets in text, text
        assert "acl acl_%s src 10.0.0.0/8" % made["ACL"][4] in text.split("frontend fe_")[0]   # in the backend
        got = answers(port)
        assert got[0] == "node1" and got[1] in REFUSED, got   # 127.0.0.5 is one of "nets"; the rest hit "port"
        assert hengine.haproxy()["errors"] == []
    finally:
        node.stop()
