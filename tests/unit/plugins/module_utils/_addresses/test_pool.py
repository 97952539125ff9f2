"""_address_pool above a stubbed client: how pool entries resolve to prefixes, which address objects
are an owner's, and the usage grouping of ip_pool_info. The HTTP side is covered by the integration
tests against the local Engine."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import (
    NEW, Prefix, description, observe, owned, owners, pools_for, reread, resolve)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure

from ..fakes import FakeClient

V4 = {"identifier": "a" * 32, "name": "192.0.2.0/29"}
V4B = {"identifier": "b" * 32, "name": "198.51.100.0/30"}
V6 = {"identifier": "c" * 32, "name": "2001:DB8:0::/64"}


def account(prefixes=(V4, V4B, V6), tags=None, addresses=None, tag_match="exact"):
    """The fake Engine holding ``prefixes``, ``tags`` (resource id -> tag names) and ``addresses`` (prefix id ->
    summaries; ``_status`` and ``role_text`` as the address objects have them, default Active and Default)."""
    client = FakeClient(tag_match=tag_match)
    for prefix in prefixes:
        client.add_prefix(prefix["name"], ident=prefix["identifier"])
    for prefix, summaries in (addresses or {}).items():
        for s in summaries:
            client.add_address(s["name"], prefix=prefix, ident=s["identifier"], description=s["description_customer"],
                               status=s.get("_status", "Active"), role=s.get("role_text", "Default"))
    client.tags.update((ident, list(names)) for ident, names in (tags or {}).items())
    return client


def tag_queries(client):
    return [c[2] for c in client.calls if c[:2] == ("GET", "tagged")]


def resource_reads(client):
    return [c[2] for c in client.calls if c[:2] == ("GET", "resource")]


def ids(prefixes):
    return [p.id for p in prefixes]


def test_entries_resolve_by_identifier_cidr_and_tag_in_order_without_duplicates():
    client = account(tags={V4B["identifier"]: ["anxlb-pool=x"], V6["identifier"]: ["anxlb-pool=x"]})
    got = resolve(client, ["anxlb-pool=x", " 192.0.2.0/29 ", V4B["identifier"], "2001:db8::/64"])
    assert ids(got) == [V4B["identifier"], V6["identifier"], V4["identifier"]]
    assert [(p.cidr, p.family) for p in got] == [("198.51.100.0/30", "v4"), ("2001:db8::/64", "v6"),
                                                 ("192.0.2.0/29", "v4")]
    assert ids(resolve(client, ["anxlb-pool=x"], family="v4")) == [V4B["identifier"]]


@pytest.mark.parametrize("entries, family, message", [
    ([], None, "pool must name at least one prefix (an identifier, a CIDR or a tag)"),
    (["f" * 32], None, "pool[0]: no IPAM prefix has the identifier " + "f" * 32),
    ([V4["identifier"], "10.0.0.0/8"], None, "pool[1]: no IPAM prefix is 10.0.0.0/8"),
    (["anxlb-pool=none"], None, "pool[0]: no IPAM prefix carries the tag anxlb-pool=none"),
    (["10.0.0/x"], None, "pool[0]: '10.0.0/x' is neither a prefix identifier, a CIDR nor a tag"),
    ([V4["identifier"], " "], None, "pool[1]: an entry must not be empty"),
    ([V4["identifier"]], "v6", "pool has no IPv6 prefix (it has 192.0.2.0/29)"),
])
def test_bad_pools_name_the_entry(entries, family, message):
    client = account()
    with pytest.raises(Failure) as err:
        resolve(client, entries, family)
    assert err.value.msg == message
    assert "" not in tag_queries(client)   # an empty tag would have matched every resource


def test_bounds_need_a_single_prefix_and_exclusions_go_to_their_family():
    v4, v4b, v6 = Prefix(V4), Prefix(V4B), Prefix(V6)
    with pytest.raises(Failure) as err:
        pools_for([v4, v4b], range_start="192.0.2.3")
    assert err.value.msg == ("range_start and range_end need a pool of one prefix per family; "
                             "this one has 192.0.2.0/29, 198.51.100.0/30")
    ((_p4, pool4), (_p6, pool6)) = pools_for([v4, v6], exclude=["192.0.2.1", "2001:db8::1/127"])
    assert pool4.allocate([]) == "192.0.2.2" and pool6.allocate([]) == "2001:db8::2"
    with pytest.raises(Failure) as err:
        pools_for([v4], exclude=["nope"])
    assert err.value.msg == "exclude: 'nope' is not a valid address or CIDR"


def summary(ident, ip, desc=""):
    return {"identifier": ident, "name": ip, "description_customer": desc}


def test_owned_splits_tagged_from_untagged_leftovers_and_leaves_other_owners_alone():
    client = account(
        tags={"w1": ["anxlb-svc=web"], "o1": ["anxlb-svc=api"], "o2": ["anxlb-svc=db"]},
        addresses={V4["identifier"]: [
            summary("net", "192.0.2.0"), summary("w1", "192.0.2.3"), summary("o1", "192.0.2.2"),
            summary("left", "192.0.2.5", description("web")),     # created for web, never tagged
            summary("o2", "192.0.2.6", description("web")),       # same text, but db's tag: not ours
        ]})
    prefixes = observe(client, [Prefix(V4)])
    tagged, untagged = owned(client, prefixes, "anxlb", "web")
    assert [(ip, s["identifier"]) for _p, ip, s in tagged] == [("192.0.2.3", "w1")]
    assert [(ip, s["identifier"]) for _p, ip, s in untagged] == [("192.0.2.5", "left")]


def test_owners_groups_by_owner_tag_and_lists_untagged_addresses_once():
    client = account(
        tags={"a": ["anxlb-svc=web", "other"], "b": ["anxlb-svc=web"], "c": ["anxlb-svc=api", "anxlb-svc=web"],
              "d": ["x-svc=zzz"]},
        addresses={V6["identifier"]: [
            summary("n", "2001:DB8::"), summary("a", "2001:db8::9"), summary("b", "2001:db8::2"),
            summary("c", "2001:db8::3"), summary("d", "2001:db8::4"), summary("dup", "2001:db8::4"),
            summary("bad", "not an ip")]})
    (prefix,) = observe(client, [Prefix(V6)])
    assert prefix.taken() == ["2001:db8::", "2001:db8::2", "2001:db8::3", "2001:db8::4", "2001:db8::9"]
    by_owner, unowned = owners(client, prefix, "anxlb")
    assert by_owner == {"web": ["2001:db8::2", "2001:db8::3", "2001:db8::9"], "api": ["2001:db8::3"]}
    assert unowned == ["2001:db8::", "2001:db8::4"]   # another prefix's tag is not an owner


def test_reread_keeps_the_runs_own_markers():
    client = account(addresses={V4["identifier"]: [summary("x", "192.0.2.4")]})
    prefix = Prefix(V4)
    prefix.addresses = {"192.0.2.1": [summary(NEW, "192.0.2.1")], "192.0.2.2": [summary(None, "192.0.2.2")],
                        "192.0.2.3": [summary("gone", "192.0.2.3")]}
    reread(client, prefix)
    assert prefix.taken() == ["192.0.2.1", "192.0.2.2", "192.0.2.4"]


def test_an_address_object_released_between_listing_and_tag_read_is_not_counted():
    client = account(tags={"w": ["anxlb-svc=web"]},
                     addresses={V4["identifier"]: [summary("gone", "192.0.2.2"), summary("w", "192.0.2.3")]})
    client.gone.add("gone")   # listed, then released before its tags are read
    (prefix,) = observe(client, [Prefix(V4)])
    assert owners(client, prefix, "anxlb") == ({"web": ["192.0.2.3"]}, [])
    assert prefix.taken() == ["192.0.2.3"]


# ---- statuses the summaries do not show: deleting, unclaimed --------------------------------------
def test_an_object_being_deleted_is_neither_held_nor_free():
    client = account(tags={"w1": ["anxlb-svc=web"], "w2": ["anxlb-svc=web"]}, addresses={V4["identifier"]: [
        dict(summary("w1", "192.0.2.2", description("web")), _status="Marked for deletion"),
        summary("w2", "192.0.2.3", description("web"))]})
    (prefix,) = observe(client, [Prefix(V4)])
    tagged, _untagged = owned(client, [prefix], "anxlb", "web")
    assert [ip for _p, ip, _s in tagged] == ["192.0.2.3"]                 # not held
    assert "192.0.2.2" in prefix.taken()                                    # not free either
    by_owner, unowned = owners(client, prefix, "anxlb")
    assert by_owner == {"web": ["192.0.2.3"]} and unowned == []


def test_unclaimed_objects_count_as_free_and_are_offered_for_claiming():
    inactive = dict(role_text="Default", _status="Inactive")
    client = account(addresses={V4["identifier"]: [
        dict(summary("n", "192.0.2.0"), role_text="Network"), dict(summary("g", "192.0.2.1"), role_text="Gateway"),
        dict(summary("u2", "192.0.2.2"), **inactive),
        dict(summary("r3", "192.0.2.3"), role_text="Default", _status="In progress"),       # a reservation
        dict(summary("d4", "192.0.2.4"), role_text="Default", _status="Marked for deletion"),
        dict(summary("x5", "192.0.2.5", "a VM's"), **inactive),                           # described: used
        dict(summary("u6", "192.0.2.6"), **inactive)]})
    (prefix,) = observe(client, [Prefix(V4)])
    assert sorted(prefix.claimable) == ["192.0.2.2", "192.0.2.6"]
    assert prefix.taken() == ["192.0.2.0", "192.0.2.1", "192.0.2.3", "192.0.2.4", "192.0.2.5"]
    (_prefix, pool), = pools_for([prefix])
    assert pool.allocate(prefix.taken()) == "192.0.2.2"
    prefix.take("192.0.2.2", summary(NEW, "192.0.2.2"))
    assert "192.0.2.2" not in prefix.claimable and pool.allocate(prefix.taken()) == "192.0.2.6"


def test_a_tag_listing_that_matches_more_than_the_tag_is_confirmed_on_each_object():
    # An Engine whose tag_name matches substrings lists shop2's object for shop: it must not count.
    client = account(tags={"s1": ["anxlb-svc=shop"], "s2": ["anxlb-svc=shop2"], "s3": ["anxlb-svc=shop"]},
                     addresses={V4["identifier"]: [
                         summary("s1", "192.0.2.2", description("shop")), summary("s2", "192.0.2.3", description("shop2")),
                         summary("s3", "192.0.2.4", "renamed by hand")]}, tag_match="substring")
    (prefix,) = observe(client, [Prefix(V4)])
    tagged, untagged = owned(client, [prefix], "anxlb", "shop")
    assert [s["identifier"] for _p, _ip, s in tagged] == ["s1", "s3"] and untagged == []
    assert resource_reads(client) == ["s2", "s3"]   # the one with our exact description needs no read
