"""gc's kept counts: on each resource's own tags, whatever the Engine's tag listing matches; tags already read
are not read again, each other listed resource once; one gone before its GET carries nothing."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._kept import kept_counts

from ..fakes import FakeClient


def substring_listing(tags, gone=()):
    """The fake Engine whose resource listing by ``tag_name`` matches substrings, holding ``tags``."""
    client = FakeClient(tag_match="substring")
    client.tags.update((ident, list(names)) for ident, names in tags.items())
    client.gone.update(gone)
    return client


def gets(client):
    return [c[2] for c in client.calls if c[:2] == ("GET", "resource")]


def test_counts_only_exact_owner_tags_reading_each_unknown_resource_once():
    client = substring_listing({
        "a": ["anxlb-svc=web"], "b": ["anxlb-svc=web", "xanxlb-svc=web"], "c": ["xanxlb-svc=web"],
        "d": ["anxlb-svc=web2"], "e": ["anxlb-svc=web2"], "lb": ["anxlb-reconciled.web=1", "anxlb-svc=web2x"],
        "f": ["anxlb-svc=web"]}, gone=["f"])
    known = {"lb": ["anxlb-reconciled.web=1", "anxlb-svc=web2x"], "a": ["anxlb-svc=web"]}
    assert kept_counts(client, ["web", "web2"], "anxlb", known) == {"web": 2, "web2": 2}
    assert sorted(gets(client)) == ["b", "c", "d", "e", "f"]   # neither the known ones nor any twice


def test_no_kept_owner_costs_nothing():
    client = substring_listing({"a": ["anxlb-svc=web"]})
    assert kept_counts(client, [], "anxlb", {}) == {} and gets(client) == []
