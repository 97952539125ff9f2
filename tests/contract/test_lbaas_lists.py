"""Contract: LBaaS v1 lists — the wrapped page, paging, filters, minimal items (docs/engine-api-facts.md,
Lists and paging, LBaaS objects)."""
from urllib.parse import urlencode

import pytest

from localengine.lbaas_types import PATHS

from .helpers import LB1, LB2, backend, create, error_of, frontend, items, lbaas, ok, tree


def page(engine, kind, **params):
    return ok(engine.api("GET", lbaas(kind), params=params))


@pytest.mark.parametrize("kind", sorted(PATHS.values()))
def test_every_list_is_the_wrapped_page_with_only_identifier_and_name(engine, kind):
    tree(engine)
    body = page(engine, kind, filters="", page=1, limit=10)
    assert body["state"] == "success" and body["messages"] == []
    data = body["data"]
    assert all(isinstance(data[k], int) and not isinstance(data[k], bool)
               for k in ("page", "total_pages", "total_items", "limit"))
    assert all(set(item) == {"identifier", "name"} for item in items(body))
    assert data["total_items"] == len(data["data"])


def test_paging_and_a_page_past_the_end(engine):
    made = [backend(engine, name="b%d" % i)["identifier"] for i in range(5)]
    pages = [page(engine, "backend", filters="", page=p, limit=2)["data"] for p in (1, 2, 3, 4)]
    assert [len(p["data"]) for p in pages] == [2, 2, 1, 0]
    assert [i["identifier"] for p in pages for i in p["data"]] == made   # creation order
    assert all((p["total_pages"], p["total_items"], p["limit"]) == (3, 5, 2) for p in pages)
    assert pages[3]["page"] == 4   # past the end: 200 and an empty page, never 404/422


def test_page_zero_is_page_one_and_defaults(engine):
    assert page(engine, "loadbalancer", page=0, limit=1)["data"]["page"] == 1
    assert {k: v for k, v in page(engine, "loadbalancer")["data"].items() if k != "data"} == {
        "page": 1, "limit": 10, "total_pages": 1, "total_items": 2}


@pytest.mark.parametrize("params", [{"page": "x"}, {"limit": "ten"}, {"limit": 0}])
def test_bad_page_parameters_are_400(engine, params):
    error_of(engine.api("GET", lbaas("loadbalancer"), params=params), 400)


def test_load_balancers_list_without_filters(engine):
    assert items(page(engine, "loadbalancer", page=1, limit=10)) == [
        {"identifier": LB1, "name": "lb1"}, {"identifier": LB2, "name": "lb2"}]


def test_filters_are_one_parameter_holding_an_encoded_query_string(engine):
    one = backend(engine, name="one", lb=LB1)
    backend(engine, name="two", lb=LB2)
    create(engine, "backend", name="three", mode="http", load_balancer=LB1)
    query = urlencode({"filters": urlencode([("load_balancer", LB1), ("mode", "tcp")]), "limit": 10, "page": 1})
    assert query.startswith("filters=load_balancer%3D" + LB1 + "%26mode%3Dtcp&")
    assert items(ok(engine.api("GET", lbaas("backend") + "?" + query))) == [{"identifier": one["identifier"],
                                                                             "name": "one"}]
    assert len(items(page(engine, "backend", filters=""))) == 3
    assert len(items(page(engine, "backend", filters="load_balancer=" + LB1))) == 2
    assert items(page(engine, "backend", filters="name=two"))[0]["name"] == "two"
    assert items(page(engine, "backend", filters="load_balancer=" + "f" * 32)) == []


def test_filters_on_children(engine):
    ids = tree(engine)
    other = create(engine, "bind", name="v6", address="::1", port=443, ssl=True, frontend=ids["frontend"])
    assert len(items(page(engine, "bind", filters="frontend=" + ids["frontend"]))) == 2
    assert items(page(engine, "bind", filters="ssl=true")) == [{"identifier": other["identifier"], "name": "v6"}]
    assert items(page(engine, "bind", filters="port=80"))[0]["name"] == "v4"
    assert items(page(engine, "server", filters="backend=" + ids["backend"]))[0]["identifier"] == ids["server"]
    assert items(page(engine, "frontend", filters=urlencode({"load_balancer": LB1, "mode": "tcp"})))[0][
        "identifier"] == ids["frontend"]


def test_unknown_filter_keys_are_422(engine):
    err = error_of(engine.api("GET", lbaas("bind"), params={"filters": "load_balancer=" + LB1}), 422)
    assert set(err["validation"]) == {"load_balancer"}


def test_acl_and_rule_lists_filter_by_parent(engine):
    """gac:pkg/apis/lbaas/v1/acl_types.go, rule_types.go: parent_type, frontend, backend (and the rule's
    condition, type, action) are filterable."""
    ids = tree(engine)
    other = frontend(engine, ids["backend"], name="other")["identifier"]
    create(engine, "ACL", name="a", parent_type="frontend", frontend=ids["frontend"], criterion="dst_port",
           value="80", index=0)
    create(engine, "ACL", name="b", parent_type="backend", backend=ids["backend"], criterion="src", value="10.0.0.0/8",
           index=0)
    create(engine, "rule", name="r", parent_type="frontend", frontend=ids["frontend"], index=1, condition="if",
           condition_test="a", type="connection", action="accept")
    assert [i["name"] for i in items(page(engine, "ACL", filters="parent_type=frontend"))] == ["a"]
    assert [i["name"] for i in items(page(engine, "ACL", filters="backend=" + ids["backend"]))] == ["b"]
    assert [i["name"] for i in items(page(engine, "ACL", filters="index=0"))] == ["a", "b"]
    assert [i["name"] for i in items(page(engine, "rule", filters="frontend=" + ids["frontend"]))] == ["r"]
    assert [i["name"] for i in items(page(engine, "rule", filters="action=accept&type=connection"))] == ["r"]
    assert items(page(engine, "rule", filters="frontend=" + other)) == []
    assert items(page(engine, "rule", filters="parent_type=backend")) == []
