"""Contract: LBaaS ACL (/api/LBaaS/v1/ACL.json) and Rule (/api/LBaaS/v1/rule.json) as the Engine's own
clients send them (gac:pkg/apis/lbaas/v1/acl_types.go, rule_types.go, e2e_test.go aclChecks/ruleChecks),
validated strictly: only values those clients are known to send (README.md, "ACL and Rule")."""
import pytest

from .helpers import (RESOURCES, after_delay, backend, error_of, frontend, get, items, lbaas, ok,
                      request_body, state_title, tag_path, tree)


def acl_body(parent, **changes):
    """gac e2e_test.go aclChecks: {name, parent_type, index: 0, criterion: dst_port, value: "<port>", frontend}."""
    body = {"name": "go-anxcloud-acl", "parent_type": "frontend", "criterion": "dst_port", "value": "8080", "index": 0,
            "frontend": parent}
    body.update(changes)
    return dict((k, v) for k, v in body.items() if v is not None)


def rule_body(parent, acl_name="go-anxcloud-acl", **changes):
    """gac e2e_test.go ruleChecks: {name, parent_type, index: 0, frontend, condition: if, condition_test: <ACL
    name>, type: connection, action: reject}."""
    body = {"name": "go-anxcloud-rule", "parent_type": "frontend", "index": 0, "frontend": parent, "condition": "if",
            "condition_test": acl_name, "type": "connection", "action": "reject"}
    body.update(changes)
    return dict((k, v) for k, v in body.items() if v is not None)


def post(engine, kind, body):
    return engine.api("POST", lbaas(kind), json=body)


def test_the_go_anxcloud_bodies_are_accepted_and_read_back(engine):
    ids = tree(engine)
    acl = ok(post(engine, "ACL", acl_body(ids["frontend"])))
    assert acl["index"] == 0 and acl["frontend"] == {"identifier": ids["frontend"], "name": "web"}
    assert (acl["parent_type"], acl["criterion"], acl["value"], acl["backend"]) == ("frontend", "dst_port", "8080", None)
    rule = ok(post(engine, "rule", rule_body(ids["frontend"])))
    assert (rule["condition"], rule["condition_test"], rule["type"], rule["action"]) == (
        "if", "go-anxcloud-acl", "connection", "reject")
    assert [rule[f] for f in ("redirection_type", "redirection_value", "redirection_code", "rule_type")] == [None] * 4
    assert get(engine, "ACL", acl["identifier"]) == acl and get(engine, "rule", rule["identifier"]) == rule
    assert state_title(engine, "rule", rule["identifier"]) == "Deployed"


def test_an_update_is_the_whole_object_with_its_identifier_and_state_0(engine):
    """gac e2e_test.go ruleChecks "rule allows port": the rule read back, action accept, PUT by the generic
    client (helper.go requestBody: identifier, links as identifiers, "state": "0")."""
    ids = tree(engine)
    acl = ok(post(engine, "ACL", acl_body(ids["frontend"])))
    rule = ok(post(engine, "rule", rule_body(ids["frontend"])))
    body = request_body(rule, action="accept", state="0")
    assert body["identifier"] == rule["identifier"] and body["frontend"] == ids["frontend"]
    after = ok(engine.api("PUT", lbaas("rule", rule["identifier"]), json=body))
    assert after["action"] == "accept" and after["state"]["title"] == "Updated"
    after = ok(engine.api("PUT", lbaas("ACL", acl["identifier"]), json=request_body(acl, value="8081", state="0")))
    assert (after["value"], after["index"], after["state"]["title"]) == ("8081", 0, "Updated")
    # a PUT replaces: without index (or another required field) it is refused, and changes nothing
    partial = dict((k, v) for k, v in request_body(after, state="0").items() if k not in ("index", "criterion"))
    err = error_of(engine.api("PUT", lbaas("ACL", acl["identifier"]), json=partial), 422)
    assert set(err["validation"]) == {"index", "criterion"}
    assert get(engine, "ACL", acl["identifier"]) == after


def invalid_bodies(ids):
    """(kind, body, the fields the 422 must name); an ACL named go-anxcloud-acl exists on ids' frontend."""
    fe, be = ids["frontend"], ids["backend"]
    return [
        ("ACL", acl_body(fe, index=None), {"index"}),
        ("ACL", acl_body(fe, index=-1), {"index"}),
        ("ACL", acl_body(fe, index="0"), {"index"}),
        ("ACL", acl_body(fe, index=True), {"index"}),
        ("ACL", acl_body(fe, name=None), {"name"}),
        ("ACL", acl_body(fe, parent_type=None), {"parent_type"}),
        ("ACL", acl_body(fe, parent_type="server"), {"parent_type"}),
        ("ACL", acl_body(fe, frontend=None), {"frontend"}),
        ("ACL", acl_body(fe, parent_type="backend"), {"backend", "frontend"}),
        ("ACL", acl_body(fe, backend=be), {"backend"}),
        ("ACL", acl_body(be), {"frontend"}),   # an identifier of another kind
        ("ACL", acl_body(fe, frontend={"identifier": fe, "name": "web"}), {"frontend"}),
        ("ACL", acl_body(fe, criterion=None), {"criterion"}),
        ("ACL", acl_body(fe, criterion="hdr(host)"), {"criterion"}),
        ("ACL", acl_body(fe, criterion=["src"]), {"criterion"}),
        ("ACL", acl_body(fe, value=None), {"value"}),
        ("ACL", acl_body(fe, value=8080), {"value"}),
        ("ACL", acl_body(fe, value="0"), {"value"}),
        ("ACL", acl_body(fe, value="65536"), {"value"}),
        ("ACL", acl_body(fe, value="08080"), {"value"}),
        ("ACL", acl_body(fe, value="8080:8090"), {"value"}),
        ("ACL", acl_body(fe, value="10.0.0.0/8"), {"value"}),
        ("ACL", acl_body(fe, criterion="src", value="8080"), {"value"}),
        ("ACL", acl_body(fe, criterion="src", value="10.0.0.1/8"), {"value"}),   # host bits
        ("ACL", acl_body(fe, criterion="src", value="10.0.0.0/255.0.0.0"), {"value"}),
        ("ACL", acl_body(fe, criterion="src", value="10.0.0.0/8 192.168.0.0/16"), {"value"}),
        ("ACL", acl_body(fe, criterion="src", value=" 10.0.0.0/8"), {"value"}),
        ("ACL", acl_body(fe, criterion="src", value="10.0.0.0/8\nbind :1"), {"value"}),
        ("ACL", acl_body(fe, criterion="src", value="fd00::1/64"), {"value"}),
        ("rule", rule_body(fe, index=None), {"index"}),
        ("rule", rule_body(fe, index=-1), {"index"}),
        ("rule", rule_body(fe, name=""), {"name"}),
        ("rule", rule_body(fe, frontend=None), {"frontend"}),
        ("rule", rule_body(fe, condition=None), {"condition"}),
        ("rule", rule_body(fe, condition="unless"), {"condition"}),
        ("rule", rule_body(fe, condition="when"), {"condition"}),
        ("rule", rule_body(fe, condition_test=None), {"condition_test"}),
        ("rule", rule_body(fe, condition_test="nope"), {"condition_test"}),
        ("rule", rule_body(fe, condition_test=7), {"condition_test"}),
        ("rule", rule_body(fe, type=None), {"type"}),
        ("rule", rule_body(fe, type="http"), {"type"}),
        ("rule", rule_body(fe, action=None), {"action"}),
        ("rule", rule_body(fe, action="deny"), {"action"}),
        ("rule", rule_body(fe, redirection_type="location"), {"redirection_type"}),
        ("rule", rule_body(fe, redirection_code="301"), {"redirection_code"}),
        ("rule", rule_body(fe, redirection_value="https://x"), {"redirection_value"}),
        ("rule", rule_body(fe, rule_type="x"), {"rule_type"}),
        ("rule", rule_body(fe, parent_type="backend", frontend=None, backend=be), {"parent_type"}),
    ]


def test_invalid_acl_and_rule_bodies_are_422_naming_each_field_and_store_nothing(engine):
    ids = tree(engine)
    ok(post(engine, "ACL", acl_body(ids["frontend"])))
    for kind, body, fields in invalid_bodies(ids):
        err = error_of(post(engine, kind, body), 422)
        assert set(err["validation"]) == fields, (kind, body, err)
    assert ok(engine.api("GET", lbaas("ACL")))["data"]["total_items"] == 1
    assert ok(engine.api("GET", lbaas("rule")))["data"]["total_items"] == 0


@pytest.mark.parametrize("criterion, value", [("dst_port", "1"), ("dst_port", "65535"), ("src", "10.0.0.0/8"),
                                              ("src", "127.0.0.5"), ("src", "127.0.0.5/32"), ("src", "0.0.0.0/0"),
                                              ("src", "fd00:10::/64"), ("src", "::/0"), ("src", "::1")])
def test_known_criteria_take_their_values_as_sent(engine, criterion, value):
    ids = tree(engine)
    acl = ok(post(engine, "ACL", acl_body(ids["frontend"], criterion=criterion, value=value)))
    assert (acl["criterion"], acl["value"]) == (criterion, value)


def test_acls_on_backends_and_a_rules_acl_is_one_of_its_own_parent(engine):
    ids = tree(engine)
    other = frontend(engine, ids["backend"], name="other")["identifier"]
    on_backend = ok(post(engine, "ACL", acl_body(None, parent_type="backend", backend=ids["backend"], criterion="src",
                                                 value="10.0.0.0/8", frontend=None)))
    assert on_backend["backend"]["identifier"] == ids["backend"] and on_backend["frontend"] is None
    ok(post(engine, "ACL", acl_body(other, name="elsewhere")))
    for name in ("go-anxcloud-acl", "elsewhere"):   # on the backend; on another frontend
        err = error_of(post(engine, "rule", rule_body(ids["frontend"], acl_name=name)), 422)
        assert set(err["validation"]) == {"condition_test"} and "own parent" in err["validation"]["condition_test"]
    assert ok(post(engine, "rule", rule_body(other, acl_name="elsewhere")))["condition_test"] == "elsewhere"


def test_a_rules_acl_being_deleted_is_no_acl(slow_engine):
    ids = tree(slow_engine)
    acl = ok(post(slow_engine, "ACL", acl_body(ids["frontend"])))
    ok(slow_engine.api("DELETE", lbaas("ACL", acl["identifier"])))
    err = error_of(post(slow_engine, "rule", rule_body(ids["frontend"])), 422)
    assert set(err["validation"]) == {"condition_test"}


def test_an_acl_a_rule_names_is_neither_deleted_nor_renamed_away(engine):
    """The emulator's assumption (README.md): a rule never names a missing ACL, so this is a 409 like a
    parent with children; another ACL of the parent with the same name keeps the rule valid."""
    ids = tree(engine)
    acl = ok(post(engine, "ACL", acl_body(ids["frontend"])))
    rule = ok(post(engine, "rule", rule_body(ids["frontend"])))
    err = error_of(engine.api("DELETE", lbaas("ACL", acl["identifier"])), 409)
    assert rule["identifier"] in err["message"] and "condition_test" in err["message"]
    for change in ({"name": "renamed"}, {"frontend": frontend(engine, ids["backend"], name="f2")["identifier"]}):
        err = error_of(engine.api("PUT", lbaas("ACL", acl["identifier"]),
                                  json=request_body(acl, state="0", **change)), 409)
        assert rule["identifier"] in err["message"]
    assert get(engine, "ACL", acl["identifier"]) == acl
    ok(engine.api("PUT", lbaas("ACL", acl["identifier"]), json=request_body(acl, value="9090", index=3, state="0")))
    twin = ok(post(engine, "ACL", acl_body(ids["frontend"], value="9091")))   # same name: the rule keeps an ACL
    ok(engine.api("PUT", lbaas("ACL", acl["identifier"]), json=request_body(acl, name="renamed", state="0")))
    err = error_of(engine.api("DELETE", lbaas("ACL", twin["identifier"])), 409)
    ok(engine.api("DELETE", lbaas("rule", rule["identifier"])))
    ok(engine.api("DELETE", lbaas("ACL", twin["identifier"])))


def test_a_parent_with_acls_or_rules_is_not_deleted(engine):
    """As with binds and servers (README.md, "Deleting a parent that still has children")."""
    ids = tree(engine)
    ok(engine.api("DELETE", lbaas("bind", ids["bind"])))
    acl = ok(post(engine, "ACL", acl_body(ids["frontend"])))
    rule = ok(post(engine, "rule", rule_body(ids["frontend"])))
    message = error_of(engine.api("DELETE", lbaas("frontend", ids["frontend"])), 409)["message"]
    assert acl["identifier"] in message and rule["identifier"] in message
    ok(engine.api("DELETE", lbaas("rule", rule["identifier"])))
    ok(engine.api("DELETE", lbaas("ACL", acl["identifier"])))
    ok(engine.api("DELETE", lbaas("frontend", ids["frontend"])))
    ok(engine.api("DELETE", lbaas("server", ids["server"])))
    on_backend = ok(post(engine, "ACL", acl_body(None, parent_type="backend", backend=ids["backend"], frontend=None)))
    assert on_backend["identifier"] in error_of(engine.api("DELETE", lbaas("backend", ids["backend"])), 409)["message"]


def test_deployment_states_as_for_the_other_kinds(slow_engine):
    ids = tree(slow_engine)
    acl = ok(post(slow_engine, "ACL", acl_body(ids["frontend"])))
    rule = ok(post(slow_engine, "rule", rule_body(ids["frontend"])))
    assert acl["state"]["title"] == rule["state"]["title"] == "NewlyCreated"
    after_delay()
    assert state_title(slow_engine, "ACL", acl["identifier"]) == "Deployed"
    put = ok(slow_engine.api("PUT", lbaas("rule", rule["identifier"]),
                             json=request_body(get(slow_engine, "rule", rule["identifier"]), action="accept", state="0")))
    assert put["state"]["title"] == "Updating"
    after_delay()
    assert state_title(slow_engine, "rule", rule["identifier"]) == "Updated"
    ok(slow_engine.api("DELETE", lbaas("rule", rule["identifier"])))
    assert state_title(slow_engine, "rule", rule["identifier"]) == "Updated"   # readable while being deleted
    after_delay()
    error_of(slow_engine.api("GET", lbaas("rule", rule["identifier"])), 404)


def test_acls_and_rules_are_tagged_resources_in_the_admin_dump(engine):
    ids = tree(engine)
    acl = ok(post(engine, "ACL", acl_body(ids["frontend"])))
    rule = ok(post(engine, "rule", rule_body(ids["frontend"])))
    for ident, type_name in ((acl["identifier"], "LBaaS ACL"), (rule["identifier"], "LBaaS Rule")):
        ok(engine.api("POST", tag_path(ident, "anxlb-svc=web")))
        res = ok(engine.api("GET", RESOURCES + "/" + ident))
        assert (res["resource_type"]["name"], res["service_name"]) == (type_name, "LBaaS")
        assert [t["name"] for t in res["tags"]] == ["anxlb-svc=web"]
    tagged = ok(engine.api("GET", RESOURCES, params={"tag_name": "anxlb-svc=web", "limit": 50}))["data"]
    assert set(r["identifier"] for r in tagged) == {acl["identifier"], rule["identifier"]}
    dumped = dict((o["identifier"], o) for o in engine.dump()["objects"])
    assert dumped[acl["identifier"]]["_kind"] == "acl" and dumped[rule["identifier"]]["_kind"] == "rule"
    assert dumped[rule["identifier"]]["_tags"] == ["anxlb-svc=web"]
    assert dumped[rule["identifier"]]["condition_test"] == acl["name"]


def test_acl_lists_page_like_the_other_kinds(engine):
    b = backend(engine)["identifier"]
    fe = frontend(engine, b)["identifier"]
    for index in range(12):
        ok(post(engine, "ACL", acl_body(fe, name="a%02d" % index, index=index, value=str(8000 + index))))
    first = ok(engine.api("GET", lbaas("ACL"), params={"limit": 10}))["data"]
    assert (first["total_items"], first["total_pages"], len(first["data"])) == (12, 2, 10)
    second = items(ok(engine.api("GET", lbaas("ACL"), params={"limit": 10, "page": 2})))
    assert [i["name"] for i in second] == ["a10", "a11"]
    filtered = items(ok(engine.api("GET", lbaas("ACL"), params={"filters": "frontend=%s&index=11" % fe})))
    assert [i["name"] for i in filtered] == ["a11"]
    err = error_of(engine.api("GET", lbaas("ACL"), params={"filters": "condition=if"}), 422)   # a rule's field
    assert set(err["validation"]) == {"condition"}
