"""The zone task's pure part (_dns/_record_sets.py) and its one changeset (_dns/_changeset.py): entries checked as
dns_record checks its options and named in messages, one entry per name and type, prune only of the owner's records
(never SOA, NS, immutable, unmarked or another owner's), what it leaves counted per reason, the cap, and the plan
written as one changeset whose lost answer is an open outcome."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._changeset import ZoneChangeset
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._record_sets import (
    LISTED, PRUNE_REASON, RecordSetsRequest, ZoneListing, cap_failure, left_behind, plan_sets, pruned_records)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._request import RecordSetsOptions
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import (
    EngineConnectionError, ValidationFailedError)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import Interrupted

ZONE = "example.com"


def params(sets, **kw):
    """The task's options as the module passes them (the spec's defaults for what is left out)."""
    return RecordSetsOptions(**dict(dict(zone=ZONE, record_sets=sets, owner="web"), **kw))


def rec(name, rtype, rdata, comment=None, immutable=False, ttl=None):
    return dict(identifier="id", name=name, type=rtype, rdata=rdata, region="default", ttl=ttl, comment=comment,
                immutable=immutable)


ZONE_RECORDS = [
    rec("@", "SOA", "ns1.example.com. hostmaster.example.com. 1 3600 600 604800 300", immutable=True),
    rec("@", "NS", "ns1.example.com.", immutable=True),
    rec("sub", "NS", "ns.elsewhere.net.", comment="anxlb-svc=web"),
    rec("www", "A", "192.0.2.1", comment="anxlb-svc=web"),
    rec("old", "A", "192.0.2.9", comment="anxlb-svc=web"),
    rec("old", "A", "192.0.2.8", comment="anxlb-svc=blog"),
    rec("gone", "TXT", '"x"', comment="anxlb-svc=web; note"),
    rec("pinned", "A", "192.0.2.7", comment="anxlb-svc=web", immutable=True),
    rec("hand", "A", "192.0.2.6"),
    rec("other", "A", "192.0.2.5", comment="team-svc=web"),
]


def test_entries_are_checked_and_named_and_one_per_name_and_type():
    request = RecordSetsRequest(params([dict(name="WWW", type="a", values=["192.0.2.1"])]))
    (desired,) = request.sets
    assert (desired.name, desired.type, desired.values, desired.comment) == ("www", "A", ["192.0.2.1"], "anxlb-svc=web")
    for sets, named in (
            ([dict(name="www", type=None, values=["192.0.2.1"])], "record_sets[0] (www without type): type is required"),
            ([dict(name="a", type="A", values=["192.0.2.1"]), dict(name="a.example.com.", type="A", values=["192.0.2.2"])],
             "record_sets[0] and record_sets[1] both name a.example.com. A"),
            ([dict(name="a", type="A", values=["x"])], "record_sets[0] (a A): values[0] 'x' is not a valid A value"),
            ([dict(name="a", type="CNAME", values=["b.example.com", "c.example.com"])], "record_sets[0] (a CNAME): values: a CNAME")):
        with pytest.raises(Failure) as failed:
            RecordSetsRequest(params(sets))
        assert named in failed.value.msg
    with pytest.raises(Failure, match="prune needs owner"):
        RecordSetsRequest(params([], owner=None, prune=True))


def test_one_listing_filtered_by_what_every_entry_shares_unless_prune():
    one = [dict(name="a", type="A", values=["192.0.2.1"]), dict(name="b", type="A", values=["192.0.2.2"])]
    assert RecordSetsRequest(params(one)).listing_filter() == {"rtype": "A"}
    assert RecordSetsRequest(params(one[:1])).listing_filter() == {"name": "a", "rtype": "A"}
    assert RecordSetsRequest(params(one, prune=True)).listing_filter() == {}
    assert RecordSetsRequest(params(one[:1] + [dict(name="a", type="TXT", values=["t"])])).listing_filter() == {"name": "a"}


def test_prune_deletes_only_the_owners_deletable_records_of_unnamed_rrsets():
    request = RecordSetsRequest(params([dict(name="www", type="A", values=["192.0.2.1"])], prune=True))
    state = ZoneListing(request, ZONE_RECORDS)
    plan = plan_sets(state, request)
    assert sorted((a.obj["name"], a.op, [d["value"] for d in a.deletes]) for a in plan) == [
        ("gone", "delete", ['"x"']), ("old", "update", ["192.0.2.9"])]
    assert all(a.pruned and a.reason == PRUNE_REASON for a in plan) and pruned_records(plan) == 2
    left = dict((e["reason"], (e["records"], e["record_sets"])) for e in left_behind(state, request))
    assert left == {
        "the zone's own SOA and NS records": (2, ["example.com. NS", "example.com. SOA"]),
        "an NS delegation (never managed or pruned)": (1, ["sub.example.com. NS"]),
        "immutable": (1, ["pinned.example.com. A"]),
        "no owner mark (made by hand or by a task without owner)": (1, ["hand.example.com. A"]),
        "another owner's (anxlb-svc=blog)": (1, ["old.example.com. A"]),
        "another owner's (team-svc=web)": (1, ["other.example.com. A"]),
    }
    without = RecordSetsRequest(params([dict(name="www", type="A", values=["192.0.2.1"])]))
    state = ZoneListing(without, ZONE_RECORDS)
    assert plan_sets(state, without) == []
    assert dict((e["reason"], e["records"]) for e in left_behind(state, without))[
        "this owner's, not in record_sets (prune is off)"] == 2


def test_left_names_the_first_record_sets_and_counts_the_rest():
    request = RecordSetsRequest(params([]))
    state = ZoneListing(request, [rec("h%03d" % i, "A", "192.0.2.1") for i in range(LISTED + 5)])
    (entry,) = left_behind(state, request)
    assert entry["records"] == LISTED + 5 and len(entry["record_sets"]) == LISTED and entry["more"] == 5


def test_the_cap_texts():
    assert "a real run stops there and writes nothing" in cap_failure(5, 3, True)
    assert "nothing was written" in cap_failure(5, 3, False) and "at least 5" in cap_failure(5, 3, False)


class Operations(ZoneChangeset):
    """The zone changeset's operations, its one ``send`` recorded (and answered by ``error``)."""

    def __init__(self, error=None):
        self.sent, self.error = [], error

    def send(self, zone, create, delete, refused, claimed=None):
        self.sent.append((zone, create, delete))
        if self.error is not None:
            raise refused(self.error) if isinstance(self.error, ValidationFailedError) else self.error


def planned():
    request = RecordSetsRequest(params([dict(name="a", type="A", values=["192.0.2.1"]), dict(name="www", type="A", values=[
        "192.0.2.2"])], prune=True))
    return plan_sets(ZoneListing(request, ZONE_RECORDS), request)


def test_the_whole_plan_is_one_changeset():
    ops = Operations()
    ops.write_all(None, planned())
    ((zone, create, delete),) = ops.sent
    assert zone == ZONE and sorted(c["rdata"] for c in create) == ["192.0.2.1", "192.0.2.2"]
    assert sorted(d["rdata"] for d in delete) == ['"x"', "192.0.2.1", "192.0.2.9"]


def test_a_lost_answer_is_an_open_outcome_and_a_refusal_names_the_entries():
    with pytest.raises(Interrupted):
        Operations(EngineConnectionError("dropped", may_have_landed=True)).write_all(None, planned())
    refusal = ValidationFailedError("The changeset was not applied", status=400,
                                    validation={"create[1].rdata": "bad", "delete[0].record": "No such record"})
    ops = Operations(refusal)
    with pytest.raises(Failure) as failed:
        ops.write_all(None, planned())
    ((_zone, create, delete),) = ops.sent
    assert "the Engine refused the changeset of zone example.com (2 to create, 3 to delete; nothing was written)" in \
        failed.value.msg
    assert "create of %s.example.com. A %s: bad" % (create[1]["name"], create[1]["rdata"]) in failed.value.msg
    assert "delete of %s.example.com. %s %s: No such record" % (delete[0]["name"], delete[0]["type"], delete[0]["rdata"]) \
        in failed.value.msg


def test_prune_spares_the_records_the_owners_service_writes_for_its_name():
    request = RecordSetsRequest(params([], prune=True))
    records = [rec("shop", "A", "192.0.2.5", comment="anxlb-svc=web; dns name of the service"),
               rec("shop", "A", "192.0.2.5", comment="anxlb-svc=web; an alias"),
               rec("only", "A", "192.0.2.6", comment="anxlb-svc=web; dns name of the service")]
    state = ZoneListing(request, records)
    (action,) = plan_sets(state, request)
    assert [(d["value"], d["comment"]) for d in action.deletes] == [("192.0.2.5", "anxlb-svc=web; an alias")]
    assert action.op == "update" and [r["comment"] for r in action.records_after] == [
        "anxlb-svc=web; dns name of the service"]
    assert dict((e["reason"], e["records"]) for e in left_behind(state, request)) == {
        "the service's own DNS name (its dns option manages it)": 2}
