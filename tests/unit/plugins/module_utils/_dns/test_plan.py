"""The rrset plan (_dns/_plan.py): at most one action per rrset, one changeset; records by value; ttl and comment
compared only when asked; another owner's, immutable records never in a changeset; check mode's prediction."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import (
    DesiredRrset, changeset, comment_text, mark_of, observed_rrset, plan_rrset)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure

ZONE = "local.test"


def rec(rdata, ttl=None, comment=None, name="www", rtype="A", immutable=False):
    return dict(identifier="id-" + rdata, name=name, type=rtype, rdata=rdata, region="default", ttl=ttl, comment=comment,
                immutable=immutable)


def want(values, **kw):
    return DesiredRrset(ZONE, kw.pop("name", "www"), kw.pop("rtype", "A"), values, **kw)


def plan(records, desired):
    return plan_rrset(observed_rrset(ZONE, desired.name, desired.type, records), desired)


def test_in_sync_is_no_plan_whatever_the_ids_and_order():
    assert plan([rec("127.0.0.2", 300), rec("127.0.0.1", 300)], want(["127.0.0.1", "127.0.0.2"])) == []
    assert plan([rec("127.0.0.1", 300)], want(["127.0.0.1"], ttl=300)) == []


def test_a_new_rrset_is_one_create():
    (action,) = plan([], want(["127.0.0.1", "127.0.0.2"], ttl=60))
    assert action.op == "create" and action.deletes == []
    create, delete = changeset(action)
    assert delete == [] and [(c["rdata"], c["ttl"]) for c in create] == [("127.0.0.1", 60), ("127.0.0.2", 60)]


def test_a_ttl_change_deletes_and_creates_in_one_action():
    (action,) = plan([rec("127.0.0.1", 300), rec("127.0.0.2", 300)], want(["127.0.0.1", "127.0.0.2"], ttl=600))
    create, delete = changeset(action)
    assert action.op == "update" and [d["ttl"] for d in delete] == [300, 300] and [c["ttl"] for c in create] == [600, 600]
    assert action.changes == {"ttl": ([300], [600])}


def test_without_ttl_a_new_value_takes_the_rrsets_ttl_and_the_kept_record_stays():
    (action,) = plan([rec("127.0.0.1", 300)], want(["127.0.0.1", "127.0.0.2"]))
    create, delete = changeset(action)
    assert delete == [] and create == [dict(name="www", type="A", rdata="127.0.0.2", region="default", ttl=300, comment=None)]


def test_a_duplicate_is_deleted_keeping_the_one_that_fits():
    (action,) = plan([rec("127.0.0.1", 60), rec("127.0.0.1", 300)], want(["127.0.0.1"], ttl=300))
    create, delete = changeset(action)
    assert create == [] and [d["ttl"] for d in delete] == [60]
    assert "ttl or comment differs for 127.0.0.1" in action.reason


def test_deletes_match_the_stored_form():
    records = [rec('"say \\"hi\\""', rtype="TXT", name="t", ttl=None)]
    (action,) = plan(records, want(None, name="t", rtype="TXT", present=False))
    assert action.op == "delete"
    assert changeset(action)[1] == [dict(name="t", type="TXT", rdata='"say \\"hi\\""', region="default", ttl=0)]


def test_absent_with_values_removes_only_those():
    (action,) = plan([rec("127.0.0.1"), rec("127.0.0.2")], want(["127.0.0.2"], present=False))
    assert action.op == "update" and [d["rdata"] for d in action.deletes] == ["127.0.0.2"]
    assert plan([rec("127.0.0.1")], want(["127.0.0.2"], present=False)) == []


def test_the_owner_mark_in_the_comment():
    assert comment_text("shop", "anxlb", None) == "anxlb-svc=shop"
    assert comment_text("shop", "anxlb", "web") == "anxlb-svc=shop; web"
    assert comment_text(None, "anxlb", "web") == "web"
    assert mark_of("anxlb-svc=shop; web") == "anxlb-svc=shop" and mark_of("team-svc=x") == "team-svc=x"
    assert mark_of("hello world") is None and mark_of(None) is None and mark_of("a-svc=b c") is None


@pytest.mark.parametrize("desired", [
    want(["127.0.0.9"], owner="blog", comment="anxlb-svc=blog", compare_comment=True),
    want(["127.0.0.9"]),
    want(None, present=False, owner="blog", comment="anxlb-svc=blog", compare_comment=True),
    want(["127.0.0.1"], owner="blog", comment="anxlb-svc=blog", compare_comment=True),   # taking it over is a change
])
def test_another_owners_record_is_never_in_a_changeset(desired):
    with pytest.raises(Failure, match="belongs to owner 'shop'"):
        plan([rec("127.0.0.1", comment="team-svc=shop")], desired)


def test_an_owned_record_is_left_alone_by_a_task_that_keeps_it():
    assert plan([rec("127.0.0.1", comment="anxlb-svc=shop")], want(["127.0.0.1"])) == []


def test_an_immutable_record_is_never_in_a_changeset():
    with pytest.raises(Failure, match="immutable"):
        plan([rec("do not touch", rtype="TXT", name="p", immutable=True)], want(["other"], name="p", rtype="TXT"))


def test_check_mode_predicts_the_rrset_after_the_changeset():
    desired = want(["127.0.0.2"], ttl=60, owner="shop", comment="anxlb-svc=shop", compare_comment=True)
    world = observed_rrset(ZONE, "www", "A", [rec("127.0.0.1", 300)])
    after = plan_rrset(world, desired).predict(world)
    (obj,) = after.values()
    assert obj["values"] == ["127.0.0.2"]
    assert [(r["value"], r["ttl"], r["comment"]) for r in obj["records"]] == [("127.0.0.2", 60, "anxlb-svc=shop")]
