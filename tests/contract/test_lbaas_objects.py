"""Contract: LBaaS v1 objects — full objects, links, PUT of a whole object (merge only as an option),
delete, parents with children (docs/engine-api-facts.md, LBaaS objects and Writes)."""
import pytest

from ..engine_states import state
from .helpers import (COMMON_KEYS, IDENTIFIER, LB1, LB2, backend, create, error_of, frontend, get, lbaas, ok,
                      put_full, tree)

FIELDS = {
    "loadbalancer": {"ip_address"},
    "backend": {"load_balancer", "mode", "health_check", "server_timeout", "enable"},
    "frontend": {"load_balancer", "default_backend", "mode", "client_timeout", "enable"},
    "bind": {"frontend", "address", "port", "ssl", "ssl_certificate_path"},
    "server": {"backend", "ip", "port", "check"},
}
STATE_KEYS = {"id", "title", "text", "type"}


@pytest.mark.parametrize("kind", sorted(FIELDS))
def test_get_answers_the_full_object(engine, kind):
    obj = get(engine, kind, tree(engine)[kind])
    assert set(obj) == COMMON_KEYS | FIELDS[kind]
    assert IDENTIFIER.match(obj["identifier"]) and obj["automation_rules"] == []
    assert IDENTIFIER.match(obj["customer_identifier"]) and IDENTIFIER.match(obj["reseller_identifier"])
    assert obj["state"] == state("Deployed", text=True)


def test_create_answers_the_full_object_with_links_as_objects(engine):
    b = backend(engine, health_check='"adv_check": "tcp-check"', server_timeout=30)
    assert IDENTIFIER.match(b["identifier"]) and set(b) == COMMON_KEYS | FIELDS["backend"]
    assert b["load_balancer"] == {"identifier": LB1, "name": "lb1"}
    assert set(b["state"]) == STATE_KEYS
    f = frontend(engine, b["identifier"], client_timeout="30", enable=1)
    assert f["default_backend"] == {"identifier": b["identifier"], "name": "web"}
    assert get(engine, "frontend", f["identifier"]) == f
    assert get(engine, "backend", b["identifier"]) == b


def test_unset_optional_fields_read_back_as_null(engine):
    b = create(engine, "backend", name="bare", load_balancer=LB1)
    assert (b["mode"], b["health_check"], b["server_timeout"]) == (None, None, None)


def test_link_names_follow_the_linked_object(engine):
    ids = tree(engine)
    put_full(engine, "backend", ids["backend"], name="renamed", state="0")
    assert get(engine, "frontend", ids["frontend"])["default_backend"]["name"] == "renamed"
    assert get(engine, "server", ids["server"])["backend"] == {"identifier": ids["backend"], "name": "renamed"}


def test_health_check_and_check_are_echoed_verbatim(engine):
    odd = '"httpchk":  { "method":"GET" ,"uri": "/" }  '
    b = backend(engine, health_check=odd)
    assert get(engine, "backend", b["identifier"])["health_check"] == odd
    s = create(engine, "server", name="s", ip="127.0.0.1", port=1, check="disabled", backend=b["identifier"])
    assert get(engine, "server", s["identifier"])["check"] == "disabled"


def test_ipv6_bind_addresses_are_stored_as_sent(engine):
    ids = tree(engine)
    for address in ("2001:DB8::0:1", "fd00:10:0:0::5", ""):
        bind = create(engine, "bind", name="b", address=address, port=81, frontend=ids["frontend"])
        assert get(engine, "bind", bind["identifier"])["address"] == address


def test_put_merges_with_the_lenient_option_and_answers_the_full_object(engine):
    """--put merge: the Engine as the legacy client's partial updates would need it (gac:CHANGELOG.md
    "loadbalancer: only update fields that are set explicitly"); strict replace is test_put_semantics.py."""
    engine.set_options(put="merge")
    b = backend(engine, health_check="hc", server_timeout=5)
    updated = ok(engine.api("PUT", lbaas("backend", b["identifier"]), json={"mode": "http", "state": "0"}))
    assert set(updated) == COMMON_KEYS | FIELDS["backend"]
    assert (updated["mode"], updated["health_check"], updated["server_timeout"]) == ("http", "hc", 5)
    assert updated["load_balancer"] == {"identifier": LB1, "name": "lb1"}
    assert get(engine, "backend", b["identifier"]) == updated


def test_put_of_a_whole_read_back_object_as_the_generic_client_sends_it(engine):
    ids = tree(engine)
    body = get(engine, "frontend", ids["frontend"])
    body.update(load_balancer=LB1, default_backend=ids["backend"], state="0", mode="http")
    assert ok(engine.api("PUT", lbaas("frontend", ids["frontend"]), json=body))["mode"] == "http"
    body["identifier"] = "f" * 32
    assert "identifier" in error_of(engine.api("PUT", lbaas("frontend", ids["frontend"]), json=body), 422)["validation"]


def test_load_balancers_can_be_created_updated_and_deleted(engine):
    lb = create(engine, "loadbalancer", name="lb3", ip_address="lb3.example.test")   # not an IP: not validated
    assert set(lb) == COMMON_KEYS | {"ip_address"} and lb["ip_address"] == "lb3.example.test"
    assert ok(engine.api("PUT", lbaas("loadbalancer", lb["identifier"]), json={"name": "lb3b"}))["name"] == "lb3b"
    assert ok(engine.api("DELETE", lbaas("loadbalancer", lb["identifier"]))) == {}
    error_of(engine.api("GET", lbaas("loadbalancer", lb["identifier"])), 404)


def test_acl_and_rule(engine):
    ids = tree(engine)
    acl = create(engine, "ACL", name="a", parent_type="frontend", frontend=ids["frontend"], criterion="dst_port",
                 value="8080", index=0)
    assert set(acl) == COMMON_KEYS | {"parent_type", "frontend", "backend", "criterion", "value", "index"}
    assert acl["frontend"] == {"identifier": ids["frontend"], "name": "web"} and acl["backend"] is None
    rule = create(engine, "rule", name="r", parent_type="frontend", frontend=ids["frontend"], index=0, condition="if",
                  condition_test="a", type="connection", action="reject")
    assert rule["redirection_code"] is None and rule["frontend"]["identifier"] == ids["frontend"]
    assert get(engine, "ACL", acl["identifier"]) == acl
    bad = {"name": "x", "parent_type": "backend", "frontend": ids["frontend"], "criterion": "src", "value": "::/0",
           "index": 0}
    err = error_of(engine.api("POST", lbaas("ACL"), json=bad), 422)
    assert set(err["validation"]) == {"backend", "frontend"}


def test_delete_answers_200_and_an_empty_object_then_404(engine):
    b = backend(engine)
    assert ok(engine.api("DELETE", lbaas("backend", b["identifier"]))) == {}
    error_of(engine.api("GET", lbaas("backend", b["identifier"])), 404)
    error_of(engine.api("DELETE", lbaas("backend", b["identifier"])), 404)
    error_of(engine.api("PUT", lbaas("backend", b["identifier"]), json={}), 404)


@pytest.mark.parametrize("parent, children", [
    ("loadbalancer", {"backend", "frontend"}), ("backend", {"server", "frontend"}), ("frontend", {"bind"})])
def test_deleting_a_parent_that_still_has_children_is_a_409(engine, parent, children):
    ids = tree(engine)
    message = error_of(engine.api("DELETE", lbaas(parent, ids[parent])), 409)["message"]
    assert "delete those first" in message
    assert all("%s %s" % (kind, ids[kind]) in message for kind in children)
    for kind in ("bind", "server", "frontend", "backend"):   # the right order works
        ok(engine.api("DELETE", lbaas(kind, ids[kind])))
    ok(engine.api("DELETE", lbaas("loadbalancer", LB1)))


def test_acls_keep_their_frontend(engine):
    ids = tree(engine)
    create(engine, "ACL", name="a", parent_type="frontend", frontend=ids["frontend"], criterion="src", value="::/0",
           index=0)
    ok(engine.api("DELETE", lbaas("bind", ids["bind"])))
    assert "acl " in error_of(engine.api("DELETE", lbaas("frontend", ids["frontend"])), 409)["message"]


def test_names_need_not_be_unique(engine):
    assert backend(engine)["identifier"] != backend(engine)["identifier"]
    assert backend(engine, lb=LB2)["load_balancer"]["name"] == "lb2"
