"""Contract: core resources and tags (ENGINE_API.md section 5)."""
from .test_lbaas import LB1, backend, error_of

RESOURCES = "/api/core/v1/resource.json"


def test_every_lbaas_object_is_a_resource_with_type_and_tag_objects(engine):
    b = backend(engine)
    engine.api("POST", RESOURCES + "/%s/tags/anxlb-svc=web" % b["identifier"], json="")
    res = engine.api("GET", RESOURCES + "/" + b["identifier"]).json()
    assert res["identifier"] == b["identifier"]
    assert res["resource_type"]["identifier"] == "33164a3066a04a52be43c607f0c5dd8c"
    assert [t["name"] for t in res["tags"]] == ["anxlb-svc=web"] and len(res["tags"][0]["identifier"]) == 32
    for key in ("service_name", "created_at", "updated_at", "deleted_at", "customer", "reseller", "managed_status",
                "resource_pools", "attributes"):
        assert key in res


def test_tag_add_answers_the_tags_and_422_when_already_tagged(engine):
    tags = engine.api("POST", RESOURCES + "/%s/tags/a%%20b=c" % LB1, json="")
    assert tags.status_code == 200 and [t["name"] for t in tags.json()] == ["a b=c"]   # percent-decoded
    error_of(engine.api("POST", RESOURCES + "/%s/tags/a%%20b=c" % LB1, json=""), 422)
    assert engine.api("POST", RESOURCES + "/%s/tags/nobody" % LB1).status_code == 200   # no body at all: fine
    error_of(engine.api("POST", RESOURCES + "/%s/tags/x" % LB1, data=b"null",
                        headers={"Content-Type": "application/json"}), 400)


def test_tag_remove_and_404_when_not_tagged(engine):
    engine.api("POST", RESOURCES + "/%s/tags/t1" % LB1, json="")
    assert engine.api("DELETE", RESOURCES + "/%s/tags/t1" % LB1).status_code == 200
    error_of(engine.api("DELETE", RESOURCES + "/%s/tags/t1" % LB1), 404)


def test_list_by_tag_is_a_bare_page_and_422_when_nothing_has_it(engine):
    b = backend(engine)
    engine.api("POST", RESOURCES + "/%s/tags/mine" % b["identifier"], json="")
    body = engine.api("GET", RESOURCES, params={"tag_name": "mine", "page": 1, "limit": 10}).json()
    assert set(body) == {"page", "total_pages", "total_items", "limit", "data"}
    assert body["data"] == [{"identifier": b["identifier"], "name": "web"}]
    past = engine.api("GET", RESOURCES, params={"tag_name": "mine", "page": 2, "limit": 10}).json()
    assert past["data"] == []
    error_of(engine.api("GET", RESOURCES, params={"tag_name": "nobody-has-it", "page": 1, "limit": 10}), 422)


def test_tags_vanish_with_their_object(engine):
    b = backend(engine)
    engine.api("POST", RESOURCES + "/%s/tags/gone" % b["identifier"], json="")
    engine.api("DELETE", "/api/LBaaS/v1/backend.json/" + b["identifier"])
    error_of(engine.api("GET", RESOURCES, params={"tag_name": "gone"}), 422)


def test_tag_conflicts_can_be_injected(engine):
    engine.set_faults({"tag_conflicts": 1})
    error_of(engine.api("POST", RESOURCES + "/%s/tags/t" % LB1, json=""), 409)
    assert engine.api("POST", RESOURCES + "/%s/tags/t" % LB1, json="").status_code == 200
