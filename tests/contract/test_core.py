"""Contract: core resources and tags (docs/engine-api-facts.md, Core resources and tags)."""
import re

import pytest

from .helpers import (ADDRESSES, FILTERED, LB1, LB2, RESOURCES, V4, V6, VLAN, backend, create, error_of, ok,
                      tag_path, tree)

RESOURCE_KEYS = {"identifier", "name", "resource_type", "service_name", "created_at", "updated_at", "deleted_at",
                 "reseller", "customer", "billing_contract", "managed_status", "shared_by", "shared_at",
                 "resource_pools", "attributes", "tags"}
KNOWN_TYPES = {"frontend": "da9d14b9d95840c08213de67f9cee6e2", "backend": "33164a3066a04a52be43c607f0c5dd8c",
               "bind": "bd24def982aa478fb3352cb5f49aab47", "server": "01f321a4875446409d7d8469503a905f"}
BARE_KEYS = {"page", "total_pages", "total_items", "limit", "data"}


def resource(engine, ident):
    return ok(engine.api("GET", RESOURCES + "/" + ident))


def tag(engine, ident, name, **kw):
    return engine.api("POST", tag_path(ident, name), **kw)


def by_tag(engine, name, **params):
    return engine.api("GET", RESOURCES, params=dict(params, tag_name=name))


def test_a_resource_has_every_documented_field(engine):
    tag(engine, LB1, "t1", json="")
    res = resource(engine, LB1)
    assert set(res) == RESOURCE_KEYS and res["identifier"] == LB1 and res["name"] == "lb1"
    assert set(res["resource_type"]) == {"identifier", "name"}
    assert set(res["customer"]) == {"customer_id", "demo", "identifier", "name", "name_slug", "reseller"}
    assert re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", res["created_at"]) and res["deleted_at"] is None
    assert res["tags"] == [{"name": "t1", "identifier": res["tags"][0]["identifier"]}]


def test_every_object_is_a_resource_with_the_same_identifier_right_away(engine):
    ids = tree(engine)
    types = {}
    for kind, ident in ids.items():
        res = resource(engine, ident)
        types[kind] = res["resource_type"]["identifier"]
        assert res["service_name"] == "LBaaS"
    assert dict((k, types[k]) for k in KNOWN_TYPES) == KNOWN_TYPES
    address = ok(engine.api("GET", FILTERED, params={"prefix": V4}))["data"]["data"][0]["identifier"]
    for ident, name, service in ((V4, "127.0.10.0/24", "IPAM"), (address, "127.0.10.0", "IPAM"),
                                 (VLAN, "local", "VLAN")):
        res = resource(engine, ident)
        assert (res["name"], res["service_name"]) == (name, service)
        types[name] = res["resource_type"]["identifier"]
    assert types["local"] == "cf8e4dac56894afaa3244f6911bb62be"
    assert len(set(types.values())) == len(types)   # one type per kind


def test_tag_attach_answers_200_with_the_tags(engine):
    resp = tag(engine, LB1, "b", json="")
    assert ok(resp) == [{"identifier": resp.json()[0]["identifier"], "name": "b"}]
    assert [t["name"] for t in ok(tag(engine, LB1, "a", data=b""))] == ["a", "b"]   # no body at all: fine
    assert all(set(t) == {"identifier", "name"} for t in ok(tag(engine, LB1, "c", json={})))


def test_tag_identifiers_are_stable_per_name(engine):
    one = ok(tag(engine, LB1, "same", json=""))[0]["identifier"]
    assert ok(tag(engine, LB2, "same", json=""))[0]["identifier"] == one
    assert ok(tag(engine, LB2, "other", json=""))[0]["identifier"] != one


def test_tag_attach_errors(engine):
    ok(tag(engine, LB1, "t", json=""))
    assert "already" in error_of(tag(engine, LB1, "t", json=""), 422)["message"]
    error_of(tag(engine, LB1, "x", data=b"null", headers={"Content-Type": "application/json"}), 400)
    error_of(tag(engine, LB1, "x", data=b"{", headers={"Content-Type": "application/json"}), 400)
    error_of(tag(engine, "0" * 32, "x", json=""), 404)
    error_of(engine.api("PUT", tag_path(LB1, "t"), json=""), 405)
    assert [t["name"] for t in resource(engine, LB1)["tags"]] == ["t"]


@pytest.mark.parametrize("sent, name, tag_names", [
    ("anxccm-svc-uid=1-2", "anxccm-svc-uid=1-2", "strict"), ("x+y", "x+y", "strict"), ("a%3Db", "a=b", "strict"),
    ("a%20b=c", "a b=c", "any"), ("slash%2Fin", "slash/in", "any"), ("%C3%BC", "\u00fc", "any")])
def test_tag_names_are_percent_decoded_and_equals_stays_literal(engine, sent, name, tag_names):
    engine.set_options(tag_names=tag_names)   # names outside the strict charset only with --tag-names any
    assert [t["name"] for t in ok(tag(engine, LB1, sent, json=""))] == [name]
    assert ok(by_tag(engine, name))["data"] == [{"identifier": LB1, "name": "lb1"}]
    assert ok(engine.api("DELETE", tag_path(LB1, sent))) == []


def test_tag_detach_answers_200_and_404_when_not_tagged(engine):
    ok(tag(engine, LB1, "t1", json=""))
    ok(tag(engine, LB1, "t2", json=""))
    assert [t["name"] for t in ok(engine.api("DELETE", tag_path(LB1, "t1")))] == ["t2"]
    error_of(engine.api("DELETE", tag_path(LB1, "t1")), 404)
    error_of(engine.api("DELETE", tag_path("0" * 32, "t2")), 404)


def test_resources_by_tag_are_a_bare_page_of_minimal_items(engine):
    b = backend(engine)
    for ident in (b["identifier"], LB2, V6):
        ok(tag(engine, ident, "mine", json=""))
    body = ok(by_tag(engine, "mine", page=1, limit=2))
    assert set(body) == BARE_KEYS and (body["total_items"], body["total_pages"], body["limit"]) == (3, 2, 2)
    assert body["data"] == [{"identifier": LB2, "name": "lb2"}, {"identifier": V6, "name": "fd00:10::/64"}]
    assert ok(by_tag(engine, "mine", page=2, limit=2))["data"] == [{"identifier": b["identifier"], "name": "web"}]
    past = ok(by_tag(engine, "mine", page=3, limit=2))   # past the end of a non-empty result: empty page
    assert past["data"] == [] and past["page"] == 3


def test_a_tag_nothing_carries_is_422(engine):
    ok(tag(engine, LB1, "t", json=""))
    ok(engine.api("DELETE", tag_path(LB1, "t")))
    error_of(by_tag(engine, "t", page=1, limit=10), 422)
    error_of(by_tag(engine, "never-seen"), 422)


def test_without_tag_name_every_resource_is_listed(engine):
    every = ok(engine.api("GET", RESOURCES, params={"limit": 1000}))
    assert set(every) == BARE_KEYS
    idents = [i["identifier"] for i in every["data"]]
    assert {LB1, LB2, V4, V6, VLAN} <= set(idents)
    addresses = ok(engine.api("GET", ADDRESSES, params={"limit": 1000}))["data"]["total_items"]
    assert every["total_items"] == 2 + 2 + 1 + addresses   # load balancers, prefixes, the VLAN, addresses
    assert ok(engine.api("GET", RESOURCES, params={"limit": 1000, "tag_name": ""}))["total_items"] == len(idents)


def test_tags_vanish_with_their_object(engine):
    b = backend(engine)
    ok(tag(engine, b["identifier"], "gone", json=""))
    ok(engine.api("DELETE", "/api/LBaaS/v1/backend.json/" + b["identifier"]))
    error_of(by_tag(engine, "gone"), 422)
    again = create(engine, "backend", name="web", load_balancer=LB1)
    assert resource(engine, again["identifier"])["tags"] == []


@pytest.mark.parametrize("method", ["POST", "DELETE"])
def test_tag_write_conflicts_can_be_injected(engine, method):
    if method == "DELETE":
        ok(tag(engine, LB1, "t", json=""))
    engine.set_faults({"tag_conflicts": 2})
    for _attempt in range(2):
        assert "try again" in error_of(engine.api(method, tag_path(LB1, "t"), json=""), 409)["message"]
    ok(engine.api(method, tag_path(LB1, "t"), json=""))
    assert engine.admin("GET", "faults")["tag_conflicts"] == 0
