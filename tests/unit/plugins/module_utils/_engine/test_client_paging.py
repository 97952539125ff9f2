"""Paged lists over real HTTP: every envelope, exact request counts, filters."""
import threading
import time
from urllib.parse import parse_qs

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import (
    UnexpectedResponseError, ValidationFailedError)

from ..conftest import LB1, LB2, PREFIX4, PREFIX6, engine_log, reset_log


def make_backends(engine, n, lb=LB1, prefix="b"):
    for i in range(n):
        resp = engine.api("POST", "/api/LBaaS/v1/backend.json",
                          json={"name": "%s%02d" % (prefix, i), "mode": "tcp", "load_balancer": lb})
        assert resp.status_code == 200, resp.text


def paths(engine):
    """The paths in the order the Engine saw them: page 1 first, then the later pages of one list in
    any order (they go out concurrently once page 1 announced the total), sorted by page here."""
    found = [entry["path"] for entry in engine_log(engine)["log"]]
    return found[:1] + sorted(found[1:], key=_page_key)


def _page_key(path):
    query = parse_qs(path.split("?", 1)[1], keep_blank_values=True)
    return (path.split("?", 1)[0], int(query.get("page", ["0"])[0]))


# ---- the local Engine: wrapped pages (LBaaS), bare pages (resources, prefixes) -----------------
@pytest.mark.parametrize("count, page_size, requests", [(7, 3, 3), (6, 3, 2), (3, 3, 1), (1, 100, 1), (0, 3, 1)])
def test_wrapped_pages_are_read_to_the_end_without_a_trailing_empty_page(engine, make_client, count, page_size,
                                                                         requests):
    make_backends(engine, count)
    client = make_client(page_size=page_size)
    reset_log(engine)
    items = client.lbaas_list("backend", load_balancer=LB1)
    assert [i["name"] for i in items] == ["b%02d" % i for i in range(count)]
    assert all(set(i) == {"identifier", "name"} for i in items)
    assert paths(engine) == ["/api/LBaaS/v1/backend.json?attributes=all&filters=load_balancer%%3D%s&limit=%d&page=%d"
                             % (LB1, page_size, page) for page in range(1, requests + 1)]
    assert client.request_counts == {"total": requests, "by_method": {"GET": requests}}


def test_default_page_size_is_100(engine, make_client):
    make_backends(engine, 3)
    reset_log(engine)
    make_client().lbaas_list("backend")
    assert paths(engine) == ["/api/LBaaS/v1/backend.json?attributes=all&filters=&limit=100&page=1"]


def test_bare_pages_of_the_resource_list(engine, make_client):
    make_backends(engine, 5)
    client = make_client(page_size=2)
    ids = [i["identifier"] for i in client.lbaas_list("backend")]
    for ident in ids:
        client.tag_add(ident, "anxlb-svc=paged")
    reset_log(engine)
    client.reset_counts()
    assert [r["identifier"] for r in client.resources_by_tag("anxlb-svc=paged")] == ids
    assert paths(engine) == ["/api/core/v1/resource.json?limit=2&page=%d&tag_name=anxlb-svc%%3Dpaged" % p
                             for p in (1, 2, 3)]
    assert client.request_counts["total"] == 3


def test_prefix_list_top_level_data(engine, make_client):
    client = make_client(page_size=1)
    reset_log(engine)
    assert [(p["identifier"], p["name"]) for p in client.prefix_list()] == [
        (PREFIX4, "127.0.10.0/24"), (PREFIX6, "fd00:10::/64")]
    assert paths(engine) == ["/api/ipam/v1/prefix.json?limit=1&page=1&search=",
                             "/api/ipam/v1/prefix.json?limit=1&page=2&search="]
    reset_log(engine)
    assert [p["name"] for p in client.prefix_list(search="fd00")] == ["fd00:10::/64"]
    assert paths(engine) == ["/api/ipam/v1/prefix.json?limit=1&page=1&search=fd00"]


def test_address_lists_plain_and_filtered(engine, make_client):
    client = make_client(page_size=2)
    reset_log(engine)
    everything = client.address_list()
    assert len(everything) == 5   # network, gateway, broadcast of the v4 /24; network, gateway of the v6 /64
    assert paths(engine)[0] == "/api/ipam/v1/address.json?limit=2&page=1&search="
    assert len(paths(engine)) == 3
    reset_log(engine)
    v4 = client.address_list(prefix=PREFIX4, version=4)
    assert sorted(a["name"] for a in v4) == ["127.0.10.0", "127.0.10.1", "127.0.10.255"]
    assert paths(engine) == ["/api/ipam/v1/address/filtered.json?limit=2&page=%d&prefix=%s&version=4" % (p, PREFIX4)
                             for p in (1, 2)]
    assert [a["name"] for a in client.address_list(search="10.1")] == ["127.0.10.1"]


def test_lbaas_filters_travel_inside_one_parameter(engine, make_client):
    make_backends(engine, 2, lb=LB1, prefix="one")
    make_backends(engine, 1, lb=LB2, prefix="two")
    client = make_client()
    reset_log(engine)
    assert [b["name"] for b in client.lbaas_list("backend", mode="tcp", load_balancer=LB2, name=None)] == ["two00"]
    query = parse_qs(paths(engine)[0].split("?", 1)[1], keep_blank_values=True)
    assert query == {"attributes": ["all"], "filters": ["load_balancer=%s&mode=tcp" % LB2], "limit": ["100"], "page": ["1"]}
    assert paths(engine)[0].startswith("/api/LBaaS/v1/backend.json?attributes=all&filters=load_balancer%3D" + LB2 + "%26mode%3Dtcp&")
    assert len(client.lbaas_list("backend")) == 3        # no filter: filters= (empty) still sent
    assert "filters=&" in paths(engine)[1]


def test_the_loadbalancer_list_takes_no_filters(engine, make_client):
    client = make_client()
    reset_log(engine)
    assert [lb["name"] for lb in client.lbaas_list("loadbalancer")] == ["lb1", "lb2"]
    assert paths(engine) == ["/api/LBaaS/v1/loadbalancer.json?attributes=all&limit=100&page=1"]
    with pytest.raises(ValueError):
        client.lbaas_list("loadbalancer", name="lb1")
    assert engine_log(engine)["total"] == 1


def test_a_later_page_is_read_lazily(engine, make_client):
    make_backends(engine, 4)
    client = make_client(page_size=2)
    reset_log(engine)
    pages = client.pages("/api/LBaaS/v1/backend.json", {"filters": ""})
    assert next(pages)["name"] == "b00" and engine_log(engine)["total"] == 1
    assert [b["name"] for b in pages] == ["b01", "b02", "b03"] and engine_log(engine)["total"] == 2


# ---- envelopes the local Engine does not serve on these endpoints: a stub on loopback ----------
def pager(total, shape, page_keys=("page", "total_pages", "total_items", "limit"), cap=None):
    """A ``respond`` serving ``total`` items in ``shape`` (wrapped, bare, data, plain)."""
    def respond(req):
        page = int(req["query"]["page"][0])
        limit = int(req["query"]["limit"][0])
        if cap:
            limit = min(limit, cap)
        items = [{"identifier": "%032x" % i, "name": "n%d" % i} for i in range(total)][(page - 1) * limit:page * limit]
        meta = {"page": page, "total_pages": (total + limit - 1) // limit, "total_items": total, "limit": limit}
        meta = dict((k, v) for k, v in meta.items() if k in page_keys)
        if shape == "wrapped":
            return 200, {"state": "success", "messages": [], "data": dict(meta, data=items)}
        if shape == "bare":
            return 200, dict(meta, data=items)
        if shape == "data":
            return 200, {"data": items}
        return 200, items
    return respond


# The stop rule: the first empty page (go-anxcloud's generic client, Terraform), or the last page the
# Engine announces in total_pages (legacy go-anxcloud's HasNext); never a short page.
@pytest.mark.parametrize("shape, keys, total, size, requests", [
    ("wrapped", ("total_pages",), 5, 2, 3),       # total_pages: no trailing empty page
    ("wrapped", ("total_items",), 5, 2, 4),       # total_items alone is not trusted: empty page 4 ends it
    ("wrapped", ("total_items",), 4, 2, 3),
    ("wrapped", (), 4, 2, 3),                     # total unknown: the empty page 3 ends it
    ("bare", ("page", "total_pages", "total_items", "limit"), 4, 2, 2),
    ("bare", ("total_items",), 0, 2, 1),
    ("data", (), 5, 2, 4),                        # the short page 3 does not end it, the empty page 4 does
    ("data", (), 4, 2, 3),
    ("plain", (), 5, 2, 4),
    ("plain", (), 6, 3, 3),
    ("plain", (), 2, 3, 2),
])
def test_every_envelope_with_exact_request_counts(stub, shape, keys, total, size, requests):
    stub.respond = pager(total, shape, keys)
    client = stub.client(page_size=size)
    assert [i["name"] for i in client.pages("/api/things.json")] == ["n%d" % i for i in range(total)]
    # page 1 first; once it announced the total, the later pages go out together (any order)
    seen = [r["query"]["page"] for r in stub.seen]
    assert seen[:1] + sorted(seen[1:], key=lambda p: int(p[0])) == [[str(p)] for p in range(1, requests + 1)]
    assert client.request_counts == {"total": requests, "by_method": {"GET": requests}}


@pytest.mark.parametrize("keys", [("total_pages",), ("total_items",)])
def test_the_pages_the_first_answer_counts_go_out_together_within_the_bound(stub, keys):
    # 9 pages of 2: pages 2-9 at most 4 at a time (max_workers 4); with total_items alone the count only sends them
    # out together, and the empty page 10 still ends the list.
    inflight, peak, lock = [0], [0], threading.Lock()
    serve = pager(18, "wrapped", keys)

    def respond(req):
        with lock:
            inflight[0] += 1
            peak[0] = max(peak[0], inflight[0])
        time.sleep(0.1)
        with lock:
            inflight[0] -= 1
        return serve(req)
    stub.respond = respond
    client = stub.client(page_size=2, max_workers=4)
    assert [i["name"] for i in client.pages("/api/things.json")] == ["n%d" % i for i in range(18)]
    assert 1 < peak[0] <= 4   # together, within the bound
    assert len(stub.seen) == (9 if keys == ("total_pages",) else 10)


@pytest.mark.parametrize("shape, keys", [("wrapped", ("total_items", "limit")), ("plain", ()), ("data", ())])
def test_an_engine_that_caps_the_page_size_silently_is_read_to_the_end(stub, shape, keys):
    # A short first page (3 of the 100 asked for) is not the end: only an empty page is.
    stub.respond = pager(7, shape, keys, cap=3)
    client = stub.client(page_size=100)
    assert [i["name"] for i in client.pages("/api/things.json")] == ["n%d" % i for i in range(7)]
    assert len(stub.seen) == 4


def test_an_endpoint_that_ignores_page_ends_after_the_repeated_page(stub):
    items = [{"identifier": str(i)} for i in range(3)]
    stub.respond = lambda req: (200, items)
    client = stub.client(page_size=3)
    assert list(client.pages("/api/things.json")) == items
    assert len(stub.seen) == 2


def test_an_unknown_envelope_fails_instead_of_looking_empty(stub):
    stub.respond = lambda req: (200, {"count": 1, "results": [{"identifier": "x"}]})
    with pytest.raises(UnexpectedResponseError) as err:
        stub.client().lbaas_list("backend")
    assert "count, results" in str(err.value) and err.value.path == "/api/LBaaS/v1/backend.json"


def test_422_means_no_resource_only_on_the_first_page(stub):
    def respond(req):
        if req["query"]["page"] == ["1"]:
            return 200, {"page": 1, "total_pages": 2, "total_items": 2, "limit": 1, "data": [{"identifier": "a"}]}
        return 422, {"error": {"code": 422, "message": "gone", "validation": {}}}
    stub.respond = respond
    client = stub.client(page_size=1)
    with pytest.raises(ValidationFailedError):
        client.resources_by_tag("t")
    stub.respond = lambda req: (422, {"error": {"code": 422, "message": "No resources found", "validation": {}}})
    assert client.resources_by_tag("t") == []
