"""Runs that write one name at the same time (issue 40), against the local Engine with knot: two services on different
load balancers claiming one ``dns.name``, two ``dns_record`` owners claiming one rrset, and two runs of one service
whose writes the lease must keep apart.

The runs overlap for real: two module processes, each forked from a fork server of its own (one server runs one module
process at a time), started together from two threads at a barrier. The outcome is read back from the Engine's records,
knot's answers and the Engine's request log. Each failed on main before the redesign (see test_dns_safety.py)."""
import threading
import time

import pytest

from . import engine_state as es
from .conftest import ForkedModule, ModuleForkServer
from .dns_harness import ZONE, dns_engine, resolve, stored  # noqa: F401  pylint: disable=unused-import
# the Engine of seeds/dns_service.yml: lb1, lb2, the loopback prefix, zone local.test
from .test_service_dns import dns_seed, engine  # noqa: F401  pylint: disable=unused-import

RACES = 20


@pytest.fixture(scope="module")
def second_server():
    """A fork server of this file's own, so that a module process can run beside one of the session's server."""
    server = ModuleForkServer()
    yield server
    server.close()


@pytest.fixture
def pair(engine, module_fork_server, second_server):
    """Two ``ForkedModule``s whose processes may overlap (each forked from its own server), both servers started (the
    first process of a server waits for its imports: a race must not)."""
    both = ForkedModule(engine, module_fork_server), ForkedModule(engine, second_server)
    for forked in both:
        assert not forked("dns_zone_info", dict(name=ZONE)).failed
    return both


def together(pair, calls):
    """Runs ``calls`` ((module, args) each, one per ``ForkedModule`` of ``pair``) at the same moment; their results."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def one(index):
        name, args = calls[index]
        barrier.wait()
        results[index] = pair[index](name, args)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert all(r is not None for r in results), results
    return results


def owners_at(engine, name, rtype="A"):
    """{owner mark: sorted values} of the records of ``name`` in the zone, by the mark their comment starts with."""
    out = {}
    for _name, _type, value, _ttl, comment in stored(engine, name, rtype):
        out.setdefault((comment or "").split(";")[0], []).append(value)
    return dict((k, sorted(v)) for k, v in out.items())


def judge(engine, name, runs, marks, values):
    """What one race left at ``name``: None if one run won alone (its records only, knot answering them) and the other
    failed leaving nothing of its own there; else the description of what went wrong."""
    held = owners_at(engine, name)
    won = [i for i, r in enumerate(runs) if r.rc == 0]
    if len(won) != 1:
        return "%d of 2 runs succeeded, the name holds %s" % (len(won), held)
    winner, loser = won[0], 1 - won[0]
    if held != {marks[winner]: values[winner]}:
        return "the name holds %s, not only the winner's %s" % (held, values[winner])
    answer = resolve(engine, "%s.%s." % (name, ZONE), "A")[1]
    if answer != values[winner]:
        return "knot answers %s, not the winner's %s" % (answer, values[winner])
    if "Traceback" in runs[loser].text:
        return "the loser failed with a traceback"
    return None


# ---- 3. two services, one name ----------------------------------------------------------------------------------

def service(name, lb, address, port, dns_name):
    return dict(name=name, load_balancers=[lb], addresses=[address], ports=[dict(name="http", port=port, target_port=18080)],
                servers=[dict(name="n1", address="127.0.0.1")], dns=dict(zone=ZONE, name=dns_name, ttl=60))


def test_two_services_racing_for_one_name_end_with_one_owner(engine, pair):
    """20 races, each for a name of its own (n0 ... n19) by two services of their own (shop<i> on lb1, cart<i> on lb2):
    each ends with one owner's records at the name and the other run failed, leaving nothing of its own there."""
    wrong = []
    for race in range(RACES):
        name = "n%d" % race
        calls = [("service", service("shop%d" % race, "lb1", "127.0.10.5", 8000 + race, name)),
                 ("service", service("cart%d" % race, "lb2", "127.0.10.6", 8000 + race, name))]
        runs = together(pair, calls)
        why = judge(engine, name, runs, ["anxlb-svc=shop%d" % race, "anxlb-svc=cart%d" % race],
                    [["127.0.10.5"], ["127.0.10.6"]])
        if why:
            wrong.append("race %d: %s" % (race, why))
    assert wrong == [], "%d of %d races went wrong:\n%s" % (len(wrong), RACES, "\n".join(wrong))


# ---- 3. two dns_record owners, one rrset ------------------------------------------------------------------------

def test_two_dns_record_owners_racing_for_one_rrset_end_with_one_owner(engine, pair):
    """20 races of the owners a and b for the A rrset of a name of its own (r0 ... r19). Every Engine request takes
    0.02 s more (the local Engine's latency fault), so that both runs read the rrset before either writes it: the
    window a real Engine's round trips open."""
    engine.set_faults({"latency": 0.02})
    wrong = []
    for race in range(RACES):
        name = "r%d" % race
        calls = [("dns_record", dict(zone=ZONE, name=name, type="A", values=["127.0.0.%d" % owner], owner=owner_name))
                 for owner, owner_name in ((11, "a"), (12, "b"))]
        runs = together(pair, calls)
        why = judge(engine, name, runs, ["anxlb-svc=a", "anxlb-svc=b"], [["127.0.0.11"], ["127.0.0.12"]])
        if why:
            wrong.append("race %d: %s" % (race, why))
    engine.clear_faults()
    assert wrong == [], "%d of %d races went wrong:\n%s" % (len(wrong), RACES, "\n".join(wrong))


# ---- 8. one lease covers every write of a service run -----------------------------------------------------------

LEASE = "/tags/anxlb-lease="


def lease_window(entries):
    """(end of the lease's attach, start of its detach) in a run's log entries."""
    taken = [e for e in entries if e["method"] == "POST" and LEASE in e["path"]]
    released = [e for e in entries if e["method"] == "DELETE" and LEASE in e["path"]]
    assert len(taken) == 1 and len(released) == 1, "the run attached %d lease(s) and detached %d: %s" % (
        len(taken), len(released), [(e["method"], e["path"]) for e in entries if e["method"] != "GET"])
    return taken[0]["end"], released[0]["start"]


def dns_writes(entries):
    return [e for e in entries if e["method"] != "GET" and "/clouddns/" in e["path"]]


def shop(ttl=60, **extra):
    return dict(service("shop", "lb1", "127.0.10.5", 8080, "shop"), **extra) if ttl == 60 else dict(
        service("shop", "lb1", "127.0.10.5", 8080, "shop"), dns=dict(zone=ZONE, name="shop", ttl=ttl), **extra)


def test_every_dns_write_of_a_service_run_lies_inside_its_lease(engine, pair):
    """The first run (objects and the name), then a run that changes only the name's TTL: in the Engine's request log
    each CloudDNS write of either run begins after its lease was attached and ends before the lease is detached."""
    run = pair[0]
    for args in (shop(), shop(ttl=120)):
        done = run("service", args)
        assert not done.failed and done["changed"], done
        entries = done.requests(engine)
        writes = dns_writes(entries)
        assert writes, entries
        taken, released = lease_window(entries)   # on main, a name-only change takes no lease at all
        outside = [(e["method"], e["path"]) for e in writes if not (taken <= e["start"] and e["end"] <= released)]
        assert outside == [], "CloudDNS writes outside the lease: %s" % outside


def test_a_name_change_while_another_run_holds_the_lease_fails_naming_it_before_any_write(engine, pair):
    run = pair[0]
    assert not run("service", shop()).failed
    held = "anxlb-lease=shop@ci-runner:4242@%d" % (int(time.time()) + 600)
    es.tag(engine, es.lb_id(engine, "lb1"), held)
    before = stored(engine)
    changed = run("service", shop(ttl=120))
    assert changed.failed and changed.writes(engine) == 0, changed
    assert "shop@ci-runner:4242" in changed.message(), changed.message()
    assert stored(engine) == before


def test_a_second_run_of_the_service_fails_naming_the_holder_while_the_first_writes(engine, pair):
    """The first run creates shop and waits for its objects, which do not deploy (the Engine's deploy fault ``stuck``),
    holding the lease meanwhile. Started while that lease is held: a second run of the same declaration (``wait:
    false``: it does not wait for the first run's objects either) finds everything written and has nothing to write:
    it ends unchanged, 0 writes (no lease needed to write nothing); a second run that wants to write (the name's TTL
    changed) must fail naming the holder before any write (on main it took no lease and wrote the name).
    Then the objects are forced Deployed (the admin API), so that the first run ends."""
    engine.set_faults({"deploy": [{"match": "*.shop", "outcome": "stuck"}]})
    lb1 = es.lb_id(engine, "lb1")
    first = []
    thread = threading.Thread(target=lambda: first.append(pair[0]("service", shop(wait_timeout=60))))
    thread.start()
    try:
        deadline, lease = time.monotonic() + 20, None
        while lease is None and time.monotonic() < deadline:
            lease = next((t for t in es.tags(engine, lb1) if t.startswith("anxlb-lease=")), None)
            time.sleep(0.02)
        assert lease is not None, "the first run took no lease"
        holder = lease[len("anxlb-lease="):].rsplit("@", 1)[0]
        while not stored(engine, "shop") and time.monotonic() < deadline:
            time.sleep(0.02)   # the first run's name written (before its wait): the same declaration is in sync
        same = pair[1]("service", shop(wait=False))   # not waiting for the first run's objects either
        second = pair[1]("service", shop(ttl=120, wait=False))
        assert lease in es.tags(engine, lb1), "the first run's lease ended before the second run did: no overlap"
    finally:
        for obj in engine.dump()["objects"]:
            if obj.get("_kind") in ("backend", "server", "frontend", "bind") and ".shop" in (obj.get("name") or ""):
                engine.set_state(obj["identifier"], "Deployed")
        thread.join(timeout=120)
    assert first, "the first run did not end"
    assert not same.failed and not same["changed"] and same.writes(engine) == 0, same
    assert second.failed and second.writes(engine) == 0, second
    assert holder in second.message(), second.message()
