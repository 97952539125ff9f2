"""A service's names as safe as its load balancer objects (issue 40): the cases measured against the local Engine with
knot, each read back from the Engine's records and knot's answers (dnspython) and from the Engine's request log.

Written against main before the redesign (one run of parts, one plan, one lease), where each case but the gc of five
owners failed (the report of branch ``safety`` shows each failing assertion); each passes since.

Module processes where the module is the subject; one real ``ansible-playbook`` run where its printed output is
(``test_a_change_of_the_name_only_*``)."""
import json
import re
import time

import pytest
import yaml

from . import engine_state as es
from .conftest import ForkedModule, warning_texts
from ..contract.conftest import definition
from .dns_harness import ZONE, dns_engine, resolve, stored, wait_editable  # noqa: F401  pylint: disable=unused-import
# the Engine of seeds/dns_service.yml: lb1, lb2, the loopback prefix tagged anxlb-pool=demo, zone local.test with the
# hand-made record "byhand"; SVC: the comment of shop's records (its mark and the service's note)
from .test_service_dns import SVC, dns_seed, engine  # noqa: F401  pylint: disable=unused-import
ZONES = "/api/clouddns/v1/zone.json"
OTHER_ZONE = "other.test"   # made by ``other_zone``: the zone a service moves its name to
V4, V6 = "127.0.10.5", "fd00:10::5"


@pytest.fixture
def run(engine, module_fork_server):
    """Module processes forked from the session's server."""
    return ForkedModule(engine, module_fork_server)


def service(name="shop", lb="lb1", addresses=(V4, V6), port=8080, dns=None, **extra):
    """A service of ``name`` on ``lb`` with the name ``shop`` in local.test (or ``dns``; False: none)."""
    args = dict(name=name, load_balancers=[lb], addresses=list(addresses),
                ports=[dict(name="http", port=port, target_port=18080)], servers=[dict(name="n1", address="127.0.0.1")],
                dns=dict(zone=ZONE, name="shop", ttl=60) if dns is None else (dns or None))
    if not args["dns"]:
        del args["dns"]
    args.update(extra)
    return args


def made(result):
    assert not result.failed, result
    return result


def add_record(engine, name, rtype, value, comment=None, ttl=None, zone=ZONE):
    """A record written by hand through the API (as another tool, or a person, would), then the zone live again."""
    body = dict(name=name, type=rtype, rdata=value, comment=comment)
    if ttl:
        body["ttl"] = ttl
    engine.api("POST", "%s/%s/records" % (ZONES, zone), json=body).raise_for_status()
    wait_editable(engine, zone)


def records_in(engine, zone):
    """(name, type, rdata, ttl, comment) of a zone's records (SOA and NS left out)."""
    resp = engine.api("GET", "%s/%s/records" % (ZONES, zone))
    resp.raise_for_status()
    return sorted((r["name"], r["type"], r["rdata"], r["ttl"], r["comment"]) for r in resp.json()
                  if r["type"] not in ("SOA", "NS"))


def other_zone(engine):
    """A second zone, other.test, live (created through the API, as go-anxcloud's legacy client sends one)."""
    engine.api("POST", ZONES, json=definition(OTHER_ZONE)).raise_for_status()
    wait_editable(engine, OTHER_ZONE)


def answers(engine, name, rtype="A"):
    """The values knot answers for ``name`` (sorted), [] for none (NXDOMAIN or no data)."""
    return resolve(engine, name, rtype)[1]


def clouddns_writes(result, engine):
    return [e for e in result.requests(engine) if e["method"] != "GET" and "/clouddns/" in e["path"]]


def revision(engine, zone=ZONE):
    """(serial, state) of the zone's newest revision."""
    newest = engine.api("GET", "%s/%s" % (ZONES, zone)).json()["revisions"][0]
    return newest["serial"], newest["state"]


# ---- 1. gc leaves the names of every owner it leaves alone --------------------------------------------------------

def leased(engine):
    """lb2 held by another run's live lease."""
    es.tag(engine, es.lb_id(engine, "lb2"), "anxlb-lease=shop@ci-runner:7@%d" % (int(time.time()) + 600))
    return {}


LEFT_ALONE = {
    "leased": leased,                                   # shop's load balancer is leased by a running reconcile
    "younger than min_age": lambda engine: {"min_age": 3600},
    "outside load_balancers": lambda engine: {"load_balancers": ["lb1"]},
}


@pytest.mark.parametrize("why", sorted(LEFT_ALONE))
def test_gc_leaves_the_names_of_every_owner_it_leaves_alone(engine, run, why):
    made(run("service", service("web", "lb1", ["127.0.10.50"], dns=False)))   # alive
    made(run("service", service("shop", "lb2")))                             # not in keep, but left alone
    shop_records = stored(engine, "shop")
    assert [r[1] for r in shop_records] == ["A", "AAAA"]
    args = dict(keep=["web"], dns_zones=[ZONE], **LEFT_ALONE[why](engine))

    check = run("gc", args, check=True)
    assert not check.failed and check.writes(engine) == 0, check
    real = run("gc", args)
    assert not real.failed, real
    assert stored(engine, "shop") == shop_records, "gc deleted records of shop, an owner it left alone (%s)" % why
    assert answers(engine, "shop.local.test.", "A") == [V4] and answers(engine, "shop.local.test.", "AAAA") == [V6]
    assert clouddns_writes(real, engine) == [], "gc wrote to CloudDNS for an owner it left alone"


# ---- 2. keep knows an owner that has only names ------------------------------------------------------------------

def test_keep_accepts_an_owner_with_only_names_and_still_refuses_a_typo(engine, run):
    made(run("service", service("shop")))
    made(run("dns_record", dict(zone=ZONE, name="mail", type="A", values=["127.0.0.20"], owner="mail")))
    mail = stored(engine, "mail")
    assert mail == [("mail", "A", "127.0.0.20", None, "anxlb-svc=mail")]
    kept = stored(engine)

    for check in (True, False):
        accepted = run("gc", dict(keep=["shop", "mail"], dns_zones=[ZONE]), check=check)
        assert not accepted.failed, accepted   # on main: "keep names owner(s) that tag prefix 'anxlb' does not have: mail"
        assert accepted.writes(engine) == 0 and accepted["changed"] is False, accepted
    assert stored(engine) == kept and answers(engine, "mail.local.test.") == ["127.0.0.20"]

    for check in (True, False):
        typo = run("gc", dict(keep=["shop", "mial"], dns_zones=[ZONE]), check=check)
        assert "mial" in typo.message() and typo["keep_unmatched"] == ["mial"] and typo.writes(engine) == 0, typo
    assert stored(engine) == kept


# ---- 4. a revision that fails or never goes live ----------------------------------------------------------------

def task_of(module):
    """The module and the arguments of a task that writes the name shop (A 127.0.10.5): a service's, a dns_record's."""
    if module == "service":
        return "service", service(addresses=[V4], wait_timeout=2)
    return "dns_record", dict(zone=ZONE, name="shop", type="A", values=[V4], owner="shop", ttl=60, wait_timeout=2)


def redeployed_or_named(engine, rerun, failed_serial):
    """The rerun of a task whose revision did not go live: it wrote again and the name resolves now, or it failed
    naming the zone and the revision. Never rc 0 with nothing written while knot serves the old data."""
    if rerun.rc == 0:
        assert rerun.writes(engine) > 0, "rc 0 and 0 writes while knot does not serve the name: %r" % rerun
        assert answers(engine, "shop.local.test.") == [V4], rerun
    else:
        message = rerun.message()
        assert ZONE in message and str(failed_serial) in message, message


FAULTS = {
    "failed": {"deploy": [{"match": "local.*", "outcome": "error", "count": 1}]},
    "stuck": {"deploy": [{"match": "local.*", "outcome": "stuck", "count": 1}]},
}


@pytest.mark.parametrize("fault", ["failed", "stuck"])
@pytest.mark.parametrize("module", ["dns_record", "service"])
def test_the_rerun_after_a_revision_that_did_not_go_live_redeploys_or_fails(engine, run, module, fault):
    name, args = task_of(module)
    engine.set_faults(FAULTS[fault])
    first = run(name, args)
    assert first.failed, first
    assert "failed to deploy" in first.message() if fault == "failed" else "timed out" in first.message()
    serial, state = revision(engine)
    assert state == ("failed" if fault == "failed" else "deploying") and answers(engine, "shop.local.test.") == []
    rerun = run(name, args)
    redeployed_or_named(engine, rerun, serial)


@pytest.mark.parametrize("module", ["dns_record", "service"])
def test_a_lost_answer_then_a_failed_revision_is_no_success(engine, run, module):
    """The Engine committed the changeset and the answer was lost (504); its revision then failed to deploy. The run
    finds its records listed (the newest revision), but knot never serves them: it must not end rc 0 as if it did."""
    name, args = task_of(module)
    engine.set_faults({"script": [{"method": "POST", "path": "/changeset", "commit_then": 504}],
                       "deploy": [{"match": "local.*", "outcome": "error", "count": 1}]})
    first = run(name, args)
    faults = engine.admin("GET", "faults")
    assert [r["count"] for r in faults["script"] + faults["deploy"]] == [0, 0], faults   # both bit: answer lost, revision failed
    if first.rc == 0:   # only if it wrote the records again (a new revision) and they are served
        assert answers(engine, "shop.local.test.") == [V4], "rc 0 while knot does not serve the name: %r" % first
    else:   # or it fails naming the zone and the failed revision, still the newest
        serial, state = revision(engine)
        assert state == "failed" and ZONE in first.message() and str(serial) in first.message(), first


# ---- 5. state absent without dns: the marker remembers the name -------------------------------------------------

def test_absent_without_dns_removes_the_names_the_service_made(engine, run):
    made(run("service", service()))
    assert len([r for r in stored(engine) if r[4] == SVC]) == 2
    add_record(engine, "alias", "A", V4, comment="anxlb-svc=shop")   # a dns_record alias of the same owner: stays
    check = run("service", service(dns=False, state="absent"), check=True)
    assert not check.failed and check.writes(engine) == 0, check
    gone = run("service", service(dns=False, state="absent"))
    assert not gone.failed, gone
    assert [r for r in stored(engine) if r[4] == SVC] == [], "records of the service left behind"
    assert answers(engine, "shop.local.test.", "A") == [] and answers(engine, "shop.local.test.", "AAAA") == []
    assert stored(engine, "alias") == [("alias", "A", V4, None, "anxlb-svc=shop")]
    assert stored(engine, "byhand") == [("byhand", "A", "127.0.0.9", None, "made by hand")]


# ---- 6. a new zone, or dns removed: the old records go, and only those ------------------------------------------

def planned_deletes(result):
    """(zone, name, type) of the DNS deletes a run's plan names."""
    return sorted((a["zone"], a["name"], a["type"]) for a in result["plan"] if a.get("zone") and a["action"] == "delete")


def others_made(engine):
    """What is not the service's own in local.test: an alias a dns_record task made for shop (the owner's mark alone,
    no service note) and another service's name; neither may go when shop's name moves."""
    add_record(engine, "alias", "A", V4, comment="anxlb-svc=shop")
    add_record(engine, "cart", "A", "127.0.0.8", comment="anxlb-svc=cart; dns name of the service")
    return [r for r in stored(engine) if r[4] != SVC]


MOVES = {
    "to another zone": dict(zone=OTHER_ZONE, name="shop", ttl=60),
    "dns removed": False,
}


@pytest.mark.parametrize("move", sorted(MOVES))
def test_a_name_moved_away_leaves_none_of_its_records_and_nobody_elses(engine, run, move):
    other_zone(engine)
    made(run("service", service()))
    kept = others_made(engine)
    before = stored(engine)
    moved = service(dns=MOVES[move])

    check = run("service", moved, check=True, diff=True)
    assert not check.failed and check.writes(engine) == 0, check
    assert stored(engine) == before and records_in(engine, OTHER_ZONE) == []
    assert planned_deletes(check) == [(ZONE, "shop", "A"), (ZONE, "shop", "AAAA")], check["plan"]
    assert "shop.local.test." in check["diff"]["before"], check["diff"]["before"]

    real = run("service", moved)
    assert not real.failed, real
    assert planned_deletes(real) == planned_deletes(check)
    assert [r for r in stored(engine) if r[4] == SVC] == [], "the service's records stay in %s" % ZONE
    assert [r for r in stored(engine) if r[4] != SVC] == kept   # the alias with the mark alone, cart's name
    assert answers(engine, "shop.local.test.", "A") == [] and answers(engine, "shop.local.test.", "AAAA") == []
    assert answers(engine, "alias.local.test.") == [V4] and answers(engine, "cart.local.test.") == ["127.0.0.8"]
    if MOVES[move]:
        assert records_in(engine, OTHER_ZONE) == [("shop", "A", V4, 60, SVC), ("shop", "AAAA", V6, 60, SVC)]
        assert resolve(engine, "shop.other.test.", "A")[1] == [V4]
    else:
        assert records_in(engine, OTHER_ZONE) == []
    rerun = run("service", moved)
    assert not rerun.failed and rerun.writes(engine) == 0, rerun


# ---- 7. a dns_record of the owner and the service's name on one name ---------------------------------------------

def test_the_service_refuses_a_dns_record_of_its_owner_at_its_name_before_any_write(engine, run):
    """dns_record first (owner: shop, the owner's mark alone), then the service shop with dns on the same name and
    type: the service fails naming that record, before any write (its load balancer objects included)."""
    made(run("dns_record", dict(zone=ZONE, name="shop", type="A", values=["127.0.0.8"], owner="shop")))
    before, lbaas = stored(engine), es.snapshot(engine)
    for check in (True, False):
        refused = run("service", service(addresses=[V4]), check=check)
        assert refused.failed and refused.writes(engine) == 0, refused
        assert "127.0.0.8" in refused.message(), refused.message()
    assert stored(engine) == before and es.snapshot(engine) == lbaas
    assert answers(engine, "shop.local.test.") == ["127.0.0.8"]


def test_a_dns_record_of_the_owner_refuses_the_services_name_before_any_write(engine, run):
    """The service shop first, then a dns_record with owner shop on its name and type: it fails naming the service,
    before any write; the service's rerun then writes nothing."""
    made(run("service", service(addresses=[V4])))
    before = stored(engine)
    task = dict(zone=ZONE, name="shop", type="A", values=["127.0.0.8"], owner="shop")
    for check in (True, False):
        refused = run("dns_record", task, check=check)
        assert refused.failed and refused.writes(engine) == 0, refused
        assert "service" in refused.message() and "shop" in refused.message(), refused.message()
    assert stored(engine) == before and answers(engine, "shop.local.test.") == [V4]
    again = run("service", service(addresses=[V4]))
    assert not again.failed and again.writes(engine) == 0, again


# ---- 10. a hand-made twin of an owner's record -------------------------------------------------------------------

def test_gc_leaves_a_hand_made_twin_listed_before_the_owners_record(engine, run):
    add_record(engine, "shop", "A", V4, comment="made by hand", ttl=60)
    add_record(engine, "shop", "A", V4, comment=SVC, ttl=60)
    listed = engine.api("GET", "%s/%s/records" % (ZONES, ZONE), params={"name": "shop"}).json()
    assert [r["comment"] for r in listed] == ["made by hand", SVC]   # the twin first, as the Engine lists them
    args = dict(remove=["shop"], dns_zones=[ZONE])
    check = run("gc", args, check=True)
    assert not check.failed and check.writes(engine) == 0, check
    real = run("gc", args)
    assert not real.failed, real
    assert stored(engine, "shop") == [("shop", "A", V4, 60, "made by hand")], "gc deleted the hand-made twin"
    assert answers(engine, "shop.local.test.") == [V4]


# ---- 12. gc of owners with objects, addresses and names: one preview, one cap ------------------------------------

OWNERS = ("api", "cart", "mail", "pg", "shop")


def test_gc_of_five_owners_previews_and_caps_objects_addresses_and_names_as_one(engine, run):
    """Five owners, each with LBaaS objects on lb1, a pool address and a DNS name, one alive (web): check mode
    previews all of it in one tree (each owner's records under the owner's line), ``max_delete`` counts every object,
    address and record, and a real run capped one below writes nothing (the request log) and changes nothing."""
    made(run("service", service("web", dns=False, addresses=["127.0.10.50"], port=8079)))
    for index, owner in enumerate(OWNERS):
        address = made(run("ip_address", dict(pool=["anxlb-pool=demo"], owner=owner, family="v4")))["address_list"][0]
        made(run("service", service(owner, addresses=[address], port=8080 + index,
                                    dns=dict(zone=ZONE, name=owner, ttl=60))))
    per_owner = 4 + 1 + 1   # frontend, bind, backend, server; the address; the A record
    args = dict(keep=["web"], dns_zones=[ZONE], pools=["anxlb-pool=demo"])
    zone, lbaas = stored(engine), es.snapshot(engine)

    preview = run("gc", args, check=True, diff=True)
    assert not preview.failed and preview.writes(engine) == 0, preview
    assert preview["would_remove"] == per_owner * len(OWNERS), preview["summary"]
    lines = preview["diff"]["prepared"].splitlines()
    heads = [i for i, line in enumerate(lines) if not line.startswith(" ")]
    assert len(heads) == len(OWNERS), lines   # one line per owner, its objects, address and records under it
    for start, end in zip(heads, heads[1:] + [len(lines)]):
        owner = re.match(r"owner '(\w+)'", lines[start]).group(1)
        assert lines[start].startswith("owner '%s' is not in the live set: %d to remove" % (owner, per_owner)), lines[start]
        body = lines[start + 1:end]
        assert len(body) == per_owner and len([b for b in body if "zone %s: A %s.%s." % (ZONE, owner, ZONE) in b]) == 1, body
        assert len([b for b in body if "pool 127.0.10.0/24: address" in b]) == 1, body

    capped = run("gc", dict(args, max_delete=per_owner * len(OWNERS) - 1))
    assert capped.failed and capped.writes(engine) == 0, capped
    assert "more than max_delete (%d)" % (per_owner * len(OWNERS) - 1) in capped.message()
    assert capped["would_remove_by_owner"] == dict((owner, per_owner) for owner in OWNERS)
    assert stored(engine) == zone and es.snapshot(engine) == lbaas


# ---- 9. the summary and the diff see the name --------------------------------------------------------------------

def task_lines(stdout, task):
    """The lines ansible-playbook printed for ``task``: after its banner, up to the next banner or the recap."""
    lines = stdout.splitlines()
    (start,) = [i for i, line in enumerate(lines) if line.startswith("TASK [%s]" % task)]
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("TASK [", "PLAY [", "PLAY RECAP")))
    return lines[start + 1:end]


def role_service(address, rdns):
    return {"name": "shop", "load_balancers": ["lb1"], "address_pool": ["anxlb-pool=demo"],
            "ports": [dict(name="http", port=8080, target_port=18080)], "servers": [dict(name="n1", address="127.0.0.1")],
            "dns": dict(zone=ZONE, name="shop", ttl=120, rdns=rdns)}


def test_a_change_of_the_name_only_is_in_the_summary_and_in_the_services_diff(engine, run, ansible):
    """One ansible-playbook run with --diff: the service shop changes only its name's TTL (60 -> 120), then the role
    turns on the reverse name of the pool address it holds (``dns.rdns``), which only the address's rdns_name changes."""
    address = made(run("ip_address", dict(pool=["anxlb-pool=demo"], owner="shop", family="v4")))["address_list"][0]
    made(run("service", service(addresses=[address])))
    out = ansible.run([
        {"name": "Name only", "anxcloud.lbaas.service": service(addresses=[address], dns=dict(zone=ZONE, name="shop", ttl=120))},
        {"name": "Reverse name only", "ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"},
         "vars": {"lbaas_services": [role_service(address, rdns=True)]}}], diff=True)
    assert out.rc == 0, out
    assert out.task("Name only")["result"]["changed"] is True and stored(engine, "shop")[0][3] == 120
    assert answers(engine, "shop.local.test.") == [address] and resolve(engine, "shop.local.test.", "A")[2] == 120

    printed = task_lines(out.proc.stdout, "Name only")
    (header,) = [line for line in printed if line.startswith("+++ after")]
    assert re.search(r"shop\.local\.test\.?\W.*\b1 (to change|changed)", header), header   # the summary, as printed
    assert "-    A: [%s ttl=60]" % address in printed and "+    A: [%s ttl=120]" % address in printed, printed
    tree = yaml.safe_load(out.task("Name only")["result"]["diff"]["after"])
    assert "lb1" in tree and "shop.local.test." in json.dumps(tree), tree   # the name in the service's tree

    (allocation,) = out.task("Allocate pool addresses of shop")["result"]["results"]
    assert allocation["changed"] is True and allocation["addresses"][0]["rdns_name"] == "shop.local.test"
    (summary,) = [r["result"]["msg"] for r in out.records if r["task"].startswith("Summary of shop")]
    assert not [line for line in summary if "in sync, 0 planned action(s)" in line], summary


# ---- fixed here (issue 40, "Smaller"): the service's dns option refuses what the Engine refuses; a zone gone ---------

@pytest.mark.parametrize("dns,named", [
    (dict(zone=ZONE, name="shop.local.test"), "dns.name 'shop.local.test' ends with the zone local.test"),
    (dict(zone=ZONE, name=".".join(["a" * 60] * 4)), "is too long"),
    (dict(zone=ZONE, name="shop", ttl=59), "dns.ttl must be between 60 and 604800"),
])
def test_the_dns_option_refuses_in_check_mode_too_what_the_engine_refuses(engine, run, dns, named):
    for check in (True, False):
        refused = run("service", service(dns=dns), check=check)
        assert named in refused.message() and refused.requests(engine) == [], refused


def test_absent_with_dns_in_a_zone_that_is_gone_is_ok_with_a_warning(engine, run):
    made(run("service", service(dns=False)))
    gone = dict(zone="gone.test", name="shop")
    for check in (True, False):
        absent = run("service", service(dns=gone, state="absent"), check=check)
        assert not absent.failed, absent
        assert any("gone.test" in w for w in warning_texts(absent.result)), absent
    assert es.snapshot(engine) and not [o for o in es.objects(engine, "frontend") if o["name"] == "http.shop"]
    assert "no CloudDNS zone gone.test" in run("service", service(dns=gone)).message()
