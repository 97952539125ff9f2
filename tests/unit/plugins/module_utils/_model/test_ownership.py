"""Ownership in one place (_ownership): the owner tag, its parsing, foreignness, owner discovery, and load
balancer names resolved the one way (missing, ambiguous, by id)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._tag_entities import names_like
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._marker import Marker
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._ownership import (
    Owner, discover, foreign_tags, is_owner_tag, marked_owners, owner_from_tags, owner_tag, owner_tag_head,
    owners_from_tags, resolve_lbs, split_owner_tag, tag_names)

from ..fakes import FakeClient

A, B, C = "a" * 32, "b" * 32, "c" * 32
LISTING = [{"identifier": A, "name": "lb1"}, {"identifier": B, "name": "twin"}, {"identifier": C, "name": "twin"}]


def test_the_owner_tag_and_its_head():
    assert owner_tag("shop") == "anxlb-svc=shop"
    assert owner_tag("shop", "team-a") == "team-a-svc=shop"
    assert owner_tag("shop", "team-a").startswith(owner_tag_head("team-a"))
    assert split_owner_tag("team-a-svc=shop") == ("team-a", "shop")
    assert split_owner_tag(owner_tag("web.v2", "x")) == ("x", "web.v2")


def test_owners_of_one_prefix_are_parsed_from_a_resources_tags():
    assert owner_from_tags(["anxlb-svc=shop", "other", "x-svc=y", "anxlb-svc=b"]) == ["b", "shop"]
    assert owner_from_tags(["x-svc=y"], prefix="x") == ["y"]
    assert owner_from_tags(["xanxlb-svc=web", "anxlb-reconciled.web=1,x,y,2"]) == []


def test_owners_from_tag_entity_names_are_of_our_prefix_only_once_each_and_never_empty():
    names = ["anxlb-svc=api", "anxlb-svc=shop", "anxlb-svc=", "anxlbx-svc=other", "xyz-svc=api", "anxlb-lease=a@1",
             "anxlb-svc=api"]
    assert owners_from_tags(names, "anxlb") == ["api", "shop"]


def test_every_svc_tag_is_an_owner_tag_and_foreign_unless_it_is_ours():
    assert [is_owner_tag(t) for t in ("anxlb-svc=web", "xanxlb-svc=web", "Team.A-svc=", "-svc=web", "svc=web",
                                      "anxlb-lease=h@1", "anxccm-svc-uid=1", None)] == [
        True, True, True, False, False, False, False, False]
    tags = ["anxlb-svc=web", "xanxlb-svc=web", "anxlb-reconciled.web=x", "env=prod"]
    assert foreign_tags(tags, "anxlb-svc=web") == ["xanxlb-svc=web"]
    assert foreign_tags(tags, ["anxlb-svc=web", "xanxlb-svc=web"]) == []
    assert foreign_tags(tags) == ["anxlb-svc=web", "xanxlb-svc=web"]
    assert foreign_tags(None, "anxlb-svc=web") == []


def test_markers_name_their_owner_with_the_head_the_marker_writes():
    marker = Marker.ours("anxlb", "web", "0123456789abcdef", clock=lambda: 1767225600)
    assert marker.name.startswith(Marker.head("anxlb", "web"))
    tags = [marker.name, "anxlb-reconciled.broken", "xanxlb-reconciled.api=1,x,y,2", "anxlb-svc=shop"]
    assert marked_owners(tags, "anxlb") == ["web"]
    assert [m.service for m in Marker.find("anxlb", "web", tags)] == ["web"]


def test_discovery_joins_owner_tag_entities_and_markers_and_sets_invalid_names_apart():
    names = ["anxlb-svc=shop", "anxlb-svc=bad name", "anxlb-svc=-x", "anxlbx-svc=other"]
    lb_tags = {A: ["anxlb-reconciled.api=1,0.1.0,abc,1", "anxlb-svc=lb-owner-tag"], B: ["anxlb-reconciled.shop=1,0.1.0,d,2"]}
    assert discover(names, lb_tags, "anxlb") == (["api", "shop"], ["-x", "bad name"])
    assert discover([], {}, "anxlb") == ([], [])


def test_owner_tag_names_are_one_query_of_the_prefixes_head_and_discovery_takes_only_exact_ones():
    client = FakeClient()   # matches substrings, as a lenient Engine could
    client.entities = {"anxlb-svc=shop": "1", "xanxlb-svc=web": "2", "anxlb-lease=h@1": "3"}
    names = names_like(client, owner_tag_head("anxlb"))
    assert client.calls == [("GET", "tag entities", "anxlb-svc=")]
    assert sorted(names) == ["anxlb-svc=shop", "xanxlb-svc=web"]
    assert discover(names, {}, "anxlb") == (["shop"], [])


def test_load_balancers_by_name_or_id_once_each_in_the_order_given():
    assert resolve_lbs(LISTING, ["lb1", B, A]) == [
        {"kind": "loadbalancer", "id": A, "name": "lb1"}, {"kind": "loadbalancer", "id": B, "name": "twin"}]
    assert resolve_lbs(LISTING, []) == []


def test_an_id_not_listed_is_taken_as_a_name():
    listing = [{"identifier": A, "name": B}]
    assert [lb["id"] for lb in resolve_lbs(listing, [B])] == [A]


def test_an_ambiguous_name_fails_naming_the_option_with_index_the_count_the_ids_and_the_fix():
    with pytest.raises(Failure) as exc:
        resolve_lbs(LISTING, ["lb1", "twin"], option="load_balancers")
    assert exc.value.msg == ("load_balancers[1]: 2 load balancers named 'twin' (ids %s, %s); give the id to pick one"
                             % (B, C))


def test_a_missing_name_fails_naming_the_option_or_is_reported_as_gone():
    with pytest.raises(Failure) as exc:
        resolve_lbs(LISTING, ["nope"])
    assert exc.value.msg == "load_balancers[0]: no load balancer named 'nope' exists"
    gone = []
    assert resolve_lbs(LISTING, ["nope", "lb1"], gone=gone) == [{"kind": "loadbalancer", "id": A, "name": "lb1"}]
    assert gone == [(0, "nope")]


def test_gone_does_not_excuse_an_ambiguous_name():
    with pytest.raises(Failure, match=r"load_balancers\[0\]: 2 load balancers named 'twin'"):
        resolve_lbs(LISTING, ["twin"], gone=[])


def test_an_owner_carries_its_name_prefix_and_tag():
    owner = Owner("web", "team")
    assert (owner.name, owner.prefix, owner.tag) == ("web", "team", "team-svc=web")
    assert Owner("web").tag == owner_tag("web")


def test_tag_names_of_a_listing_and_of_a_resource_read_alike():
    assert tag_names({"tags": [{"name": "b"}, {"name": "a"}]}) == tag_names({"tags": ["a", "b"]}) == ["a", "b"]
    assert tag_names({}) == []
