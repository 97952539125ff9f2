"""Maintenance with real traffic (issue 43): the local Engine in HAProxy mode, backend web servers on loopback, the
service module run as its own process (the module is the subject; the role hands ``enabled`` on as declared, its
argument spec is tests/integration's).

1. A service carries traffic on two ports; ``enabled: false`` on one (after its ``--check --diff`` preview, which
   writes nothing and changes no answer) makes connections to that port fail through the real HAProxy while the
   other port still answers; the run wrote only that frontend (and the lease and marker tags every writing run
   writes); a rerun writes nothing; a change of the disabled port's timeout is one PUT that keeps it disabled, read
   back from the Engine and from HAProxy's configuration; ``enabled: true`` brings the traffic back; a rerun writes
   nothing. Against both readings of what the Engine does with a PUT that leaves ``enable`` out (the local Engine's
   ``put_enable``: ``reset``, the pessimistic one, and ``keep``), on the session's Engine.
2. One server cannot be put in maintenance (the Engine has no per-server switch): the way that exists - remove it
   from ``servers``, run, add it back, run - with steady traffic meanwhile, and what it costs, measured: requests
   that failed, requests the removed server answered after its run returned.
Loopback only; every wait and every request is bounded."""
import threading
import time

import pytest

from localengine.testing import MUTATING

from .backends import Node, ask, free_port, refused, sample, wait_for

VIP = "127.0.10.61"   # in the seeded pool's prefix 127.0.10.0/24
REQUESTS = 6


def service(ports, servers, **extra):
    return dict({"name": "e2e-maint", "load_balancers": ["lb1"], "addresses": [VIP], "ports": ports,
                 "servers": [{"name": name, "address": host} for name, host in servers]}, **extra)


def reconcile(module, engine, declared, check=False, diff=False):
    """The service module as its own process; its result and its writes: LBaaS ones as (method, kind, body), and how
    many others (the tag writes of its lease and marker)."""
    done = module("service", declared, check=check, diff=diff)
    assert not done.failed and done.rc == 0, done
    writes = [e for e in done.requests(engine) if e["method"] in MUTATING]
    lbaas = [(e["method"], e["path"].split("/")[4].split(".")[0], e["body"]) for e in writes
             if e["path"].startswith("/api/LBaaS/")]
    others = [e for e in writes if not e["path"].startswith("/api/LBaaS/")]
    assert all(e["path"].startswith("/api/core/v1/") for e in others), others   # tags only: lease and marker
    return done.result, lbaas, len(others)


def section(engine, name):
    """The lines of the HAProxy frontend section of the service's frontend ``name`` (its Engine name is a comment
    above the section: the local Engine names proxies by identifier)."""
    lines = engine.haproxy()["config"]["lb1"].splitlines()
    start = lines.index("# frontend %s" % name)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return [line.strip() for line in lines[start + 1:end]]


@pytest.mark.parametrize("put_enable", ["reset", "keep"])
def test_a_port_taken_out_refuses_connections_while_the_other_answers_and_comes_back(hengine, module, put_enable):
    hengine.set_options(put_enable=put_enable)
    http, admin, target = free_port(), free_port(), free_port()
    ports = [{"name": "http", "port": http, "target_port": target}, {"name": "admin", "port": admin, "target_port": target}]
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        assert reconcile(module, hengine, service(ports, [("node1", "127.0.0.1")]))[1]
        assert wait_for(lambda: ask(VIP, http) == ask(VIP, admin) == "node1", timeout=10)

        off = service([ports[0], dict(ports[1], enabled=False)], [("node1", "127.0.0.1")])
        preview, lbaas, others = reconcile(module, hengine, off, check=True, diff=True)
        assert lbaas == [] and others == 0 and preview["summary"] == "lb1: 0 to add, 1 to change (1 frontend to disable), 0 to destroy"
        assert "enabled: false" in preview["diff"]["after"]
        assert sample(VIP, admin, REQUESTS) == {"node1": REQUESTS}   # the preview changed nothing

        done, lbaas, others = reconcile(module, hengine, off)
        assert done["summary"] == "lb1: 0 added, 1 changed (1 frontend disabled), 0 destroyed", done
        ((method, kind, body),) = lbaas   # only that frontend
        assert (method, kind, body["name"], body["enable"]) == ("PUT", "frontend", "admin.e2e-maint", 0)
        assert wait_for(lambda: refused(VIP, admin), timeout=10), section(hengine, "admin.e2e-maint")
        assert sample(VIP, http, REQUESTS) == {"node1": REQUESTS}
        assert "disabled" in section(hengine, "admin.e2e-maint") and "disabled" not in section(hengine, "http.e2e-maint")
        assert done["status"]["all"] == {VIP: [http]}
        assert reconcile(module, hengine, off)[1:] == ([], 0)   # the rerun writes nothing

        # a PUT of the disabled frontend for another reason (its timeout): it stays disabled, on the Engine and in HAProxy
        slower = service([ports[0], dict(ports[1], enabled=False, client_timeout="20s")], [("node1", "127.0.0.1")])
        _result, lbaas, _others = reconcile(module, hengine, slower)
        ((method, kind, body),) = lbaas
        assert (method, body["client_timeout"], body["enable"]) == ("PUT", "20000", 0)
        read = hengine.api("GET", "/api/LBaaS/v1/frontend.json/" + done["objects"]["lb1"]["frontends"][0]["id"]).json()
        assert (read["name"], read["client_timeout"], read["enable"]) == ("admin.e2e-maint", "20000", False)
        assert wait_for(lambda: "timeout client 20000ms" in section(hengine, "admin.e2e-maint"), timeout=10)
        assert "disabled" in section(hengine, "admin.e2e-maint") and refused(VIP, admin)

        back = service([ports[0], dict(ports[1], client_timeout="20s")], [("node1", "127.0.0.1")])
        done, lbaas, _others = reconcile(module, hengine, back)
        assert done["summary"] == "lb1: 0 added, 1 changed (1 frontend enabled), 0 destroyed", done
        assert [(m, k, b["name"], b["enable"]) for m, k, b in lbaas] == [("PUT", "frontend", "admin.e2e-maint", 1)]
        assert wait_for(lambda: ask(VIP, admin) == "node1", timeout=10)
        assert sample(VIP, admin, REQUESTS) == sample(VIP, http, REQUESTS) == {"node1": REQUESTS}
        assert reconcile(module, hengine, back)[1:] == ([], 0)
        assert hengine.haproxy()["errors"] == []
    finally:
        node.stop()


class Traffic:
    """Requests on new connections, one every ``interval`` seconds from a thread, each answer recorded with the time
    it came back (bounded: at most ``limit`` requests)."""

    def __init__(self, port, interval=0.02, limit=3000):
        self.port, self.interval, self.limit = port, interval, limit
        self.answers = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self.stopped.is_set() and len(self.answers) < self.limit:
            answer = ask(VIP, self.port, timeout=2)
            self.answers.append((time.time(), answer))
            self.stopped.wait(self.interval)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.thread.join(10)

    def between(self, start, end):
        return [a for t, a in self.answers if start <= t < end]


def test_one_server_out_and_back_is_a_removal_and_a_create_and_costs_no_failed_request(hengine, module):
    """No switch exists for one server; removing it from ``servers`` and adding it back is the way. Measured with a
    request every 20 ms: none fails (HAProxy's reload hands its listeners over, and the Engine re-renders it while
    the old worker finishes what it holds), the removed server answers nothing once HAProxy runs the new
    configuration, and comes back with the create."""
    port, target = free_port(), free_port()
    nodes = [Node(name, host, [target]).start() for name, host in (("node1", "127.0.0.1"), ("node2", "127.0.0.2"))]
    both = service([{"name": "http", "port": port, "target_port": target}], [("node1", "127.0.0.1"), ("node2", "127.0.0.2")])
    without = dict(both, servers=both["servers"][:1])
    try:
        assert reconcile(module, hengine, both)[1]
        assert wait_for(lambda: set(sample(VIP, port, 4)) == {"node1", "node2"}, timeout=10)
        with Traffic(port) as traffic:
            time.sleep(0.5)
            began = time.time()
            _result, lbaas, _others = reconcile(module, hengine, without)
            returned = time.time()
            assert [(m, k) for m, k, _b in lbaas] == [("DELETE", "server")]
            assert wait_for(lambda: "node2" not in [s["name"].split(".")[0] for s in hengine.haproxy()["servers"]], timeout=10)
            out = time.time()
            time.sleep(0.5)
            readd = time.time()
            _result, lbaas, _others = reconcile(module, hengine, both)
            assert [(m, k) for m, k, _b in lbaas] == [("POST", "server")]
            back = time.time()
            assert wait_for(lambda: any(a == "node2" for _t, a in traffic.answers if _t > back), timeout=10)
            time.sleep(0.3)
        ended = time.time()
        during = traffic.between(began, ended)
        removal, after_run, without_it = (traffic.between(began, returned), traffic.between(returned, out),
                                          traffic.between(out, readd))
        failed = [a for a in during if a not in ("node1", "node2")]
        print("\nper-server maintenance, a request every 20 ms: %d requests from the removal run to the server back, "
              "%d failed; node2 answered %d of %d during the removal run (%.2f s) and %d of %d after it returned until "
              "HAProxy ran without it (%.2f s); with node2 out: %s" % (
                  len(during), len(failed), removal.count("node2"), len(removal), returned - began,
                  after_run.count("node2"), len(after_run), out - returned, sorted(set(without_it))))
        assert len(during) > 20 and failed == [], failed   # about 80-110 on a quiet machine
        assert without_it and set(without_it) == {"node1"}
        assert hengine.haproxy()["errors"] == []
    finally:
        for node in nodes:
            node.stop()
