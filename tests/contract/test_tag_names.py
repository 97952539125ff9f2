"""Contract: tag names on attach (--tag-names) and how a resource listing by tag_name matches them
(--tag-match) (README.md, "Strict by default")."""
import pytest

from localengine import seed
from localengine.engine import Engine
from localengine.seed import SeedError

from .helpers import LB1, LB2, RESOURCES, V4, V6, backend, error_of, ok, tag_path

ALLOWED = "Az09-_.:=@,+"


def attach(engine, ident, name):
    return engine.api("POST", tag_path(ident, name), json="")


def listed(engine, name):
    resp = engine.api("GET", RESOURCES, params={"tag_name": name, "limit": 100})
    return None if resp.status_code == 422 else {i["identifier"] for i in ok(resp)["data"]}


@pytest.mark.parametrize("mode, expected", [
    ("exact", {"svc=shop"}), ("substring", {"svc=shop", "svc=shop2", "x-svc=shop"}),
    ("prefix", {"svc=shop", "svc=shop2"}), ("casefold", {"svc=shop", "SVC=SHOP"})])
def test_listing_by_tag_name_matches_as_the_option_says(engine, mode, expected):
    """ccm:anx/provider/loadbalancer/reconciliation/reconciliation.go lists by UUID-like tags only, so
    whether the Engine matches exactly is unknown (docs/engine-api-facts.md, Tag listings): exact is the default, the others
    show what a client trusting the listing as exact would do to a neighbour (shop vs shop2)."""
    engine.set_options(tag_match=mode)
    carriers = {"svc=shop": LB1, "svc=shop2": LB2, "SVC=SHOP": V4, "x-svc=shop": V6}
    for name, ident in carriers.items():
        ok(attach(engine, ident, name))
    assert listed(engine, "svc=shop") == {carriers[name] for name in expected}
    assert listed(engine, "nothing-like-it") is None   # 422 "nothing carries it" in every mode


def test_exact_is_the_default(engine):
    """docs/engine-api-facts.md, Tag listings: the clients list by tag expecting exact matches
    (ccm:.../reconciliation.go retrieveResources)."""
    ok(attach(engine, LB1, "svc=shop2"))
    assert engine.options()["tag_match"] == "exact"
    assert listed(engine, "svc=shop") is None and listed(engine, "svc=shop2") == {LB1}


@pytest.mark.parametrize("name", ["a%20b", "slash%2Fin", "%C3%BC", "semi;colon", "x" * 129, "tab%09", "q%3Fx",
                                  "hash%23x", "pct%25x", "star*"])
def test_names_outside_the_charset_are_422_naming_name(engine, name):
    """ccm:.../reconciliation.go names its tags like anxccm-svc-uid=<uuid>: letters, digits and a few
    separators. A name the Engine refuses must be visible to a client (gac:pkg/apis/core/v1/resource_tags.go
    Tag reads every 422 as "already tagged"), hence a validation key distinct from that case."""
    entities = engine.tag_entities()
    err = error_of(attach(engine, LB1, name), 422)
    assert set(err["validation"]) == {"name"} and "A-Z a-z 0-9 - _ . : = @ , +" in err["validation"]["name"]
    assert err["message"].startswith("Invalid tag name")
    assert ok(engine.api("GET", RESOURCES + "/" + LB1))["tags"] == [] and engine.tag_entities() == entities


def test_every_allowed_character_and_128_characters_are_fine(engine):
    """The charset holds the clients' own names: anxccm-svc-uid=<uuid> (ccm:.../reconciliation.go
    tagResource) and the collection's marker (commas) and lease (@) tags."""
    for name in (ALLOWED, "y" * 128, "anxccm-svc-uid=0b1c", "anxlb-reconciled.web=1,0.1.0,ab12,1700000000"):
        ok(attach(engine, LB1, name))
    assert len(ok(engine.api("GET", RESOURCES + "/" + LB1))["tags"]) == 4


def test_already_tagged_is_a_different_422(engine):
    """gac:pkg/apis/core/v1/resource_tags.go Tag: 422 means "already tagged" and counts as success; the
    local Engine tells it apart from a refused name by message and validation key."""
    ok(attach(engine, LB1, "t"))
    err = error_of(attach(engine, LB1, "t"), 422)
    assert set(err["validation"]) == {"tag"} and "already has the tag t" in err["message"]


def test_any_name_with_the_lenient_option(engine):
    """--tag-names any: Go formats the raw name into the path (gac:pkg/apis/core/v1/resource_genclient.go
    FilterRequestURL), percent-encoding what a path cannot hold."""
    engine.set_options(tag_names="any")
    assert [t["name"] for t in ok(attach(engine, LB1, "a%20b;c*"))] == ["a b;c*"]
    assert listed(engine, "a b;c*") == {LB1}


def test_tag_names_are_checked_on_detach_never(engine):
    """Detaching a name that could not have been attached is just "not tagged" (404)."""
    error_of(engine.api("DELETE", tag_path(LB1, "a%20b")), 404)


def test_seed_tags_obey_the_same_rule():
    """A seed holds what a client could have attached (gac:pkg/apis/core/v1/resource_tags.go Tag)."""
    engine = Engine()
    try:
        with pytest.raises(SeedError, match=r"loadbalancers\[0\]: tags: Tag names are"):
            seed.apply(engine, {"loadbalancers": [{"name": "x", "tags": ["a b"]}]})
        assert engine.store.all("loadbalancer") == []   # a failing seed changes nothing
        engine.options["tag_names"] = "any"
        seed.apply(engine, {"loadbalancers": [{"name": "x", "tags": ["a b"]}]})
        assert [t["name"] for t in engine.store.tag_entities()] == ["a b"]
    finally:
        engine.close()


def test_backends_and_addresses_are_checked_alike(engine):
    """The CCM tags LBaaS objects and IPAM addresses through the same call
    (ccm:.../reconciliation.go tagResource, ccm:anx/provider/loadbalancer/address/prefix.go)."""
    b = backend(engine)
    for ident in (b["identifier"], V4):
        assert set(error_of(attach(engine, ident, "no%20way"), 422)["validation"]) == {"name"}
