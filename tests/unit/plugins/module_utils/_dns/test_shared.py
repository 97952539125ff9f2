"""Shared rrsets (_dns/_plan.py, ``others: keep``): an owner manages only its own records of an rrset that others hold
values in too; their records are never in its changeset; one TTL per rrset (a ttl the others' records lack is refused).
"""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import (
    KEEP, DesiredRrset, changeset, check_others, observed_rrset, plan_rrset)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure

ZONE = "local.test"


def rec(value, owner=None, ttl=None, immutable=False, comment=None):
    text = comment if comment is not None else ("anxlb-svc=%s" % owner if owner else None)
    return dict(identifier="id-%s-%s" % (owner, value), name="@", type="TXT", rdata='"%s"' % value, region="default",
                ttl=ttl, comment=text, immutable=immutable)


def want(values, owner="a", present=True, ttl=None):
    return DesiredRrset(ZONE, "@", "TXT", ['"%s"' % v for v in values] if values is not None else None, present=present,
                        ttl=ttl, comment="anxlb-svc=%s" % owner, compare_comment=True, owner=owner, others=KEEP)


def plan(records, desired):
    return plan_rrset(observed_rrset(ZONE, "@", "TXT", records), desired)


def values(entries):
    return sorted((e["rdata"], e.get("comment")) for e in entries)


def test_an_owner_adds_its_value_beside_the_others_and_never_names_theirs():
    held = [rec("v=spf1 -all", "b"), rec("google-site-verification=x"), rec("pinned", immutable=True)]
    (action,) = plan(held, want(["ms=123"]))
    create, delete = changeset(action)
    assert action.op == "update" and delete == []
    assert values(create) == [('"ms=123"', "anxlb-svc=a")]
    assert sorted(r["value"] for r in action.records_after) == sorted(
        ['"ms=123"', '"v=spf1 -all"', '"google-site-verification=x"', '"pinned"'])
    assert "no record of owner 'a'" in action.reason


def test_a_change_and_a_removal_touch_only_the_owners_records():
    held = [rec("old", "a"), rec("v=spf1 -all", "b")]
    (change,) = plan(held, want(["new"]))
    create, delete = changeset(change)
    assert values(delete) == [('"old"', None)] and values(create) == [('"new"', "anxlb-svc=a")]
    (removal,) = plan(held, want(None, present=False))
    create, delete = changeset(removal)
    assert create == [] and [d["rdata"] for d in delete] == ['"old"']
    assert removal.op == "update" and [r["value"] for r in removal.records_after] == ['"v=spf1 -all"']
    assert plan([rec("v=spf1 -all", "b")], want(None, present=False)) == []   # nothing of a's: nothing to do


def test_a_value_another_owner_holds_too_is_held_once_per_owner():
    """Each owner holds its own record of the value: removing one owner's leaves the value served by the other's."""
    (action,) = plan([rec("shared", "b")], want(["shared"]))
    create, delete = changeset(action)
    assert delete == [] and values(create) == [('"shared"', "anxlb-svc=a")]
    assert plan([rec("shared", "b"), rec("shared", "a")], want(["shared"])) == []


def test_new_records_take_the_rrsets_ttl_and_a_ttl_the_others_lack_is_refused():
    (action,) = plan([rec("v=spf1 -all", "b", ttl=600)], want(["x"]))
    assert [c["ttl"] for c in changeset(action)[0]] == [600]
    assert plan([rec("v=spf1 -all", "b", ttl=600), rec("x", "a", ttl=600)], want(["x"], ttl=600)) == []
    with pytest.raises(Failure) as failed:
        plan([rec("v=spf1 -all", "b", ttl=600)], want(["x"], ttl=300))
    assert "ttl 300 differs" in failed.value.msg and "\"v=spf1 -all\" (ttl 600, owner 'b')" in failed.value.msg
    with pytest.raises(Failure) as failed:
        plan([rec("hand", ttl=None)], want(["x"], ttl=300))
    assert '"hand" (ttl the zone\'s default, no owner mark)' in failed.value.msg


def test_without_keep_another_owners_record_still_fails_the_task():
    desired = DesiredRrset(ZONE, "@", "TXT", ['"x"'], comment="anxlb-svc=a", compare_comment=True, owner="a")
    with pytest.raises(Failure) as failed:
        plan([rec("v=spf1 -all", "b")], desired)
    assert "belongs to owner 'b'" in failed.value.msg


@pytest.mark.parametrize("others,owner,rtype,named", [
    ("keep", None, "TXT", "others: keep needs owner"),
    ("keep", "a", "CNAME", "others: keep is not for a CNAME"),
    ("share", "a", "TXT", "others must be one of fail, keep"),
])
def test_the_option_is_checked_before_any_request(others, owner, rtype, named):
    with pytest.raises(Failure) as failed:
        check_others(others, owner, rtype, "record_sets[1] (www TXT): ")
    assert failed.value.msg.startswith("record_sets[1] (www TXT): ") and named in failed.value.msg


def test_a_record_of_the_same_owner_name_under_another_tag_prefix_is_named_with_its_prefix():
    desired = DesiredRrset(ZONE, "@", "TXT", ['"x"'], comment="anxlb-svc=a", compare_comment=True, owner="a")
    with pytest.raises(Failure) as failed:
        plan([rec("notes", comment="team-svc=a")], desired)
    assert "belongs to owner 'a' of tag prefix 'team'" in failed.value.msg
