"""Contract: full LBaaS listings, ``attributes=all`` (tests/engine/README.md, "Full listings").

go-anxsdk lists LBaaS objects with ``attributes=all`` and decodes the whole objects from the list call: its
``ListFull`` wraps the filters in ``internal.NewAllAttributesWrapper`` (``v2/lbaas/backend.go``, ``frontend.go``,
``bind.go``, ``server.go``, ...), decodes each page's items as the single GET's type (``BackendGetResponse`` ...), and
``internal/transport_test.go`` (``TestTransport_Get_Success``) asserts that the request carries ``attributes=all``
beside its filters and paging. Whether the v1 ``.json`` listings honour it is not known
(docs/engine-api-facts.md, "Not known"): the local Engine ignores it (default), honours it or refuses it."""
from urllib.parse import urlencode

import pytest

from localengine.lbaas_types import PATHS

from .helpers import LB1, backend, create, error_of, get, items, lbaas, ok, tree


def listing(engine, kind, filters=(), **params):
    return engine.api("GET", lbaas(kind), params=dict({"filters": urlencode(list(filters))}, **params))


@pytest.mark.parametrize("path", sorted(PATHS.values()))
def test_an_honouring_engine_lists_each_object_as_its_get_answers_it(engine, path):
    engine.set_options(full_listings="honour")
    ids = tree(engine)
    acl = create(engine, "ACL", name="office", parent_type="frontend", frontend=ids["frontend"], criterion="src",
                 value="10.0.0.0/8", index=0)
    create(engine, "rule", name="admit", parent_type="frontend", frontend=ids["frontend"], index=0, condition="if",
           condition_test=acl["name"], type="connection", action="accept")
    got = items(ok(listing(engine, path, attributes="all", page=1, limit=100)))
    assert got, "one of each kind"
    for entry in got:
        assert entry == get(engine, path, entry["identifier"])   # the same fields as the single GET (ListFull)


def test_full_entries_keep_the_filters_and_the_pages(engine):
    engine.set_options(full_listings="honour")
    made = [backend(engine, name="b%d" % i)["identifier"] for i in range(5)]
    backend(engine, name="elsewhere", lb="0a11ba1a000000000000000000000002")
    pages = [ok(listing(engine, "backend", [("load_balancer", LB1)], attributes="all", page=p, limit=2))["data"]
             for p in (1, 2, 3, 4)]
    assert [len(p["data"]) for p in pages] == [2, 2, 1, 0]
    assert all((p["total_pages"], p["total_items"], p["limit"]) == (3, 5, 2) for p in pages)
    entries = [e for p in pages for e in p["data"]]
    assert [e["identifier"] for e in entries] == made
    assert all(e["load_balancer"] == {"identifier": LB1, "name": "lb1"} and e["mode"] == "tcp" for e in entries)


def test_an_engine_that_ignores_it_lists_identifier_and_name(engine):
    assert engine.options()["full_listings"] == "ignore"   # the default: what the local Engine always did
    tree(engine)
    entries = items(ok(listing(engine, "server", attributes="all", page=1, limit=10)))
    assert entries and all(set(e) == {"identifier", "name"} for e in entries)


def test_an_engine_that_refuses_it_answers_400_naming_it_and_lists_without_it(engine):
    engine.set_options(full_listings="refuse")
    ids = tree(engine)
    error = error_of(listing(engine, "backend", attributes="all", page=1, limit=10), 400)
    assert "attributes" in error["validation"] and "attributes" in error["message"]
    assert items(ok(listing(engine, "backend", page=1, limit=10))) == [{"identifier": ids["backend"], "name": "web"}]


def test_honour_takes_only_all(engine):
    engine.set_options(full_listings="honour")
    assert "attributes" in error_of(listing(engine, "backend", attributes="some"), 400)["validation"]


def test_listing_omits_leaves_fields_out_of_full_entries_only(engine):
    engine.set_options(full_listings="honour")
    ids = tree(engine)
    other = create(engine, "server", name="n2", ip="127.0.0.2", port=8080, check="enabled", backend=ids["backend"])
    engine.set_faults({"listing_omits": [{"match": "n1", "field": "port"}, {"match": other["identifier"], "field": "state"}]})
    entries = dict((e["name"], e) for e in items(ok(listing(engine, "server", attributes="all"))))
    assert "port" not in entries["n1"] and "state" in entries["n1"]
    assert "state" not in entries["n2"] and entries["n2"]["port"] == 8080
    assert get(engine, "server", ids["server"])["port"] == 8080   # the GET still carries it
    refused = engine.http.put(engine.url + "/_local/faults", json={"listing_omits": [{"match": "n1"}]})
    assert "listing_omits" in error_of(refused, 422)["message"]
