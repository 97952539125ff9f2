"""The plan order follows from the kinds' declarations (parent, links, ``names``), never from a list:
the declared kinds keep the order plans have always had, and a kind declared tomorrow with a parent
finds its place with no edit anywhere."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model import _kind
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kind import CREATE, DELETE, create_order, delete_order
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS, LbaasKind, _str


class _Action:
    def __init__(self, op):
        self.op = op


def test_declared_kinds_keep_the_order_plans_had():
    assert create_order(KINDS.values()) == ["loadbalancer", "backend", "frontend", "bind", "server", "acl", "rule"]
    assert delete_order(KINDS.values()) == ["rule", "acl", "bind", "server", "frontend", "backend", "loadbalancer"]
    assert dict((k, v.delete_level) for k, v in KINDS.items()) == {
        "loadbalancer": 4, "backend": 3, "frontend": 2, "bind": 0, "server": 0, "acl": 1, "rule": 0}


def test_every_kind_after_what_it_depends_on():
    creates, deletes = create_order(KINDS.values()), delete_order(KINDS.values())
    for kind in KINDS.values():
        for needed in kind.dependencies():
            assert creates.index(needed) < creates.index(kind.name), (kind.name, needed)
            assert deletes.index(kind.name) < deletes.index(needed), (kind.name, needed)


@pytest.fixture
def registry(monkeypatch):
    """A registry of its own, so the toy kinds leave the real one as it was."""
    monkeypatch.setattr(_kind, "_REGISTRY", dict(_kind._REGISTRY))


def test_a_new_kind_with_a_parent_gets_its_place_with_no_edit(registry):
    toy = LbaasKind("toy_header", "frontend", "frontend", {"header": _str})
    nested = LbaasKind("toy_value", "toy_header", "toy_header", {"value": _str}, names=("acl",))
    creates, deletes = create_order(), delete_order()
    assert creates.index("frontend") < creates.index("toy_header") < creates.index("toy_value")
    assert creates.index("acl") < creates.index("toy_value")
    assert deletes.index("toy_value") < deletes.index("toy_header") < deletes.index("frontend")
    assert deletes.index("toy_value") < deletes.index("acl")
    # ranks, as the plan sorts by them: created after its frontend, deleted before it
    assert KINDS["frontend"].rank(_Action(CREATE)) < toy.rank(_Action(CREATE)) < nested.rank(_Action(CREATE))
    assert nested.rank(_Action(DELETE)) < toy.rank(_Action(DELETE)) < KINDS["frontend"].rank(_Action(DELETE))
    # the applier's delete levels: the nested one's deletes, then the toy's, then the frontend's
    assert nested.delete_level < toy.delete_level < KINDS["frontend"].delete_level


def test_a_cycle_is_refused(registry):
    class Loop(_kind.Kind):
        pass
    first = Loop("toy_a", parent="x", parent_kind="toy_b")
    Loop("toy_b", parent="x", parent_kind="toy_a")
    with pytest.raises(ValueError, match="cycle"):
        create_order([first, _kind.kind_named("toy_b")])


def test_bookkeeping_kinds_follow_what_they_declare():
    """gc's markers go once the LBaaS objects they vouch for are gone, addresses once those and the markers are:
    declared as ``deleted_after``, in levels of their own, with no rank number."""
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._plan import ADDRESS
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._plan import MARKER_KIND
    deletes, creates = delete_order(), create_order()
    for kind in KINDS.values():
        assert deletes.index(kind.name) < deletes.index(MARKER_KIND.name) < deletes.index(ADDRESS.name)
        assert creates.index(kind.name) < creates.index(ADDRESS.name)
        assert kind.delete_level < MARKER_KIND.delete_level < ADDRESS.delete_level
        assert kind.rank(_Action(DELETE)) < MARKER_KIND.rank(_Action(DELETE)) < ADDRESS.rank(_Action("release"))
