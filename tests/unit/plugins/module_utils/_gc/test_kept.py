"""gc's kept counts: on each resource's own tags, whatever the Engine's tag listing matches; tags already read
are not read again, each other listed resource once; one gone before its GET carries nothing."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import NotFoundError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._kept import kept_counts


class SubstringListing:
    """The Engine's resource listing by ``tag_name`` under substring matching, and resource GETs."""

    def __init__(self, tags, gone=()):
        self.tags = tags
        self.gone = set(gone)
        self.gets = []

    def map(self, fn, items):
        return [fn(i) for i in items]

    def resources_by_tag(self, tag):
        return [{"identifier": i} for i, names in sorted(self.tags.items()) if any(tag in n for n in names)]

    def resource_get(self, ident):
        self.gets.append(ident)
        if ident in self.gone:
            raise NotFoundError("not found", status=404, method="GET", path="/x")
        return {"identifier": ident, "tags": [{"name": n} for n in self.tags[ident]]}


def test_counts_only_exact_owner_tags_reading_each_unknown_resource_once():
    client = SubstringListing({
        "a": ["anxlb-svc=web"], "b": ["anxlb-svc=web", "xanxlb-svc=web"], "c": ["xanxlb-svc=web"],
        "d": ["anxlb-svc=web2"], "e": ["anxlb-svc=web2"], "lb": ["anxlb-reconciled.web=1", "anxlb-svc=web2x"],
        "f": ["anxlb-svc=web"]}, gone=["f"])
    known = {"lb": ["anxlb-reconciled.web=1", "anxlb-svc=web2x"], "a": ["anxlb-svc=web"]}
    assert kept_counts(client, ["web", "web2"], "anxlb", known) == {"web": 2, "web2": 2}
    assert sorted(client.gets) == ["b", "c", "d", "e", "f"]   # neither the known ones nor any twice


def test_no_kept_owner_costs_nothing():
    client = SubstringListing({"a": ["anxlb-svc=web"]})
    assert kept_counts(client, [], "anxlb", {}) == {} and client.gets == []
