"""Contract: --dns, the local Engine's CloudDNS zones served by knot on loopback (tests/engine/README.md,
"DNS mode"), asked with dnspython over UDP and TCP."""
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from localengine.testing import RUN, LocalEngine

from .conftest import ZONE, ZONES, definition, knotd, resolve, wait_editable, zone_path
from .helpers import ok


def create(engine, name, rtype, rdata, ttl=None):
    """A record made after waiting for the zone to be editable, as Terraform does before each write."""
    wait_editable(engine)
    return ok(engine.api("POST", zone_path(ZONE, "records"), json={"name": name, "type": rtype, "rdata": rdata,
                                                                   "region": "default", "ttl": ttl}))


def test_the_seeded_zone_is_served_with_its_soa_and_ns(dns_engine):
    zone = ok(dns_engine.api("GET", zone_path(ZONE)))
    assert dns_engine.dns()["zones"] == {ZONE: zone["revisions"][0]["serial"]}
    assert resolve(dns_engine, "www.local.test", "A") == ("NOERROR", ["127.0.0.5"], 300)
    assert resolve(dns_engine, "pinned.local.test", "TXT", tcp=True) == ("NOERROR", ['"do not touch"'], 300)
    rcode, soa, _ttl = resolve(dns_engine, "local.test", "SOA")
    assert rcode == "NOERROR" and soa[0].split()[2] == str(zone["revisions"][0]["serial"])
    assert resolve(dns_engine, "local.test", "NS")[1] == ["ns1.local.test.", "ns2.local.test."]
    assert resolve(dns_engine, "nothing.local.test", "A")[0] == "NXDOMAIN"
    assert resolve(dns_engine, "www.elsewhere.test", "A")[0] == "REFUSED"   # not authoritative, no recursion


def test_a_record_made_through_the_api_resolves_once_deployed(dns_engine):
    answer = create(dns_engine, "api", "A", "127.0.0.9", ttl=120)
    assert answer["deployment_level"] in (99, 100)   # 99 until knot serves the revision
    zone = wait_editable(dns_engine)
    assert dns_engine.dns()["zones"][ZONE] == zone["revisions"][0]["serial"]
    for tcp in (False, True):
        assert resolve(dns_engine, "api.local.test", "A", tcp=tcp) == ("NOERROR", ["127.0.0.9"], 120)
    create(dns_engine, "v6", "AAAA", "fd00:0010::0005")
    create(dns_engine, "txt", "TXT", 'a "quoted" word and ' + "x" * 300)
    create(dns_engine, "alias", "CNAME", "www.local.test")
    create(dns_engine, "@", "MX", "10 mail.example.com")
    wait_editable(dns_engine)
    assert resolve(dns_engine, "v6.local.test", "AAAA")[1] == ["fd00:10::5"]
    assert resolve(dns_engine, "txt.local.test", "TXT", tcp=True)[1] == [
        '"a \\"quoted\\" word and %s" "%s"' % ("x" * 235, "x" * 65)]
    assert resolve(dns_engine, "alias.local.test", "CNAME")[1] == ["www.local.test."]
    assert resolve(dns_engine, "local.test", "MX")[1] == ["10 mail.example.com."]


def test_a_changed_value_replaces_the_old_one_in_the_next_revision(dns_engine):
    (www,) = ok(dns_engine.api("GET", zone_path(ZONE, "records"), params={"name": "www"}))
    ok(dns_engine.api("PUT", zone_path(ZONE, "records", www["identifier"]), json=dict(www, rdata="127.0.0.6", ttl=60)))
    wait_editable(dns_engine)
    assert resolve(dns_engine, "www.local.test", "A") == ("NOERROR", ["127.0.0.6"], 60)
    # a value change as one changeset (delete old, create new): never both, never none
    ok(dns_engine.api("POST", zone_path(ZONE, "changeset"), json={
        "delete": [{"name": "www", "type": "A", "rdata": "127.0.0.6", "ttl": 60}],
        "create": [{"name": "www", "type": "A", "rdata": "127.0.0.7", "ttl": 0},
                   {"name": "www", "type": "A", "rdata": "127.0.0.8", "ttl": 0}]}))
    wait_editable(dns_engine)
    assert resolve(dns_engine, "www.local.test", "A", tcp=True) == ("NOERROR", ["127.0.0.7", "127.0.0.8"], 300)


def test_a_deleted_record_and_a_deleted_zone_stop_resolving(dns_engine):
    (www,) = ok(dns_engine.api("GET", zone_path(ZONE, "records"), params={"name": "www"}))
    ok(dns_engine.api("DELETE", zone_path(ZONE, "records", www["identifier"])))
    wait_editable(dns_engine)
    assert resolve(dns_engine, "www.local.test", "A")[0] == "NXDOMAIN"
    ok(dns_engine.api("POST", ZONES, json=definition("second.test")))
    wait_editable(dns_engine, "second.test")   # a new zone deploys its first revision too
    ok(dns_engine.api("POST", zone_path("second.test", "records"), json={"name": "@", "type": "A",
                                                                         "rdata": "127.0.0.3"}))
    wait_editable(dns_engine, "second.test")
    assert resolve(dns_engine, "second.test", "A")[1] == ["127.0.0.3"]
    ok(dns_engine.api("DELETE", zone_path(ZONE)))
    deadline = time.monotonic() + 10
    while ZONE in dns_engine.dns()["zones"]:   # knot drops the zone at the next round (0.1 s)
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert resolve(dns_engine, "pinned.local.test", "TXT")[0] == "REFUSED"
    assert resolve(dns_engine, "second.test", "A")[1] == ["127.0.0.3"]


@pytest.mark.parametrize("address", ["0.0.0.0:0", "10.1.2.3:53", "[::]:0", "example.com:53"])
def test_dns_off_loopback_is_refused(address):
    proc = subprocess.run([sys.executable, RUN, "--token", "t", "--dns", address], capture_output=True, text=True,
                          timeout=20, check=False)
    assert proc.returncode == 2 and "loopback addresses only" in proc.stderr


def test_a_missing_knot_is_a_clear_error():
    proc = subprocess.run([sys.executable, RUN, "--token", "t", "--listen", "127.0.0.1:0", "--dns", "127.0.0.1:0",
                           "--knot-bin", "/nonexistent/knotd"], capture_output=True, text=True, timeout=20, check=False)
    assert proc.returncode == 2 and "scripts/apt-deps.sh knot" in proc.stderr


def test_a_revision_knot_refuses_reads_failed_and_the_other_zones_are_served(tmp_path):
    """The API refuses a CNAME beside other data; a seed is not checked that way, so it can hand knot a
    zone its semantic checks refuse."""
    seed = tmp_path / "seed.yml"
    seed.write_text("zones:\n  - name: good.test\n    records: [{name: www, type: A, rdata: 127.0.0.5}]\n"
                    "  - name: bad.test\n    records: [{name: www, type: A, rdata: 127.0.0.5},\n"
                    "                          {name: www, type: CNAME, rdata: web.example.com.}]\n")
    with LocalEngine(seed=str(seed), dns=True, extra_args=["--knot-bin", knotd()]) as engine:
        bad = ok(engine.api("GET", zone_path("bad.test")))
        assert (bad["is_editable"], bad["deployment_level"], bad["revisions"][0]["state"]) == (True, 0, "failed")
        status = engine.dns()
        assert status["zones"] == {"good.test": 1} and [e["zone"] for e in status["errors"]] == ["bad.test"]
        assert resolve(engine, "www.good.test", "A")[1] == ["127.0.0.5"]
        assert resolve(engine, "www.bad.test", "A")[0] in ("SERVFAIL", "REFUSED")   # not loaded, or dropped
        # the fix is a write: the next revision deploys
        (cname,) = ok(engine.api("GET", zone_path("bad.test", "records"), params={"type": "CNAME"}))
        ok(engine.api("DELETE", zone_path("bad.test", "records", cname["identifier"])))
        wait_editable(engine, "bad.test")
        assert resolve(engine, "www.bad.test", "A")[1] == ["127.0.0.5"]
        # a reset forgets the old rejection with the zone it wipes; the reseeded zone's own is the only one then
        reset_at = time.time()
        engine.reset()
        deadline = time.monotonic() + 10   # knot is asked in the follower's next round (0.1 s)
        while not engine.dns()["errors"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [(e["zone"], e["at"] >= reset_at) for e in engine.dns()["errors"]] == [("bad.test", True)]


def test_zones_persist_with_state_and_knot_serves_them_after_a_restart(tmp_path):
    state = str(tmp_path / "engine.db")
    with LocalEngine(state=state, dns=True, extra_args=["--knot-bin", knotd()]) as engine:
        ok(engine.api("POST", ZONES, json=definition("kept.test")))
        wait_editable(engine, "kept.test")
        ok(engine.api("POST", zone_path("kept.test", "records"), json={"name": "www", "type": "A", "rdata": "127.0.0.4"}))
        before = wait_editable(engine, "kept.test")
    with LocalEngine(state=state, dns=True, extra_args=["--knot-bin", knotd()]) as engine:
        assert wait_editable(engine, "kept.test")["revisions"] == before["revisions"]   # identifiers too
        assert resolve(engine, "www.kept.test", "A")[1] == ["127.0.0.4"]


def test_knot_stops_with_the_engine_even_when_the_engine_is_killed():
    engine = LocalEngine(dns=True, extra_args=["--knot-bin", knotd()]).start()
    try:
        status = engine.dns()
        with open(os.path.join(status["work_dir"], "knot.pid")) as handle:
            knot_pid = int(handle.read().strip())
        assert os.path.exists("/proc/%d" % knot_pid)
    finally:
        engine.proc.send_signal(signal.SIGKILL)   # no cleanup of its own: the parent-death signal must do it
        engine.proc.wait(10)
        engine.stop()
    # knotd stops within milliseconds of the parent-death signal's SIGTERM when the machine is quiet; in one loaded
    # fresh-clone make test (stop 37) it was still there 10 s later. An orphan never stops: the bound only keeps a
    # failure from hanging the run, so it is generous.
    deadline = time.monotonic() + 30
    while os.path.exists("/proc/%d" % knot_pid) and not _zombie(knot_pid):
        assert time.monotonic() < deadline, "knotd %d outlived the Engine" % knot_pid
        time.sleep(0.05)
    shutil.rmtree(status["work_dir"], ignore_errors=True)   # the killed Engine could not remove its temp dir


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True
