"""gc's --diff text (pure): per owner one line with why it goes (and where its markers go), then one line per object
it loses and one per group that stays; at most one line per object (markers not counted) plus one per owner."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._gc._preview import preview


def entry(kind, name, owner, lb="lb1", prefix=None):
    out = dict(type=kind, name=name, id="x", owner=owner, reason="owner '%s' is not in the live set" % owner)
    if prefix:
        out.update(prefix=prefix)
    else:
        out.update(load_balancer=lb)
    return out


REMOVED = [entry("bind", "v4.http.api", "api"), entry("frontend", "http.api", "api"),
           entry("marker", "anxlb-reconciled.api=1,0.1.0,abc,1767225600", "api"),
           entry("address", "127.0.10.3", "api", prefix="127.0.10.0/24"), entry("backend", "http.old", "old", lb="lb2")]
SKIPPED = [dict(owner="api", reason="load balancer lb2 is leased by x@y:1", load_balancer="lb2",
                objects=[dict(type="bind", name="v4.http.api", id="b"), dict(type="frontend", name="http.api", id="f")]),
           dict(owner="Bad Owner", reason="not an owner id this collection writes (its tag is left alone)", objects=[])]
REASONS = {"api": "owner 'api' is not in the live set", "old": "owner 'old' is named in remove"}


def test_one_line_per_owner_then_one_per_object_and_one_per_group_that_stays():
    assert preview(REMOVED, SKIPPED, REASONS) == (
        "owner 'Bad Owner': 0 to remove; not an owner id this collection writes (its tag is left alone)\n"
        "owner 'api' is not in the live set: 3 to remove, 2 stay (and its marker on lb1)\n"
        "  - lb1: bind v4.http.api\n"
        "  - lb1: frontend http.api\n"
        "  - pool 127.0.10.0/24: address 127.0.10.3\n"
        "  = lb2: 2 stay (load balancer lb2 is leased by x@y:1)\n"
        "owner 'old' is named in remove: 1 to remove\n"
        "  - lb2: backend http.old\n")
    objects = len([e for e in REMOVED if e["type"] != "marker"]) + sum(len(s["objects"]) for s in SKIPPED)
    owners = len(set(e["owner"] for e in REMOVED + SKIPPED))
    assert len(preview(REMOVED, SKIPPED, REASONS).splitlines()) <= objects + owners


def test_a_real_run_says_removed_and_nothing_gives_no_text():
    assert preview(REMOVED[-1:], [], REASONS, done=True) == "owner 'old' is named in remove: 1 removed\n  - lb2: backend http.old\n"
    assert preview([], [], {}) == ""


def test_dns_records_are_lines_of_their_owner_in_their_zone():
    # as ``removed`` lists a DNS record (``_plan.removed_entries``)
    records = [dict(owner="old", zone="example.com", type="A", name="old.example.com. 203.0.113.7", id=None)]
    assert preview(REMOVED[-1:] + records, [], REASONS) == (
        "owner 'old' is named in remove: 2 to remove\n"
        "  - lb2: backend http.old\n"
        "  - zone example.com: A old.example.com. 203.0.113.7\n")
