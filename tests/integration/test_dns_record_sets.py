"""dns_record_sets against the local Engine with knot (issue 41): a zone's record sets in one changeset (one revision),
a rerun writes nothing, prune deletes exactly the owner's record sets the list left out and nothing else (a hand-made
record, another owner's, an immutable one, SOA and NS stay), check mode first writes nothing and predicts the run,
bad input fails before any request naming the entry, a prune over max_delete writes nothing, a changeset whose answer
was lost is not applied twice, the client's back-off on 429 carries a zone task through."""
import pytest

from .conftest import ForkedModule
from .dns_harness import RECORDS, ZONE, dns_engine, dns_seed, resolve, stored, zone_live  # noqa: F401  pylint: disable=unused-import

ZONE_PATH = "/api/clouddns/v1/zone.json/" + ZONE


@pytest.fixture
def dns_module(dns_engine, module_fork_server):
    return ForkedModule(dns_engine, module_fork_server)


def task(sets, **args):
    return dict(dict(zone=ZONE, owner="web", record_sets=sets), **args)


def a_sets(count, start=0):
    return [dict(name="h%d" % i, type="A", values=["127.0.1.%d" % (i + 1)], ttl=300) for i in range(start, start + count)]


def changesets(result, engine):
    return [e for e in result.requests(engine) if e["method"] == "POST" and e["path"].endswith("/changeset")]


def serials(engine):
    return [r["serial"] for r in engine.api("GET", ZONE_PATH).json()["revisions"]]


def test_fifty_record_sets_are_one_revision_and_prune_deletes_exactly_the_five_left_out(dns_engine, dns_module):
    # another owner's record, beside the seeded hand-made www A and the immutable pinned TXT
    blog = dns_module("dns_record", dict(zone=ZONE, name="blog", type="A", values=["127.0.0.30"], owner="blog"))
    assert blog["changed"], blog
    sets = a_sets(50)
    before = serials(dns_engine)
    check = dns_module("dns_record_sets", task(sets), check=True, diff=True)
    assert check["changed"] and check.writes(dns_engine) == 0 and serials(dns_engine) == before, check
    assert len(check["plan"]) == 50 and check["summary"].endswith("50 record sets to create, 0 to change, 0 to delete, "
                                                                  "in one changeset")
    assert check["diff"]["before"] == ""
    assert "h49.local.test.:\n  A:\n  - {value: 127.0.1.50, ttl: 300, comment: anxlb-svc=web}" in check["diff"]["after"]

    real = dns_module("dns_record_sets", task(sets), diff=True)
    assert real["changed"] and len(changesets(real, dns_engine)) == 1 and real.writes(dns_engine) == 1, real
    after = serials(dns_engine)
    assert len([s for s in after if s > before[0]]) == 1   # one new revision
    assert real["plan"] == check["plan"] and real["record_sets"] == check["record_sets"] and real["diff"] == check["diff"]
    assert len([r for r in stored(dns_engine) if r[4] == "anxlb-svc=web"]) == 50
    assert resolve(dns_engine, "h49.local.test", "A") == ("NOERROR", ["127.0.1.50"], 300)

    rerun = dns_module("dns_record_sets", task(sets))
    assert rerun["changed"] is False and rerun.writes(dns_engine) == 0 and len(rerun.requests(dns_engine)) == 1

    kept = sets[5:]
    preview = dns_module("dns_record_sets", task(kept, prune=True), check=True, diff=True)
    assert preview.writes(dns_engine) == 0 and [p["name"] for p in preview["pruned"]] == ["h0", "h1", "h2", "h3", "h4"]
    assert all(e["pruned"] and e["action"] == "delete" for e in preview["plan"]) and len(preview["plan"]) == 5
    assert "h0.local.test.:" in preview["diff"]["before"] and preview["diff"]["after"] == ""
    pruned = dns_module("dns_record_sets", task(kept, prune=True))
    assert pruned["changed"] and len(changesets(pruned, dns_engine)) == 1, pruned
    body = changesets(pruned, dns_engine)[0]["body"]
    assert body["create"] == [] and sorted(d["name"] for d in body["delete"]) == ["h0", "h1", "h2", "h3", "h4"]
    assert pruned["plan"] == preview["plan"] and pruned["pruned"] == preview["pruned"]
    left = dict((entry["reason"], entry) for entry in pruned["left"])
    assert left["another owner's (anxlb-svc=blog)"]["record_sets"] == ["blog.local.test. A"]
    assert left["no owner mark (made by hand or by a task without owner)"]["record_sets"] == ["www.local.test. A"]
    assert left["immutable"]["record_sets"] == ["pinned.local.test. TXT"]
    assert left["the zone's own SOA and NS records"]["record_sets"] == ["local.test. NS", "local.test. SOA"]
    names = set((r[0], r[1]) for r in stored(dns_engine))
    assert {("blog", "A"), ("www", "A"), ("pinned", "TXT")} <= names and not any(("h%d" % i, "A") in names for i in range(5))
    assert len([n for n in names if n[0].startswith("h")]) == 45
    every = dns_engine.api("GET", RECORDS).json()
    assert [r["type"] for r in every if r["name"] == "@"].count("SOA") == 1 and any(r["type"] == "NS" for r in every)
    assert resolve(dns_engine, "h0.local.test", "A")[0] == "NXDOMAIN"
    assert dns_module("dns_record_sets", task(kept, prune=True)).writes(dns_engine) == 0


def test_a_change_of_some_record_sets_is_one_changeset_with_the_rest_untouched(dns_engine, dns_module):
    sets = a_sets(30)
    dns_module("dns_record_sets", task(sets))
    changed = [dict(s, values=["127.0.2.%d" % i]) if i < 20 else s for i, s in enumerate(sets)]
    real = dns_module("dns_record_sets", task(changed))
    assert len(real["plan"]) == 20 and len(changesets(real, dns_engine)) == 1 and real.writes(dns_engine) == 1
    body = changesets(real, dns_engine)[0]["body"]
    assert len(body["create"]) == 20 and len(body["delete"]) == 20
    assert resolve(dns_engine, "h3.local.test", "A")[1] == ["127.0.2.3"]
    assert resolve(dns_engine, "h25.local.test", "A")[1] == ["127.0.1.26"]


def test_prune_leaves_the_records_of_others_in_a_shared_rrset_and_a_ttl_change_to_its_owner(dns_engine, dns_module):
    dns_module("dns_record", dict(zone=ZONE, type="TXT", values=["v=spf1 -all"], owner="mail", others="keep"))
    dns_module("dns_record_sets", task([dict(type="TXT", values=["web-verification=1"], others="keep"),
                                        dict(name="api", type="A", values=["127.0.0.40"])]))
    pruned = dns_module("dns_record_sets", task([dict(name="api", type="A", values=["127.0.0.40"], ttl=600)], prune=True))
    assert [(e["name"], e["action"], e.get("pruned")) for e in sorted(pruned["plan"], key=lambda e: e["name"])] == [
        ("@", "update", True), ("api", "update", None)]
    assert stored(dns_engine, "@", "TXT") == [("@", "TXT", '"v=spf1 -all"', None, "anxlb-svc=mail")]
    assert resolve(dns_engine, "local.test", "TXT")[1] == ['"v=spf1 -all"']


BAD = [
    (dict(record_sets=[dict(name="www", values=["127.0.0.1"])]), "record_sets[0] (www without type): type is required"),
    (dict(record_sets=[dict(name="www.example.com.", type="A", values=["127.0.0.1"])]),
     "record_sets[0] (www.example.com. A): name 'www.example.com.' is not in zone local.test"),
    (dict(record_sets=[dict(name="x", type="A", values=["1.2.3.256"])]), "record_sets[0] (x A): values[0] '1.2.3.256'"),
    (dict(record_sets=[dict(name="x", type="A")]), "record_sets[0] (x A): values is required"),
    (dict(record_sets=[], prune=True, owner=None), "prune needs owner"),
    (dict(record_sets=[dict(name="WWW", type="a", values=["127.0.0.1"]), dict(name="x", type="A", values=["127.0.0.2"]),
                       dict(name="www.local.test.", type="A", values=["127.0.0.3"])]),
     "record_sets[0] and record_sets[2] both name www.local.test. A"),
    (dict(record_sets=[dict(name="x", type="TXT", values=["a"], others="keep")], owner=None), "others: keep needs owner"),
    (dict(record_sets=[dict(name="x", type="NS", values=["ns.example.com"])]), "record_sets[0] (x NS): type NS"),
    (dict(record_sets=[dict(name="x", type="A", values=["127.0.0.1"])], nameservers=["127.0.0.1@99999"],
          wait="served"), "nameservers[0] '127.0.0.1@99999' is not a name server"),
    (dict(record_sets=[dict(name="x", type="A", values=["127.0.0.1"])], max_delete=-1), "max_delete must be at least 0"),
]


@pytest.mark.parametrize("args,named", BAD, ids=[b[1][:40] for b in BAD])
def test_bad_input_fails_naming_the_entry_before_any_request(dns_engine, dns_module, args, named):
    failed = dns_module("dns_record_sets", dict(task([]), **args))
    assert named in failed.message(), failed
    assert failed.requests(dns_engine) == []


def test_a_prune_over_max_delete_writes_nothing_and_check_mode_shows_it(dns_engine, dns_module):
    dns_module("dns_record_sets", task(a_sets(4)))
    over = task([], prune=True, max_delete=3)
    check = dns_module("dns_record_sets", over, check=True)
    assert check["over_max_delete"] is True and len(check["pruned"]) == 4 and check.writes(dns_engine) == 0
    assert any("more than max_delete (3)" in str(w) for w in check["warnings"])
    failed = dns_module("dns_record_sets", over)
    assert "prune would delete 4 records, more than max_delete (3)" in failed.message()
    assert failed.writes(dns_engine) == 0 and len([r for r in stored(dns_engine) if r[0].startswith("h")]) == 4
    done = dns_module("dns_record_sets", dict(over, max_delete=4))
    assert done["changed"] and [r for r in stored(dns_engine) if r[0].startswith("h")] == []


def test_a_changeset_committed_before_its_answer_was_lost_is_not_applied_twice(dns_engine, dns_module):
    dns_engine.set_faults({"script": [{"method": "POST", "path": "/changeset", "commit_then": 504}]})
    real = dns_module("dns_record_sets", task(a_sets(5)))
    assert real["changed"] is True and [e["status"] for e in changesets(real, dns_engine)] == [504], real
    assert sorted(r[0] for r in stored(dns_engine) if r[4] == "anxlb-svc=web") == ["h0", "h1", "h2", "h3", "h4"]
    assert dns_module("dns_record_sets", task(a_sets(5))).writes(dns_engine) == 0


def test_the_clients_back_off_on_429_carries_a_zone_task_through(dns_engine, dns_module):
    """The Engine rate-limits the listing and the changeset (429 with Retry-After); the client waits and sends again,
    halves its requests in flight and says so; the changeset still lands once."""
    dns_engine.set_faults({"retry_after": 0.2, "script": [
        {"method": "GET", "path": "*/zone.json/local.test", "status": 429, "count": 1},   # the observation (wait)
        {"method": "POST", "path": "/changeset", "status": 429, "count": 2}]})
    real = dns_module("dns_record_sets", task(a_sets(3)))
    assert real["changed"] is True, real
    assert [e["status"] for e in changesets(real, dns_engine)] == [429, 429, 200]
    assert [e["status"] for e in real.requests(dns_engine) if e["path"].endswith("/zone.json/local.test")][:2] == [429, 200]
    assert any("rate-limited this task (HTTP 429)" in str(w) for w in real["warnings"])
    assert len([r for r in stored(dns_engine) if r[4] == "anxlb-svc=web"]) == 3


BIG = 10000


def test_a_no_op_of_200_record_sets_in_a_zone_of_10000_records_costs_at_most_2_requests(dns_engine, dns_module):
    """Issue 41, "Done when" (also a make bench row): one listing, whatever the number of record sets and the zone's
    size; the zone is filled with one changeset through the API (the seed's fill does the same for make bench)."""
    filled = dns_engine.api("POST", ZONE_PATH + "/changeset", json={"delete": [], "create": [
        dict(name="fill-%d" % i, type="A", rdata="10.0.%d.%d" % (i // 250, i % 250 + 1), ttl=0) for i in range(BIG)]})
    assert filled.status_code == 200, filled.text
    zone_live(dns_engine, timeout=60)
    sets = [dict(name="s%d" % i, type="A", values=["127.0.%d.%d" % (2 + i // 250, i % 250 + 1)]) for i in range(200)]
    created = dns_module("dns_record_sets", task(sets, wait_timeout=120))
    assert created["changed"] and len(changesets(created, dns_engine)) == 1, created
    rerun = dns_module("dns_record_sets", task(sets))
    assert rerun["changed"] is False and rerun.writes(dns_engine) == 0
    sent = rerun.requests(dns_engine)
    # with wait (the default) the zone itself, which holds its current revision's records and its state (issue 40)
    assert len(sent) <= 2 and [e["path"] for e in sent] == ["/api/clouddns/v1/zone.json/%s" % ZONE], sent
    assert len(stored(dns_engine)) >= BIG + 200


def test_the_user_guides_zone_task_runs_as_written(dns_engine, tmp_path):
    """docs/user-guide.md "A zone's record sets in one task" (knot's port put in for the guide's 5353): --check --diff
    writes nothing and predicts the real run, which is one changeset served by knot when it ends; the rerun changes
    nothing and reads the zone once."""
    from .conftest import Ansible
    from .test_dns_record import guide_block
    ansible = Ansible(dns_engine, tmp_path)
    path = tmp_path / "dns-zone.yml"
    path.write_text(guide_block("dns-zone").replace("127.0.0.1@5353", "127.0.0.1@%d" % dns_engine.dns_port))
    before = stored(dns_engine)
    check = ansible.playbook(str(path), check=True, diff=True)
    assert check.rc == 0 and check.writes(dns_engine, 0) == 0 and stored(dns_engine) == before, check.proc.stdout[-3000:]
    runs = ansible.playbooks([path, path], extra_args=["--diff"])   # the real run and the rerun, one start-up
    assert "shop.local.test.:\n  A:\n  - {value: 127.0.10.2, ttl: 300, comment: anxlb-svc=web}" in check[0]["diff"]["after"]
    real = runs.next()
    assert not real.failed(0), real
    assert [e["method"] for e in real.requests(dns_engine, 0)].count("POST") == 1
    for key in ("plan", "record_sets", "diff", "left"):
        assert real[0][key] == check[0][key], key
    assert real[0]["served"][0]["server"] == "127.0.0.1@%d" % dns_engine.dns_port
    assert resolve(dns_engine, "shop.local.test", "AAAA")[1] == ["fd00:10::2"]
    assert resolve(dns_engine, "static.local.test", "CNAME")[1] == ["shop.local.test."]
    again = runs.next()
    assert again.rc == 0 and not again[0]["changed"] and again.writes(dns_engine, 0) == 0
    reads = again.requests(dns_engine, 0)
    assert reads and all(e["method"] == "GET" and "/zone.json/" in e["path"] for e in reads)
