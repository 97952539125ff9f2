"""ACL and rule as kinds (_model/_kinds.py): one kind per parent type, values normalised by criterion,
bodies as go-anxcloud's e2e test sends them (pkg/apis/lbaas/v1/e2e_test.go)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kind import create_order, delete_order
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import (
    ACL, KINDS, RULE, normalize_acl_value, normalize_cidr)

FE = "f" * 32
BE = "b" * 32
ACL_ID = "a" * 32


def engine_acl(**over):
    obj = {"identifier": ACL_ID, "name": "allow", "parent_type": "frontend",
           "frontend": {"identifier": FE, "name": "443.shop"}, "backend": None, "criterion": "src",
           "value": "10.0.0.0/8", "index": 0, "customer_identifier": "c", "reseller_identifier": "r",
           "automation_rules": [], "state": {"id": "3", "text": "Deployed", "type": 1}}
    obj.update(over)
    return obj


def test_one_kind_per_parent_type():
    assert KINDS["acl"] is ACL and KINDS["rule"] is RULE
    for generic in (ACL, RULE):
        fe, be = generic.under("frontend"), generic.under("backend")
        assert (fe.parent, fe.parent_kind, fe.links) == ("frontend", "frontend", {"backend": "backend"})
        assert (be.parent, be.parent_kind, be.links) == ("backend", "backend", {"frontend": "frontend"})
        assert fe.name == be.name == generic.name
        assert fe.defaults["parent_type"] == "frontend" and be.defaults["parent_type"] == "backend"
        assert generic.under("loadbalancer") is generic   # a lookup scope is no parent type
    assert KINDS["bind"].under("frontend") is KINDS["bind"]


def test_rules_come_after_acls_and_go_before_them():
    creates, deletes = create_order(KINDS.values()), delete_order(KINDS.values())
    assert creates.index("acl") < creates.index("rule")
    assert deletes.index("rule") < deletes.index("acl") < deletes.index("frontend")


@pytest.mark.parametrize("given, canonical", [
    ("10.0.0.0/8", "10.0.0.0/8"),
    (" 10.0.0.0/8 ", "10.0.0.0/8"),
    ("127.0.0.5", "127.0.0.5/32"),
    ("2001:DB8:0::/32", "2001:db8::/32"),
    ("fd00::1", "fd00::1/128"),
])
def test_src_values_are_networks_in_netaddr_form(given, canonical):
    assert normalize_cidr(given) == canonical
    assert normalize_acl_value("src", given) == canonical


@pytest.mark.parametrize("given, says", [
    ("10.0.0.1/8", "host bits set; write the network 10.0.0.0/8"),
    ("10/8", "not an IPv4 or IPv6 network"),
    ("nonsense", "not an IPv4 or IPv6 network"),
    ("1.2.3.4/33", "not an IPv4 or IPv6 network"),
])
def test_bad_src_values_are_refused_naming_the_option(given, says):
    with pytest.raises(Failure) as err:
        normalize_acl_value("src", given, "value")
    assert err.value.msg.startswith("value: ") and says in err.value.msg


def test_dst_port_values():
    assert normalize_acl_value("dst_port", "08080") == "8080"
    assert normalize_acl_value("dst_port", 443) == "443"
    for bad in ("0", "65536", "http", "80-90"):
        with pytest.raises(Failure, match="not a port from 1 to 65535"):
            normalize_acl_value("dst_port", bad)


def test_other_criteria_pass_through():
    assert normalize_acl_value("hdr(host)", "Shop.Example") == "Shop.Example"
    assert normalize_acl_value("src", None) is None


def test_from_engine_flattens_both_links_and_normalises_the_value():
    flat = ACL.from_engine(engine_acl(value="127.0.0.5"))
    assert {k: flat[k] for k in ("kind", "id", "name", "parent_type", "frontend", "backend", "criterion", "value",
                                 "index")} == {
        "kind": "acl", "id": ACL_ID, "name": "allow", "parent_type": "frontend", "frontend": FE, "backend": None,
        "criterion": "src", "value": "127.0.0.5/32", "index": 0}
    # the same object read through the backend variant compares the same
    assert ACL.under("backend").from_engine(engine_acl()) == ACL.from_engine(engine_acl())
    # a value that is not its criterion's stays as stored, so a comparison shows the change
    assert ACL.from_engine(engine_acl(value="10.0.0.1/8"))["value"] == "10.0.0.1/8"


def test_create_bodies_as_go_anxcloud_sends_them():
    acl = dict(ACL.defaults, name="allow", frontend=FE, backend=None, criterion="dst_port", value="8080")
    assert ACL.to_engine(acl) == {"name": "allow", "parent_type": "frontend", "criterion": "dst_port",
                                  "value": "8080", "index": 0, "frontend": FE}
    be = ACL.under("backend")
    body = be.to_engine(dict(be.defaults, name="allow", backend=BE, criterion="src", value="10.0.0.0/8"))
    assert body == {"name": "allow", "parent_type": "backend", "criterion": "src", "value": "10.0.0.0/8",
                    "index": 0, "backend": BE}
    rule = dict(RULE.defaults, name="deny", frontend=FE, condition_test="allow", action="reject")
    assert RULE.to_engine(rule) == {"name": "deny", "parent_type": "frontend", "index": 0, "frontend": FE,
                                    "condition": "if", "condition_test": "allow", "type": "connection",
                                    "action": "reject"}
    assert RULE.required == ("condition_test", "action") and ACL.required == ("criterion", "value")


def test_update_body_is_the_whole_object_with_links_as_identifiers():
    flat = ACL.from_engine(engine_acl())
    body = ACL.update_body(flat, {"index": 3})
    assert body["identifier"] == ACL_ID and body["frontend"] == FE and body["backend"] is None
    assert body["index"] == 3 and body["criterion"] == "src" and body["parent_type"] == "frontend"
    assert not set(body) & {"state", "customer_identifier", "reseller_identifier", "automation_rules"}
    rule = RULE.from_engine({"identifier": "r" * 32, "name": "deny", "parent_type": "frontend",
                             "frontend": {"identifier": FE, "name": "x"}, "backend": None, "index": 1,
                             "condition": "if", "condition_test": "allow", "type": "connection",
                             "action": "reject", "redirection_type": "", "redirection_code": None})
    assert rule["redirection_type"] is None and rule["redirection_code"] is None   # "" and absent: unset
    assert RULE.update_body(rule, {"condition_test": "allow2"})["condition_test"] == "allow2"


def test_check_mode_keeps_same_named_acls_of_two_backends_apart():
    """Two tasks predicting an ACL 'allow' each, in two backends: two predicted objects, one per backend."""
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import CREATE, Action, Plan, placeholder
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._predictions import Predictions
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._predicted import LbaasOverlay

    kind = ACL.under("backend")
    predictions = Predictions([], "http://engine.example", [LbaasOverlay])
    for backend in ("1" * 32, "2" * 32):
        obj = dict(kind.defaults, kind="acl", id=placeholder("acl", "allow"), name="allow", backend=backend,
                   frontend=None, criterion="src", value="10.0.0.0/8")
        plan = Plan([Action(CREATE, kind, obj)])
        predictions.record(plan, plan.predict({}))
    assert sorted(o["backend"] for o in predictions.overlay("objects").objects.values()) == ["1" * 32, "2" * 32]
