"""dns_record against the local Engine with knot (issue 29): check mode writes nothing and predicts the real run,
a rerun writes nothing, a TTL change is one changeset leaving one record per value, TXT with spaces and quotes
is idempotent, bad input fails naming the option before any write, other owners' records are left alone."""
import pytest

from .conftest import ForkedModule, Module
from .dns_harness import RECORDS, ZONE, dns_engine, dns_seed, resolve, stored, zone_live  # noqa: F401  pylint: disable=unused-import


@pytest.fixture
def dns_module(dns_engine, module_fork_server):
    """Module processes forked from a server that imported Ansible's module base once (``ForkedModule``)."""
    return ForkedModule(dns_engine, module_fork_server)


def record(**args):
    return dict(dict(zone=ZONE), **args)


def changesets(result, engine):
    return [e for e in result.requests(engine) if e["method"] == "POST" and e["path"].endswith("/changeset")]


CASES = [
    # type, name, values as written, the same values as the Engine reads them back normalised, a second spelling
    ("A", "app", ["127.0.0.7", "127.0.0.8"], ["127.0.0.7", "127.0.0.8"], ["127.0.0.8", "127.0.0.7"]),
    ("AAAA", "v6", ["FD00:0010::0005"], ["fd00:10::5"], ["fd00:10:0:0::5"]),
    ("CNAME", "alias", ["WWW.local.test"], ["www.local.test."], ["www.local.test."]),
    ("TXT", "txt", ['say "hi" to everyone', "v=spf1 -all"], ['"say \\"hi\\" to everyone"', '"v=spf1 -all"'],
     ['"say \\"hi\\" " "to everyone"', '"v=spf1 -all"']),
    ("MX", "@", ["10 Mail.Example.com", "20 mx2.example.com."], ["10 mail.example.com.", "20 mx2.example.com."],
     ["20  mx2.example.com", "10 mail.example.com."]),
]


@pytest.mark.parametrize("rtype,name,values,normal,respelt", CASES, ids=[c[0] for c in CASES])
def test_check_predicts_the_run_which_a_rerun_leaves_alone(dns_engine, dns_module, rtype, name, values, normal, respelt):
    task = record(name=name, type=rtype, values=values, ttl=120, owner="shop")
    before = stored(dns_engine)
    check = dns_module("dns_record", task, check=True, diff=True)
    assert check["changed"] is True and check.writes(dns_engine) == 0, check
    assert stored(dns_engine) == before
    assert [a["action"] for a in check["plan"]] == ["create"]

    real = dns_module("dns_record", task, diff=True)
    assert real["changed"] is True, real
    assert len(changesets(real, dns_engine)) == 1 and real.writes(dns_engine) == 1
    assert real["rrset"] == check["rrset"] and real["diff"] == check["diff"] and real["plan"] == check["plan"]
    assert real["rrset"]["values"] == sorted(normal)
    assert [r["comment"] for r in real["rrset"]["records"]] == ["anxlb-svc=shop"] * len(normal)
    fqdn = real["rrset"]["fqdn"]
    rcode, answers, ttl = resolve(dns_engine, fqdn, rtype)
    assert rcode == "NOERROR" and ttl == 120
    if rtype != "TXT":
        assert answers == sorted(normal)
    else:
        assert sorted(answers) == sorted(['"say \\"hi\\" to everyone"', '"v=spf1 -all"'])

    for again in (task, dict(task, values=respelt)):
        rerun = dns_module("dns_record", again)
        assert rerun["changed"] is False and rerun.writes(dns_engine) == 0, rerun
        assert len(rerun.requests(dns_engine)) == 1   # a no-op is one read: the rrset's records
        assert rerun["plan"] == [] and rerun["rrset"] == real["rrset"]


def test_a_ttl_change_is_one_changeset_and_leaves_one_record_per_value(dns_engine, dns_module):
    task = record(name="app", type="A", values=["127.0.0.7", "127.0.0.8"], ttl=300)
    dns_module("dns_record", task)
    check = dns_module("dns_record", dict(task, ttl=600), check=True, diff=True)
    assert check.writes(dns_engine) == 0 and [a["action"] for a in check["plan"]] == ["update"]
    assert check["plan"][0]["changes"] == {"ttl": {"before": [300], "after": [600]}}
    real = dns_module("dns_record", dict(task, ttl=600), diff=True)
    assert len(changesets(real, dns_engine)) == 1 and real.writes(dns_engine) == 1
    assert real["rrset"] == check["rrset"] and real["diff"] == check["diff"]
    assert stored(dns_engine, "app") == [("app", "A", "127.0.0.7", 600, None), ("app", "A", "127.0.0.8", 600, None)]
    assert resolve(dns_engine, "app.local.test", "A") == ("NOERROR", ["127.0.0.7", "127.0.0.8"], 600)
    # a value change: one changeset again, the kept value untouched; without ttl the rrset's TTL is kept
    real = dns_module("dns_record", record(name="app", type="A", values=["127.0.0.8", "127.0.0.9"]))
    assert len(changesets(real, dns_engine)) == 1
    assert stored(dns_engine, "app") == [("app", "A", "127.0.0.8", 600, None), ("app", "A", "127.0.0.9", 600, None)]


def test_a_value_held_twice_is_kept_once(dns_engine, dns_module):
    for _copy in range(2):
        dns_engine.api("POST", "/api/clouddns/v1/zone.json/%s/records" % ZONE,
                       json={"name": "dup", "type": "A", "rdata": "127.0.0.3", "region": "default", "ttl": None})
        from .dns_harness import zone_live
        zone_live(dns_engine)
    real = dns_module("dns_record", record(name="dup", type="A", values=["127.0.0.3"]))
    assert real["changed"] is True and len(changesets(real, dns_engine)) == 1
    assert stored(dns_engine, "dup") == [("dup", "A", "127.0.0.3", None, None)]


def test_absent_removes_values_or_the_rrset_and_check_mode_writes_nothing(dns_engine, dns_module):
    dns_module("dns_record", record(name="app", type="A", values=["127.0.0.7", "127.0.0.8"]))
    check = dns_module("dns_record", record(name="app", type="A", state="absent"), check=True, diff=True)
    assert check["changed"] is True and check.writes(dns_engine) == 0 and len(stored(dns_engine, "app")) == 2
    one = dns_module("dns_record", record(name="app", type="A", values=["127.0.0.8"], state="absent"))
    assert [a["action"] for a in one["plan"]] == ["update"] and stored(dns_engine, "app") == [
        ("app", "A", "127.0.0.7", None, None)]
    real = dns_module("dns_record", record(name="app", type="A", state="absent"), diff=True)
    assert [a["action"] for a in real["plan"]] == ["delete"] and stored(dns_engine, "app") == []
    assert real["rrset"]["records"] == [] and resolve(dns_engine, "app.local.test", "A")[0] == "NXDOMAIN"
    again = dns_module("dns_record", record(name="app", type="A", state="absent"))
    assert again["changed"] is False and again.writes(dns_engine) == 0


def test_another_owners_record_and_an_immutable_one_are_never_touched(dns_engine, dns_module):
    dns_module("dns_record", record(name="app", type="A", values=["127.0.0.7"], owner="shop"))
    before = stored(dns_engine)
    for args, named in ((dict(values=["127.0.0.9"], owner="blog"), "owner 'shop'"),
                        (dict(values=["127.0.0.9"]), "owner 'shop'"),
                        (dict(state="absent", owner="blog"), "owner 'shop'")):
        failed = dns_module("dns_record", record(name="app", type="A", **args))
        assert named in failed.message() and failed.writes(dns_engine) == 0
    failed = dns_module("dns_record", record(name="pinned", type="TXT", values=["other"]))
    assert "immutable" in failed.message() and failed.writes(dns_engine) == 0
    assert stored(dns_engine) == before
    # a record without a mark is adopted by naming its rrset: its comment gets the mark
    real = dns_module("dns_record", record(name="www", type="A", values=["127.0.0.5"], owner="shop", comment="web"))
    assert real["changed"] is True and stored(dns_engine, "www") == [("www", "A", "127.0.0.5", None, "anxlb-svc=shop; web")]


BAD = [
    (dict(type="SOA", values=["x"]), "type SOA"),
    (dict(type="NS", values=["ns.example.com"]), "type NS"),
    (dict(type="A", values=["1.2.3.256"]), "values[0]"),
    (dict(type="A", values=["127.0.0.1", "fd00::1"]), "values[1]"),
    (dict(type="A", name="a b", values=["127.0.0.1"]), "name 'a b'"),
    (dict(type="CNAME", values=["a.example.", "b.example."]), "values: a CNAME has one value"),
    (dict(type="A", values=["127.0.0.1"], owner="shop", comment="dns name of the service"),
     "comment: 'dns name of the service' marks the records a service writes"),
    (dict(type="A"), "values is required"),
    (dict(type="A", values=["127.0.0.1"], ttl=0), "ttl must be"),
    (dict(type="A", values=["127.0.0.1"], owner="bad owner"), "owner"),
    (dict(type="A", values=["127.0.0.1"], comment="x" * 250, owner="shop"), "comment is too long"),
    (dict(type="MX", values=["mail.example.com"]), "values[0]"),
]


@pytest.mark.parametrize("args,named", BAD, ids=[b[1] for b in BAD])
def test_bad_input_fails_naming_the_option_before_any_request(dns_engine, dns_module, args, named):
    failed = dns_module("dns_record", record(**args))
    assert named in failed.message(), failed
    assert failed.requests(dns_engine) == []


def test_an_unknown_zone_fails_naming_it(dns_engine, dns_module):
    failed = dns_module("dns_record", dict(zone="nowhere.test", type="A", values=["127.0.0.1"]))
    assert "zone: there is no CloudDNS zone nowhere.test" in failed.message() and failed.writes(dns_engine) == 0


def test_a_changeset_whose_answer_was_lost_is_not_sent_twice(dns_engine, dns_module):
    """The Engine committed the changeset, then the gateway answered 504: the module observes again, finds the
    records by value, and neither duplicates them nor writes again."""
    dns_engine.set_faults({"script": [{"method": "POST", "path": "/changeset", "commit_then": 504}]})
    real = dns_module("dns_record", record(name="app", type="A", values=["127.0.0.7", "127.0.0.8"]))
    assert real["changed"] is True and len(changesets(real, dns_engine)) == 1, real
    assert stored(dns_engine, "app") == [("app", "A", "127.0.0.7", None, None), ("app", "A", "127.0.0.8", None, None)]


def test_a_changeset_refused_by_a_gateway_is_planned_again_and_sent_once_more(dns_engine, dns_module):
    dns_engine.set_faults({"script": [{"method": "POST", "path": "/changeset", "status": 503}]})
    real = dns_module("dns_record", record(name="app", type="A", values=["127.0.0.7"]))
    assert real["changed"] is True and [e["status"] for e in changesets(real, dns_engine)] == [503, 200], real
    assert stored(dns_engine, "app") == [("app", "A", "127.0.0.7", None, None)]


def test_a_revision_that_fails_to_deploy_fails_the_task_naming_it(dns_engine, dns_module):
    dns_engine.set_faults({"deploy": [{"match": "local.*", "outcome": "error", "count": 1}]})
    failed = dns_module("dns_record", record(name="app", type="A", values=["127.0.0.7"]))
    assert "failed to deploy" in failed.message() and "local.test" in failed.message()
    assert failed["changed"] is True   # the changeset was written; the revision did not go live


def test_record_info_shows_values_owners_and_filters(dns_engine, dns_module):
    dns_module("dns_record", record(name="app", type="TXT", values=['say "hi"'], owner="shop", ttl=300))
    info = dns_module("dns_record_info", dict(zone="Local.Test.", name="APP"))
    assert info["records"] == [dict(name="app", fqdn="app.local.test.", type="TXT", value='"say \\"hi\\""',
                                    rdata='"say \\"hi\\""', ttl=300, comment="anxlb-svc=shop", mark="anxlb-svc=shop",
                                    owner="shop", immutable=False, region="default")]
    assert info.writes(dns_engine) == 0 and len(info.requests(dns_engine)) == 1
    other = dns_module("dns_record_info", dict(zone=ZONE, type="txt", tag_prefix="team"))
    assert [(r["name"], r["owner"], r["mark"], r["immutable"]) for r in other["records"]] == [
        ("app", None, "anxlb-svc=shop", False), ("pinned", None, None, True)]
    soa = dns_module("dns_record_info", dict(zone=ZONE, name="@", type="SOA"))
    assert [r["type"] for r in soa["records"]] == ["SOA"] and soa["records"][0]["immutable"] is True


def test_zone_info_lists_zones_and_one_zone_with_its_revision(dns_engine, dns_module):
    every = dns_module("dns_zone_info", {})
    assert [z["name"] for z in every["zones"]] == [ZONE] and every["zones"][0]["live"] is True
    one = dns_module("dns_zone_info", dict(name="LOCAL.test."))
    (zone,) = one["zones"]
    assert zone["state"] == "active" and zone["serial"] == zone["revisions"][0]["serial"] and zone["deployment_level"] == 100
    dns_module("dns_record", record(name="app", type="A", values=["127.0.0.7"]))
    after = dns_module("dns_zone_info", dict(name=ZONE))["zones"][0]
    assert after["serial"] > zone["serial"] and after["live"] is True   # dns_record waited for its revision
    missing = dns_module("dns_zone_info", dict(name="nowhere.test"))
    assert "name: there is no CloudDNS zone nowhere.test" in missing.message()


def guide_block(name):
    """The user guide's example ``name`` (a ``<!-- test: skip NAME: ... -->`` block run here instead)."""
    from .test_user_guide import BLOCKS
    (block,) = [b for b in BLOCKS if b.name == name]
    return block.text


def test_the_user_guides_record_by_hand_runs_as_written(dns_engine, tmp_path):
    """docs/user-guide.md "DNS records": --check --diff writes nothing and predicts the real run, the names resolve
    through knot when the run ends, the rerun changes nothing; module_defaults of the action group reach the modules."""
    from .conftest import Ansible
    ansible = Ansible(dns_engine, tmp_path)
    path = tmp_path / "dns.yml"
    path.write_text(guide_block("dns-record"))
    before = stored(dns_engine)
    check = ansible.playbook(str(path), check=True, diff=True)
    assert check.rc == 0, check.proc.stdout[-3000:]
    assert stored(dns_engine) == before and check.writes(dns_engine, 0) == 0 and check.writes(dns_engine, 1) == 0
    # the real run and the rerun: the playbook twice in one ansible-playbook run (one start-up), played one at a time
    runs = ansible.playbooks([path, path], extra_args=["--diff"])
    real = runs.next()
    assert not real.failed(0) and not real.failed(1), real
    for index in (0, 1):
        assert real[index]["rrset"] == check[index]["rrset"] and real[index]["diff"] == check[index]["diff"]
        assert real.writes(dns_engine, index) == 1
    assert resolve(dns_engine, "shop.local.test", "A") == ("NOERROR", ["127.0.10.2", "127.0.10.3"], 300)
    assert resolve(dns_engine, "shop.local.test", "TXT")[1] == ['"team \\"web\\" <web@example.com>"']
    assert stored(dns_engine, "shop", "TXT") == [("shop", "TXT", '"team \\"web\\" <web@example.com>"', None, "anxlb-svc=shop")]
    again = runs.next()
    assert again.rc == 0 and not again[0]["changed"] and not again[1]["changed"]
    assert again.writes(dns_engine, 0) + again.writes(dns_engine, 1) == 0


@pytest.fixture(scope="module")
def slow_dns_engine():
    """Revisions take 1.5 s to validate and deploy (is_editable false meanwhile)."""
    from localengine.testing import LocalEngine
    from .dns_harness import SEED, knotd, zone_live
    with LocalEngine(seed=SEED, dns=True, dns_deploy_delay=1.5, extra_args=["--knot-bin", knotd()]) as engine:
        zone_live(engine)
        yield engine


def test_module_defaults_of_the_group_and_a_zone_being_deployed(slow_dns_engine, tmp_path):
    """group/anxcloud.lbaas.lbaas sets the DNS modules' options too; a zone that is not editable (the revision of the
    task before still deploying) is waited for, not failed; with wait the task ends when its revision is live."""
    from .conftest import Ansible
    ansible = Ansible(slow_dns_engine, tmp_path)
    tasks = [
        {"anxcloud.lbaas.dns_record": {"zone": ZONE, "name": "a", "type": "A", "values": ["127.0.0.1"], "wait": False}},
        {"anxcloud.lbaas.dns_record": {"zone": ZONE, "name": "b", "type": "A", "values": ["127.0.0.2"]}},
        {"anxcloud.lbaas.dns_zone_info": {"name": ZONE}},
        {"anxcloud.lbaas.dns_record_info": {"zone": ZONE, "type": "A"}},
    ]
    defaults = {"group/anxcloud.lbaas.lbaas": {"wait_timeout": 60, "tag_prefix": "anxlb", "api_retries": 2}}
    run = ansible.run(tasks, play={"module_defaults": defaults})
    assert run.rc == 0, run.proc.stdout[-3000:]
    assert run[0]["changed"] and run[1]["changed"]
    # task 2 found the zone not editable (task 1's revision deploying), waited, and wrote once it could
    second = run.requests(slow_dns_engine, 1)
    assert [e["status"] for e in second if e["path"].endswith("/changeset")] == [200]
    zone_reads = [e for e in second if e["method"] == "GET" and e["path"].endswith("zone.json/" + ZONE)]
    assert len(zone_reads) > 2
    assert run[2]["zones"][0]["live"] is True   # task 2 waited for its revision
    assert [r["name"] for r in run[3]["records"]] == ["a", "b", "www"]
    assert resolve(slow_dns_engine, "b.local.test", "A")[1] == ["127.0.0.2"]


def test_two_runs_writing_one_zone_at_once_both_converge(slow_dns_engine):
    """Two module processes write one zone at the same moment: CloudDNS takes one changeset, refuses the other while
    that revision deploys; the refused one waits for the zone and writes then. Both end live, each rrset once."""
    from concurrent.futures import ThreadPoolExecutor
    from .dns_harness import zone_live
    zone_live(slow_dns_engine)
    module = Module(slow_dns_engine)
    tasks = [record(name=name, type="A", values=[value], wait_timeout=60)
             for name, value in (("one", "127.0.0.11"), ("two", "127.0.0.12"))]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda task: module("dns_record", task), tasks))
    assert all(r["changed"] for r in results), results
    assert stored(slow_dns_engine, "one") == [("one", "A", "127.0.0.11", None, None)]
    assert stored(slow_dns_engine, "two") == [("two", "A", "127.0.0.12", None, None)]
    assert resolve(slow_dns_engine, "one.local.test", "A")[1] == ["127.0.0.11"]
    assert resolve(slow_dns_engine, "two.local.test", "A")[1] == ["127.0.0.12"]
    # the two windows overlap, so the changesets are counted in the Engine's log: two landed, any other was refused
    sent = [e["status"] for r in results for e in changesets(r, slow_dns_engine)]
    landed = set((e["start"], e["status"]) for r in results for e in changesets(r, slow_dns_engine) if e["status"] == 200)
    assert len(landed) == 2 and set(sent) <= {200, 400}


BIG = 1000


def test_a_no_op_of_one_rrset_in_a_zone_of_1000_records_costs_at_most_2_requests(dns_engine, dns_module):
    """Issue 29, "Done when": the no-op reads only its rrset (the Engine filters by name and type), so its cost does
    not grow with the zone. The zone is seeded with one changeset through the API, not 1,000 module runs."""
    seeded = dns_engine.api("POST", "/api/clouddns/v1/zone.json/%s/changeset" % ZONE, json={"delete": [], "create": [
        dict(name="h%d" % i, type="A", rdata="10.0.%d.%d" % (i // 250, i % 250 + 1), ttl=300,
             comment="bench") for i in range(BIG)]})
    assert seeded.status_code == 200, seeded.text
    zone_live(dns_engine)
    task = record(name="app", type="A", values=["127.0.0.7", "127.0.0.8"], ttl=300)
    dns_module("dns_record", task)
    assert len(stored(dns_engine)) >= BIG + 2
    rerun = dns_module("dns_record", task)
    assert rerun["changed"] is False and rerun.writes(dns_engine) == 0, rerun
    sent = rerun.requests(dns_engine)
    # Issue 40: with wait (the default) the no-op must know the zone's newest revision is live (a failed one is
    # redeployed, _revision), so it reads the zone, whose answer holds its current revision's records too: one request.
    assert [e["path"] for e in sent] == ["/api/clouddns/v1/zone.json/%s" % ZONE], sent
    assert rerun["rrset"]["values"] == ["127.0.0.7", "127.0.0.8"]
    # Without wait there is no promise about what is served: only the name's records, filtered by the Engine (of every
    # type, as a CNAME stands alone: the real run's refusal of one beside other records is check mode's too)
    unwaited = dns_module("dns_record", dict(task, wait=False))
    reads = [e["path"] for e in unwaited.requests(dns_engine)]
    assert unwaited["changed"] is False and len(reads) == 1, reads
    assert all(p.endswith("/records?name=app") for p in reads), reads   # never the whole zone


# ---- issue 40: what the Engine refuses, check mode refuses too; names, marks, TXT bytes, a zone gone ---------------

REFUSED = [
    # the Engine's TTL range is 60-604800 (tests/engine/README.md "Checks"): check mode must not promise what it refuses
    (dict(name="app", type="A", values=["127.0.0.1"], ttl=30), "ttl"),
    (dict(name="app", type="A", values=["127.0.0.1"], ttl=604801), "ttl"),
    # a name whose FQDN is over 253 characters (labels of 63 and fewer are fine each)
    (dict(name=".".join(["a" * 60] * 4), type="A", values=["127.0.0.1"]), "name"),
    # a CNAME at the apex is no alias (the zone's SOA and NS are there)
    (dict(name="@", type="CNAME", values=["www.example.com"]), "CNAME"),
    # a name written fully qualified without its trailing dot would be web.local.test.local.test
    (dict(name="web.local.test", type="A", values=["127.0.0.1"]), "name 'web.local.test'"),
    (dict(name="LOCAL.test", type="A", values=["127.0.0.1"]), "name 'LOCAL.test'"),
    # a mark written by hand without owner would make the records another owner's
    (dict(name="app", type="A", values=["127.0.0.1"], comment="anxlb-svc=cart"), "owner"),
    (dict(name="app", type="A", values=["127.0.0.1"], comment="team-svc=cart; by hand"), "owner"),
]


@pytest.mark.parametrize("args,named", REFUSED, ids=[r[1] + "-%d" % i for i, r in enumerate(REFUSED)])
def test_what_the_engine_refuses_fails_in_check_mode_too_before_any_request(dns_engine, dns_module, args, named):
    before = stored(dns_engine)
    for check in (True, False):
        failed = dns_module("dns_record", record(**args), check=check)
        assert named in failed.message(), failed
        assert failed.requests(dns_engine) == [], failed.requests(dns_engine)
    assert stored(dns_engine) == before


def test_a_cname_beside_other_records_of_its_name_fails_in_check_mode_too_before_any_write(dns_engine, dns_module):
    """www holds an A record (seeds/dns.yml): a CNAME there, or an A beside a CNAME, is refused by the Engine; check mode
    says so as the real run does, naming the records in the way, and nothing is written."""
    assert not dns_module("dns_record", record(name="alias", type="CNAME", values=["www.local.test"])).failed
    before = stored(dns_engine)
    for args, held in ((dict(name="www", type="CNAME", values=["other.example.com"]), "A 127.0.0.5"),
                       (dict(name="alias", type="TXT", values=["hello"]), "CNAME www.local.test.")):
        for check in (True, False):
            failed = dns_module("dns_record", record(**args), check=check)
            assert "CNAME" in failed.message() and held in failed.message(), failed
            assert failed.writes(dns_engine) == 0
    assert stored(dns_engine) == before
    # removing the records of a name is no clash, nor is the CNAME itself again
    assert not dns_module("dns_record", record(name="alias", type="CNAME", values=["www.local.test."])).failed
    assert not dns_module("dns_record", record(name="www", type="TXT", state="absent")).failed


def knot_txt(engine, name):
    """The TXT strings knot answers for ``name``, each record's strings joined and decoded as UTF-8."""
    import dns.message
    import dns.query
    answer = dns.query.tcp(dns.message.make_query(name, "TXT"), "127.0.0.1", port=engine.dns_port, timeout=3)
    return sorted(b"".join(r.strings).decode("utf-8") for rrset in answer.answer for r in rrset)


def test_a_non_ascii_txt_is_split_on_character_boundaries(dns_engine, dns_module):
    """300 two-byte characters are 600 bytes: split into strings of at most 255 bytes, none inside a character, so the
    changeset is valid UTF-8 (JSON), the Engine stores it, knot serves it whole and the rerun writes nothing."""
    value = "ä" * 300
    real = dns_module("dns_record", record(name="txt", type="TXT", values=[value]))
    assert not real.failed and real["changed"], real
    (stored_txt,) = [r[2] for r in stored(dns_engine, "txt")]
    assert [len(s.encode("utf-8")) for s in stored_txt[1:-1].split('" "')] == [254, 254, 92], stored_txt
    assert knot_txt(dns_engine, "txt.local.test.") == [value]
    again = dns_module("dns_record", record(name="txt", type="TXT", values=[value]))
    assert not again.failed and again["changed"] is False and again.writes(dns_engine) == 0, again


def test_absent_in_a_zone_that_is_gone_is_ok_with_a_warning(dns_engine, dns_module):
    from .conftest import warning_texts
    for check in (True, False):
        gone = dns_module("dns_record", dict(zone="gone.test", name="app", type="A", state="absent"), check=check)
        assert not gone.failed and gone["changed"] is False and gone.writes(dns_engine) == 0, gone
        assert any("gone.test" in w for w in warning_texts(gone.result)), gone
    # present still fails naming the zone
    present = dns_module("dns_record", dict(zone="gone.test", name="app", type="A", values=["127.0.0.1"]))
    assert "no CloudDNS zone gone.test" in present.message()
