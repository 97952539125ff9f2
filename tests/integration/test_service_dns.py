"""A service with a name (issue 29, point 3): ``dns: {zone, name, ttl}`` gives the service A and AAAA records of its
addresses, marked with its owner tag in the comment, in step when the addresses change, gone with the service; a
record of the name that is not ours is a conflict that fails before any write. Against the local Engine with
knot (the names are asked of it with dnspython); check mode writes nothing and predicts the real run."""
import os

import pytest

from .conftest import ForkedModule, ansible, side  # noqa: F401  pylint: disable=unused-import
from .dns_harness import ZONE, dns_engine, resolve, stored, zone_live  # noqa: F401  pylint: disable=unused-import

SVC = "anxlb-svc=shop; dns name of the service"   # the comment of the service's records: its mark and its note
SEED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine", "seeds", "dns_service.yml")


@pytest.fixture
def dns_seed():
    return SEED   # the DNS zone and the load balancers a service needs


@pytest.fixture
def engine(dns_engine):
    return dns_engine


@pytest.fixture
def service(engine, module_fork_server):
    return ForkedModule(engine, module_fork_server)


def shop(addresses=("127.0.10.5",), **extra):
    return dict(dict(name="shop", load_balancers=["lb1"], ports=[dict(name="http", port=8080, target_port=18080)],
                     addresses=list(addresses), servers=[dict(name="n1", address="127.0.0.1")],
                     dns=dict(zone=ZONE, name="shop", ttl=60)), **extra)


def converge(engine, service, args):
    """check (0 writes) -> real (the same plan and diff) -> rerun (no change, 0 writes); the real run's result."""
    check = service("service", args, check=True, diff=True)
    assert not check.failed, check
    assert check.writes(engine) == 0
    real = service("service", args, diff=True)
    assert not real.failed, real
    assert real["plan"] == check["plan"] and real["changed"] == check["changed"]
    assert real["dns"] == check["dns"] and real["diff"]["after"] == check["diff"]["after"]
    rerun = service("service", args, diff=True)
    assert rerun["changed"] is False and rerun.writes(engine) == 0, rerun
    assert rerun["dns"] == real["dns"] and rerun["diff"]["before"] == rerun["diff"]["after"]
    return real


def test_the_name_follows_the_addresses_and_goes_with_the_service(engine, service):
    real = converge(engine, service, shop(["127.0.10.5", "fd00:10::5"]))
    assert stored(engine, "shop") == [("shop", "A", "127.0.10.5", 60, SVC),
                                      ("shop", "AAAA", "fd00:10::5", 60, SVC)]
    assert real["dns"]["fqdn"] == "shop.local.test."
    assert resolve(engine, "shop.local.test.", "A")[:2] == ("NOERROR", ["127.0.10.5"])
    assert "shop.local.test." in real["diff"]["after"] and "127.0.10.5" in real["diff"]["after"]

    changed = converge(engine, service, shop(["127.0.10.6"]))   # a new address, the v6 one gone
    assert sorted(a["type"] for a in changed["plan"] if a.get("type") in ("A", "AAAA")) == ["A", "AAAA"]
    assert stored(engine, "shop") == [("shop", "A", "127.0.10.6", 60, SVC)]
    assert resolve(engine, "shop.local.test.", "A")[:2] == ("NOERROR", ["127.0.10.6"])

    gone = converge(engine, service, shop(state="absent"))
    assert gone["changed"] and stored(engine, "shop") == []
    assert resolve(engine, "shop.local.test.", "A")[0] == "NXDOMAIN"
    assert stored(engine, "byhand") == [("byhand", "A", "127.0.0.9", None, "made by hand")]


def test_a_no_op_costs_one_request_more_than_without_dns(engine, service):
    plain = dict(shop(), dns=None)   # (dns removed from a service deletes its records: so first without, then with)
    assert not service("service", plain).failed
    without = service("service", plain)
    converge(engine, service, shop())
    named = service("service", shop())
    assert not without["changed"] and not named["changed"]
    extra = len(named.requests(engine)) - len(without.requests(engine))
    assert extra == 1, (extra, named.requests(engine))   # target: at most 2
    # with wait (the default) the zone itself: its current revision's records and whether that revision is live
    # (issue 40: a failed revision is noticed by the no-op); without wait only the name's records
    assert [e["path"] for e in named.requests(engine) if "clouddns" in e["path"]] == ["/api/clouddns/v1/zone.json/local.test"]
    unwaited = service("service", dict(shop(), wait=False))
    assert not unwaited["changed"] and [e["path"] for e in unwaited.requests(engine) if "clouddns" in e["path"]] == [
        "/api/clouddns/v1/zone.json/local.test/records?name=shop"]


@pytest.mark.parametrize("comment", ["made by hand", "other-svc=cart"])
def test_a_record_of_the_name_not_ours_is_a_conflict_before_any_write(engine, service, comment):
    engine.api("POST", "/api/clouddns/v1/zone.json/%s/records" % ZONE,
               json=dict(name="shop", type="A", rdata="127.0.0.9", ttl=300, comment=comment)).raise_for_status()
    zone_live(engine)
    before = stored(engine, "shop")
    for check in (True, False):
        run = service("service", shop(), check=check)
        assert "held by records it does not own" in run.message() and "127.0.0.9" in run.message()
        assert run["dns_conflicts"][0]["value"] == "127.0.0.9" and run.writes(engine) == 0
    assert stored(engine, "shop") == before
    # state absent leaves the record that is not ours alone, with a warning
    absent = service("service", shop(state="absent"))
    assert not absent.failed and stored(engine, "shop") == before


@pytest.mark.parametrize("dns,named", [(dict(zone=ZONE, name="shop", ttl=30), "dns.ttl"),
                                       (dict(zone="", name="shop"), "dns")])
def test_a_bad_dns_option_fails_naming_it_before_any_request(engine, service, dns, named):
    run = service("service", shop(dns=dns))
    assert named in run.message() and run.writes(engine) == 0


def test_gc_removes_a_dead_owners_records_in_the_zones_it_is_told_of_and_nobody_elses(engine, service):
    converge(engine, service, shop(["127.0.10.5", "fd00:10::5"]))
    cart = dict(shop(["127.0.10.8"]), name="cart", ports=[dict(name="http", port=8081)], dns=dict(zone=ZONE, name="cart"))
    assert not service("service", cart).failed
    for name, comment in (("shop", None), ("legacy", "team-svc=shop")):
        engine.api("POST", "/api/clouddns/v1/zone.json/%s/records" % ZONE,
                   json=dict(name=name, type="TXT", rdata="kept", comment=comment)).raise_for_status()
        zone_live(engine)
    others = [r for r in stored(engine) if r[4] != SVC]
    args = dict(keep=["cart"], dns_zones=[ZONE])
    check = service("gc", args, check=True)
    assert not check.failed and check.writes(engine) == 0, check
    assert sorted((e["owner"], e["name"], e["type"]) for e in check["dns_removed"]) == [
        ("shop", "shop", "A"), ("shop", "shop", "AAAA")]
    real = service("gc", args)
    assert not real.failed and real["changed"] and real["dns_removed"] == check["dns_removed"], real
    assert stored(engine) == others   # the hand-made, the live owner's and another prefix's records stay
    rerun = service("gc", args)
    assert rerun["dns_removed"] == [] and rerun.writes(engine) == 0
    # without dns_zones gc reads no zone
    assert [e for e in service("gc", dict(keep=["cart"])).requests(engine) if "clouddns" in e["path"]] == []


def test_gc_counts_each_dns_record_in_max_delete_and_stops_before_any_write(engine, service):
    """A dead owner's records are objects gc deletes: each record counts against max_delete, the preview lists them,
    and over the cap the real run stops before its first write (LBaaS objects included) while check mode says so."""
    converge(engine, service, shop(["127.0.10.5", "fd00:10::5"]))
    assert not service("service", dict(shop(["127.0.10.8"]), name="cart", ports=[dict(name="http", port=8081)],
                                       dns=dict(zone=ZONE, name="cart"))).failed
    args = dict(keep=["cart"], dns_zones=[ZONE])
    full = service("gc", args, check=True)
    lbaas = len([e for e in full["removed"] if e["type"] != "marker" and "zone" not in e])
    assert lbaas > 0 and full["would_remove"] == lbaas + 2 and full["over_max_delete"] is False, full
    before = stored(engine)

    capped = dict(args, max_delete=lbaas + 1)   # the LBaaS objects alone fit: the two records make it too many
    check = service("gc", capped, check=True, diff=True)
    assert not check.failed and check.writes(engine) == 0, check
    assert check["over_max_delete"] is True and check["would_remove"] == lbaas + 2
    assert check["summary"].startswith("over max_delete (%d > %d), the real run would stop there" % (lbaas + 2, lbaas + 1))
    assert "zone local.test: 2 DNS record(s) to delete" in check["summary"], check["summary"]
    assert "DNS records" in str(check.result.get("warnings")), check.result.get("warnings")
    assert len(check["dns_removed"]) == 2
    preview = check["diff"]["prepared"]
    assert "%d to remove" % (lbaas + 2) in preview, preview
    assert "  - zone local.test: A shop.local.test. 127.0.10.5\n" in preview, preview
    assert "  - zone local.test: AAAA shop.local.test. fd00:10::5\n" in preview, preview

    real = service("gc", capped)
    assert real.failed and real.writes(engine) == 0, real
    assert "more than max_delete (%d)" % (lbaas + 1) in real.message() and "DNS records" in real.message()
    assert real["would_remove"] == lbaas + 2 and real["would_remove_by_owner"] == {"shop": lbaas + 2}
    assert stored(engine) == before

    done = service("gc", dict(args, max_delete=lbaas + 2))
    assert not done.failed and done["would_remove"] == lbaas + 2 and len(done["dns_removed"]) == 2, done
    assert [r for r in stored(engine) if r[0] == "shop"] == []


def test_service_info_shows_each_services_names_in_the_zones_asked_for(engine, service):
    converge(engine, service, shop(["127.0.10.5", "fd00:10::5"]))
    info = service("service_info", dict(load_balancers=["lb1"], dns_zones=[ZONE]))
    assert not info.failed, info
    (shop_info,) = [s for s in info["services"] if s["name"] == "shop"]
    assert shop_info["dns"] == [dict(zone=ZONE, name="shop", fqdn="shop.local.test.", type="A", values=["127.0.10.5"]),
                                dict(zone=ZONE, name="shop", fqdn="shop.local.test.", type="AAAA", values=["fd00:10::5"])]
    assert info.writes(engine) == 0
    plain = service("service_info", dict(load_balancers=["lb1"]))
    assert "dns" not in plain["services"][0]
    assert [e for e in plain.requests(engine) if "clouddns" in e["path"]] == []


V4_PREFIX = "0a11ce11000000000000000000000001"   # dns_service.yml: 127.0.10.0/24, tagged anxlb-pool=demo


def rdns_names(engine):
    """{address: rdns_name as the Engine answers it} of the prefix's address objects."""
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": V4_PREFIX, "page": 1, "limit": 1000})
    resp.raise_for_status()
    return dict((a["name"], engine.api("GET", "/api/ipam/v1/address.json/" + a["identifier"]).json()["rdns_name"])
                for a in resp.json()["data"]["data"])


def role_play(name, **dns):
    service = dict(name="shop", load_balancers=["lb1"], ports=[dict(name="http", port=8080, target_port=18080)],
                   address_pool=["anxlb-pool=demo"], servers=[dict(name="n1", address="127.0.0.1")],
                   dns=dict(dict(zone=ZONE, name=name, ttl=60), **dns))
    return [{"ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"},
             "vars": {"lbaas_services": [service]}}]


def allocation(run):
    """The result of the (only) loop item of the role's allocation task, and that task's index in the run."""
    record = run.task("Allocate pool addresses of shop")
    (item,) = record["result"]["results"]
    return item, run.records.index(record)


def test_the_role_names_its_pool_address_after_the_service_with_dns_rdns(engine, ansible, service):
    """dns.rdns: true (the role's key): the allocated address's reverse DNS name is the service's FQDN, set when it is
    allocated, predicted in check mode, left alone by a no-op (0 writes), kept in step when dns.name changes. The
    check-mode preview of that change is the ip_address module's own (a module process, with what the role passes
    it: the role's pass that applies it shows it passes the new name)."""
    session = ansible.session([(role_play("shop", rdns=True), {"check_mode": True, "diff": True}),
                               (role_play("shop", rdns=True), {"diff": True}),
                               (role_play("shop", rdns=True), {}),
                               (role_play("web", rdns=True), {}),
                               (role_play("web", rdns=False), {})])
    before = rdns_names(engine)   # the prefix's own objects (network, gateway, broadcast)
    check = session.next()
    item, index = allocation(check)
    assert item["changed"] is True and check.writes(engine, index) == 0, check
    assert rdns_names(engine) == before
    (predicted,) = item["addresses"]
    assert predicted["rdns_name"] == "shop.local.test"

    real = session.next()
    item, index = allocation(real)
    (address,) = item["address_list"]
    (got,) = item["addresses"]
    assert address == predicted["address"] and dict(got, id=None) == dict(predicted, id=None), real   # ids: new in check mode
    assert rdns_names(engine)[address].rstrip(".") == "shop.local.test"
    assert stored(engine, "shop") == [("shop", "A", address, 60, SVC)]

    rerun = session.next()
    item, index = allocation(rerun)
    assert item["changed"] is False and rerun.writes(engine, index) == 0, rerun
    assert not [r for r in rerun.records if r["result"].get("changed")], rerun

    # dns.name shop -> web, in check mode: the allocation's arguments as the role gave them, with the new name (the
    # role's pass below gives exactly these)
    passed = dict((k, v) for k, v in item["invocation"]["module_args"].items()
                  if k in ("pool", "owner", "family", "exclude", "tag_prefix"))
    renamed = service("ip_address", dict(passed, rdns_name="web.local.test"), check=True, diff=True)
    item = renamed.result
    assert not renamed.failed and item["changed"] is True and renamed.writes(engine) == 0, renamed
    assert [(a["action"], a["address"], a["reason"]) for a in item["plan"]] == [("update", address, "rdns_name differs")]
    assert item["addresses"][0]["rdns_name"] == "web.local.test"
    assert side(item, "before")["rdns_name"] == {address: "shop.local.test"}
    assert side(item, "after")["rdns_name"] == {address: "web.local.test"}
    assert rdns_names(engine)[address].rstrip(".") == "shop.local.test"

    real = session.next()
    item, index = allocation(real)
    assert item["changed"] is True and real.writes(engine, index) == 1, real   # one update, the address kept
    assert dict((k, v) for k, v in item["invocation"]["module_args"].items() if k in passed) == passed
    assert item["invocation"]["module_args"]["rdns_name"] == "web.local.test"
    assert item["address_list"] == [address] and rdns_names(engine)[address].rstrip(".") == "web.local.test"
    assert stored(engine, "web") == [("web", "A", address, 60, SVC)]
    assert stored(engine, "shop") == []   # the name moved: the old one's record went with the rename

    off = session.next()   # back to false: the name stays as it is, nothing is written for it
    item, index = allocation(off)
    assert item["changed"] is False and off.writes(engine, index) == 0, off
    assert rdns_names(engine)[address].rstrip(".") == "web.local.test"


def test_dns_rdns_needs_address_pool_and_a_host_name_before_any_request(engine, ansible):
    given = dict(name="shop", load_balancers=["lb1"], addresses=["127.0.10.5"], dns=dict(zone=ZONE, name="shop", rdns=True))
    wild = dict(given, name="wild", addresses=None, address_pool=["anxlb-pool=demo"], dns=dict(zone=ZONE, name="*", rdns=True))
    del wild["addresses"]
    engine.reset_requests()
    run = ansible.run([{"ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"},
                        "vars": {"lbaas_services": [given, wild]}}])
    assert run.rc != 0 and engine.requests()["total"] == 0, run
    message = str(run.records[-1]["result"]["msg"])
    assert "lbaas_services[0] (shop): dns.rdns needs address_pool" in message, message
    assert "lbaas_services[1] (wild): dns.rdns needs a host name (labels of letters, digits and -), not *" in message, message


def test_a_new_dns_name_moves_the_name_and_leaves_what_is_not_ours(engine, service):
    """dns.name shop -> shop2: check mode predicts shop's records deleted and shop2's created (0 writes, the diff shows
    both names), the real run does it (knot answers shop2, no A for shop), a hand-made record of shop and a record
    whose comment only starts with the mark (a dns_record owner's with a comment) stay; the rerun is 0 writes."""
    converge(engine, service, shop(["127.0.10.5", "fd00:10::5"]))
    # an alias a dns_record task made for the same owner, whose comment is the owner's mark alone, is no name the
    # service left: only the service's own note says that
    for name, rtype, value, comment in (("shop", "TXT", "by hand", "made by hand"),
                                        ("www", "A", "127.0.0.8", "anxlb-svc=shop; by dns_record"),
                                        ("alias", "A", "127.0.0.7", "anxlb-svc=shop")):
        engine.api("POST", "/api/clouddns/v1/zone.json/%s/records" % ZONE,
                   json=dict(name=name, type=rtype, rdata=value, comment=comment)).raise_for_status()
        zone_live(engine)
    kept = [r for r in stored(engine) if r[4] != SVC]
    renamed = shop(["127.0.10.5", "fd00:10::5"], dns=dict(zone=ZONE, name="shop2", ttl=60))

    check = service("service", renamed, check=True, diff=True)
    assert not check.failed and check.writes(engine) == 0, check
    assert sorted((a["action"], a["name"], a["type"]) for a in check["plan"] if a.get("type") in ("A", "AAAA")) == [
        ("create", "shop2", "A"), ("create", "shop2", "AAAA"), ("delete", "shop", "A"), ("delete", "shop", "AAAA")], check["plan"]
    before, after = (check["diff"][side].split("\ndns:\n")[1] for side in ("before", "after"))
    assert "  shop.local.test.:\n    A: [127.0.10.5 ttl=60]" in before and "shop2.local.test.:\n    A: []" not in before, before
    assert "  shop2.local.test.:\n    A: [127.0.10.5 ttl=60]" in after and "  shop.local.test.:" not in after, after
    assert len([r for r in stored(engine) if r[0] == "shop"]) == 3 and stored(engine, "shop2") == []

    real = converge(engine, service, renamed)
    assert real["dns"]["fqdn"] == "shop2.local.test."
    order = [(a["action"], a["name"]) for a in real["plan"] if a.get("type") in ("A", "AAAA")]
    assert order[:2] == [("delete", "shop"), ("delete", "shop")], order   # the old name goes first (see _dns_names)
    assert stored(engine, "shop2") == [("shop2", "A", "127.0.10.5", 60, SVC),
                                       ("shop2", "AAAA", "fd00:10::5", 60, SVC)]
    assert [r for r in stored(engine) if r[4] != SVC] == kept   # the hand-made and the dns_record one
    assert resolve(engine, "shop2.local.test.", "A")[:2] == ("NOERROR", ["127.0.10.5"])
    assert resolve(engine, "shop2.local.test.", "AAAA")[:2] == ("NOERROR", ["fd00:10::5"])
    assert resolve(engine, "shop.local.test.", "A")[:2] == ("NOERROR", [])   # only the hand-made TXT is left there
    noop = service("service", renamed)
    assert [e["path"] for e in noop.requests(engine) if "clouddns" in e["path"]] == [
        "/api/clouddns/v1/zone.json/local.test"]   # a no-op still reads the zone once


def test_a_rename_that_fails_between_its_writes_is_finished_by_the_next_run(engine, service):
    """The old name's records go first: when the first revision of the rename fails to deploy, the run stops before
    the new name is written, and the next run (the new name not as declared, so it reads the zone again) deletes
    what is left of the old name and creates the new one; no record of ours stays behind at shop."""
    converge(engine, service, shop(["127.0.10.5", "fd00:10::5"]))
    renamed = shop(["127.0.10.5", "fd00:10::5"], dns=dict(zone=ZONE, name="shop2", ttl=60))
    engine.set_faults({"deploy": [{"match": "local.*", "outcome": "error", "count": 1}]})
    failed = service("service", renamed)
    assert failed.failed and "failed to deploy" in failed.message(), failed
    assert stored(engine, "shop2") == []   # the creates were never sent
    assert stored(engine, "shop") == [("shop", "AAAA", "fd00:10::5", 60, SVC)]   # A's delete was written
    engine.set_faults({})
    real = service("service", renamed)
    assert not real.failed and real["changed"], real
    assert [r for r in stored(engine) if r[4] == SVC] == [
        ("shop2", "A", "127.0.10.5", 60, SVC), ("shop2", "AAAA", "fd00:10::5", 60, SVC)]
    rerun = service("service", renamed)
    assert not rerun["changed"] and rerun.writes(engine) == 0, rerun


def test_the_user_guides_dns_walkthrough_names_the_seed_the_port_and_a_resolver_that_works_without_dig(engine, service):
    """Issue 43: docs/user-guide.md "DNS records" starts an Engine whose seed has load balancers, a pool and the zone,
    names the DNS server's port, and resolves with a command that needs no dig (not installed here): that command,
    on this Engine's DNS port, prints what knot answers for the service's name."""
    import shlex
    import subprocess
    import sys

    from localengine.cli import parser

    from .conftest import ROOT
    from .test_user_guide import BLOCKS
    guide = dict((b.name, b.text) for b in BLOCKS if b.kind == "skip")
    start = shlex.split(guide["dns-engine"].split("\nexport ")[0].replace("\\\n", " ").replace("$C", ROOT).rstrip("& \n"))
    assert start[:2] == ["python3", os.path.join(ROOT, "tests", "engine", "run")]
    args = parser().parse_args(start[2:])
    assert os.path.realpath(args.seed) == os.path.realpath(SEED) and args.quiet
    port = args.dns[1]
    assert args.dns == ("127.0.0.1", 5353) and "%d" % port in guide["dns-resolve"]
    exported = dict(w.split("=", 1) for w in shlex.split(guide["dns-engine"].split("\nexport ")[1]))
    assert exported == {"ANEXIA_API_URL": "http://%s:%d" % args.listen, "ANEXIA_TOKEN": args.token}

    real = service("service", shop())
    assert not real.failed, real
    (command,) = [line for line in guide["dns-resolve"].splitlines() if line.strip()]
    argv = shlex.split(command.replace("r.port = %d" % port, "r.port = %d" % engine.dns_port))
    assert argv[0] == "python3" and "%d" % engine.dns_port in argv[2]
    # the Python that has the collection's requirements, as the guide says (this one: dnspython is one of them)
    answer = subprocess.run([sys.executable] + argv[1:], capture_output=True, text=True, timeout=30, check=True)
    assert answer.stdout.split() == resolve(engine, "shop.local.test.", "A")[1] == ["127.0.10.5"]
