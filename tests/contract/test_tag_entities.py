"""Contract: the account's tag entities, /api/core/v1/tags.json, as gac:pkg/core/tags/tags.go uses them
(List, Get, Create, Delete), and how attaching and detaching creates and keeps them (README.md)."""
import pytest

from localengine.tags import SERVICES

from .helpers import IDENTIFIER, LB1, LB2, RESOURCES, V4, backend, error_of, ok, tag_path

TAGS = "/api/core/v1/tags.json"
PAGE_KEYS = {"page", "total_pages", "total_items", "limit", "data"}
LBAAS, IPAM = SERVICES["LBaaS"], SERVICES["IPAM"]
CUSTOMER = "0000000000000000000000000000c0de"


def attach(engine, ident, name):
    return ok(engine.api("POST", tag_path(ident, name), json=""))


def listing(engine, **params):
    """The query string gac:pkg/core/tags/tags.go List always sends, every key present."""
    query = dict(page=1, limit=100, query="", service_identifier="", organization_identifier="", order="",
                 sort_descending="false")
    query.update(params)
    return engine.api("GET", TAGS, params=query)


def names(engine, **params):
    return [t["name"] for t in ok(listing(engine, **params))["data"]]


def entity(engine, name):
    return [t for t in ok(listing(engine, query=name))["data"] if t["name"] == name][0]


def test_attaching_creates_the_entity_and_detaching_keeps_it(engine):
    """Clients never create a tag before attaching it (gac:pkg/apis/core/v1/resource_tags.go Tag,
    ccm:.../reconciliation.go tagResource), so attach creates it; nothing deletes it but its own API."""
    before = len(engine.tag_entities())
    attach(engine, LB1, "lease=me")
    found = entity(engine, "lease=me")
    assert IDENTIFIER.match(found["identifier"]) and set(found) == {"name", "identifier"}
    assert ok(engine.api("GET", RESOURCES + "/" + LB1))["tags"] == [found]   # the same identifier
    ok(engine.api("DELETE", tag_path(LB1, "lease=me")))
    assert entity(engine, "lease=me") == found and len(engine.tag_entities()) == before + 1


def test_entities_pile_up_one_per_name_and_the_dump_counts_them(engine):
    """The admin dump lets tests assert a bounded number of tag entities."""
    before = len(engine.tag_entities())
    for run in range(5):
        attach(engine, LB1, "marker=%d" % run)
        attach(engine, LB1, "owner=shop")
        ok(engine.api("DELETE", tag_path(LB1, "owner=shop")))
    attach(engine, LB2, "owner=shop")
    dumped = dict((t["name"], t) for t in engine.tag_entities())
    assert len(dumped) == before + 6 and dumped["owner=shop"]["_carriers"] == 1
    assert dumped["marker=0"]["_carriers"] == 1 and dumped["marker=0"]["services"] == [LBAAS]


def test_entities_outlive_the_objects_that_carried_them(engine):
    """Tags are account-level entities (gac:pkg/core/tags/tags.go): deleting a resource leaves them."""
    b = backend(engine)
    attach(engine, b["identifier"], "gone=soon")
    ok(engine.api("DELETE", "/api/LBaaS/v1/backend.json/" + b["identifier"]))
    assert [t["_carriers"] for t in engine.tag_entities() if t["name"] == "gone=soon"] == [0]


def test_get_shows_the_organisation_assignments(engine):
    """gac:pkg/core/tags/tags.go Get decodes Info: name, identifier, organisation_assignments of
    {customer, service}."""
    attach(engine, LB1, "shared")
    attach(engine, V4, "shared")
    found = ok(engine.api("GET", TAGS + "/" + entity(engine, "shared")["identifier"]))
    assert set(found) == {"name", "identifier", "organisation_assignments"}
    assert [a["service"] for a in found["organisation_assignments"]] == [
        {"name": "LBaaS", "identifier": LBAAS}, {"name": "IPAM", "identifier": IPAM}]
    assert {a["customer"]["identifier"] for a in found["organisation_assignments"]} == {CUSTOMER}
    error_of(engine.api("GET", TAGS + "/" + "0" * 32), 404)


def test_list_envelope_paging_and_filters(engine):
    """gac:pkg/core/tags/tags.go List: page, limit, query, service_identifier, organization_identifier,
    order, sort_descending (its parameter is called sortAscending but sent as sort_descending)."""
    for name in ("b-web", "a-web", "c-db"):
        attach(engine, LB1, name)
    attach(engine, V4, "d-web")
    body = ok(listing(engine, limit=2, query="WEB"))
    assert set(body) == PAGE_KEYS and (body["total_items"], body["total_pages"], body["limit"]) == (3, 2, 2)
    assert [t["name"] for t in body["data"]] == ["b-web", "a-web"]   # creation order by default
    assert names(engine, query="web", page=3, limit=2) == []   # past the end: an empty page
    assert names(engine, query="web", order="name") == ["a-web", "b-web", "d-web"]
    assert names(engine, query="web", order="name", sort_descending="true") == ["d-web", "b-web", "a-web"]
    assert names(engine, query="web", service_identifier=IPAM) == ["d-web"]
    assert names(engine, query="web", organization_identifier=CUSTOMER) == ["b-web", "a-web", "d-web"]
    assert names(engine, organization_identifier="f" * 32) == []
    err = error_of(listing(engine, order="colour", sort_descending="maybe"), 422)
    assert set(err["validation"]) == {"order", "sort_descending"}


def test_create_by_name_service_and_customer(engine):
    """gac:pkg/core/tags/tags.go Create always sends name, service_identifier and customer_identifier."""
    made = ok(engine.api("POST", TAGS, json={"name": "made", "service_identifier": LBAAS, "customer_identifier": ""}))
    assert set(made) == {"name", "identifier"} and made == entity(engine, "made")
    err = error_of(engine.api("POST", TAGS, json={"name": "made", "service_identifier": LBAAS,
                                                  "customer_identifier": CUSTOMER}), 422)
    assert "exists already" in err["validation"]["name"]
    again = ok(engine.api("POST", TAGS, json={"name": "made", "service_identifier": IPAM, "customer_identifier": ""}))
    assert again == made   # the same entity, now also assigned to IPAM
    err = error_of(engine.api("POST", TAGS, json={"name": "a b", "service_identifier": "x", "customer_identifier": "y"}),
                   422)
    assert set(err["validation"]) == {"name", "service_identifier", "customer_identifier"}
    error_of(engine.api("PUT", TAGS + "/" + made["identifier"], json={}), 405)


@pytest.mark.parametrize("tag_delete", ["detach", "refuse"])
def test_delete_needs_an_assigned_service_and_then_detaches_or_refuses(engine, tag_delete):
    """gac:pkg/core/tags/tags.go Delete: DELETE /<id>?service_identifier=<sid>. By default (detach) the
    tag leaves every resource of that service, the dangerous plausible behaviour; refuse answers 409
    while a resource carries it."""
    engine.set_options(tag_delete=tag_delete)
    attach(engine, LB1, "owner=x")
    attach(engine, LB2, "owner=x")
    ident = entity(engine, "owner=x")["identifier"]
    path = TAGS + "/" + ident
    assert "service_identifier" in error_of(engine.api("DELETE", path), 422)["validation"]
    assert "service_identifier" in error_of(engine.api("DELETE", path, params={"service_identifier": IPAM}),
                                            422)["validation"]
    if tag_delete == "refuse":
        err = error_of(engine.api("DELETE", path, params={"service_identifier": LBAAS}), 409)
        assert "still attached to 2 resource(s)" in err["message"]
        for lb in (LB1, LB2):
            ok(engine.api("DELETE", tag_path(lb, "owner=x")))
    assert ok(engine.api("DELETE", path, params={"service_identifier": LBAAS})) == {}
    assert engine.api("GET", RESOURCES, params={"tag_name": "owner=x"}).status_code == 422   # on nothing now
    error_of(engine.api("GET", path), 404)   # its last assignment was LBaaS: gone
    error_of(engine.api("DELETE", path, params={"service_identifier": LBAAS}), 404)


def test_deleting_one_assignment_keeps_the_other(engine):
    """gac:pkg/core/tags/tags.go Delete takes a service_identifier: it ends one assignment."""
    attach(engine, LB1, "both")
    attach(engine, V4, "both")
    ident = entity(engine, "both")["identifier"]
    ok(engine.api("DELETE", TAGS + "/" + ident, params={"service_identifier": LBAAS}))
    assert [t["name"] for t in ok(engine.api("GET", RESOURCES + "/" + V4))["tags"]] == ["anxlb-pool=demo", "both"]
    assert ok(engine.api("GET", RESOURCES + "/" + LB1))["tags"] == []
    assert [a["service"]["name"] for a in ok(engine.api("GET", TAGS + "/" + ident))["organisation_assignments"]] == [
        "IPAM"]


def test_a_reattached_name_after_deletion_is_a_new_entity(engine):
    """gac:pkg/core/tags/tags.go Create answers a new identifier for a new entity."""
    first = attach(engine, LB1, "again")[0]["identifier"]
    ok(engine.api("DELETE", TAGS + "/" + first, params={"service_identifier": LBAAS}))
    assert attach(engine, LB1, "again")[0]["identifier"] != first
