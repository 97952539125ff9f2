"""The local Engine's HAProxy mode through the Engine API: what a deployment state means when HAProxy
runs the load balancer. A finished deployment is serving when it reads Deployed; a version HAProxy
rejects (configuration or reload) goes to DeploymentError while the last good one keeps serving;
binds off loopback are data only; HAProxy stops with the Engine, even when the Engine is killed."""
import os
import socket
import subprocess
import sys
import time

from localengine.testing import RUN, LocalEngine

from ..conftest import DEFAULT_SEED
from .backends import Node, ask, free_port, wait_for
from .conftest import haproxy_binary

LB = "0a11ba1a000000000000000000000001"
LBAAS = "/api/LBaaS/v1/%s.json"
PENDING = ("NewlyCreated", "Updating")


def create(engine, kind, **fields):
    resp = engine.api("POST", LBAAS % kind, json=fields)
    assert resp.status_code == 200, resp.text
    return resp.json()["identifier"]


def update(engine, kind, ident, **fields):
    """An update as go-anxcloud's generic client sends it: the whole object, links as ids, "state": "0"."""
    current = engine.api("GET", LBAAS % kind + "/" + ident).json()
    body = dict((k, v["identifier"] if isinstance(v, dict) and "identifier" in v else v) for k, v in current.items()
                if k not in ("state", "customer_identifier", "reseller_identifier", "automation_rules"))
    body.update(fields, state="0")
    resp = engine.api("PUT", LBAAS % kind + "/" + ident, json=body)
    assert resp.status_code == 200, resp.text


def state(engine, kind, ident):
    return engine.api("GET", LBAAS % kind + "/" + ident).json()["state"]["title"]


def settled(engine, kind, ident, timeout=15):
    """The state once the deployment is over (bounded)."""
    def over():
        title = state(engine, kind, ident)
        return title if title not in PENDING else None
    return wait_for(over, timeout) or state(engine, kind, ident)


def web_service(engine, port, target, address="127.0.10.50"):
    """backend + server (node1 on 127.0.0.1:target) + frontend + bind address:port; their identifiers."""
    ids = {"backend": create(engine, "backend", name="b", load_balancer=LB, mode="tcp",
                             health_check='"adv_check": "tcp-check"')}
    ids["server"] = create(engine, "server", name="s", backend=ids["backend"], ip="127.0.0.1", port=target,
                           check="enabled")
    ids["frontend"] = create(engine, "frontend", name="f", load_balancer=LB, mode="tcp", default_backend=ids["backend"])
    ids["bind"] = create(engine, "bind", name="v4", frontend=ids["frontend"], address=address, port=port)
    for kind, ident in ids.items():
        assert settled(engine, kind, ident) == "Deployed", (kind, engine.haproxy())
    return ids


def config(engine):
    return engine.haproxy()["config"]["lb1"]


def test_deployed_means_serving_and_a_rejected_version_keeps_the_last_good_one(hengine):
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        ids = web_service(hengine, port, target)
        assert ask("127.0.10.50", port) == "node1"   # at once: Deployed is read only once HAProxy serves it

        update(hengine, "frontend", ids["frontend"], client_timeout="soon")
        assert settled(hengine, "frontend", ids["frontend"]) == "DeploymentError"
        (error,) = hengine.haproxy()["errors"]
        assert error["identifier"] == ids["frontend"] and "timeout client" in error["reason"], error
        assert ask("127.0.10.50", port) == "node1"   # the last good version still serves
        assert "soon" not in config(hengine)

        update(hengine, "frontend", ids["frontend"], client_timeout="5000")   # the redeploy that fixes it
        assert settled(hengine, "frontend", ids["frontend"]) == "Updated"
        assert "timeout client 5000ms" in config(hengine) and ask("127.0.10.50", port) == "node1"
        hengine.reset()   # the rejection goes with the objects: the next test on this Engine must not read it
        assert hengine.haproxy()["errors"] == []
    finally:
        node.stop()


def test_health_checks_haproxy_refuses_fail_the_backend_and_its_servers_wait(hengine):
    unknown = create(hengine, "backend", name="u", load_balancer=LB, mode="tcp", health_check='"adv_check": "bogus-check"')
    garbled = create(hengine, "backend", name="g", load_balancer=LB, mode="tcp", health_check="tcp please")
    server = create(hengine, "server", name="s", backend=unknown, ip="127.0.0.1", port=free_port(), check="enabled")
    assert settled(hengine, "backend", unknown) == "DeploymentError"
    assert settled(hengine, "backend", garbled) == "DeploymentError"
    reasons = dict((e["identifier"], e["reason"]) for e in hengine.haproxy()["errors"])
    assert "unknown option 'bogus-check'" in reasons[unknown] and "not a JSON fragment" in reasons[garbled], reasons
    time.sleep(1)
    assert state(hengine, "server", server) == "NewlyCreated"   # deploys with its backend, not before
    assert "bogus" not in config(hengine) and "be_" not in config(hengine)


def test_binds_off_loopback_are_data_only_and_one_address_port_has_one_listener(hengine):
    port, target = free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    try:
        ids = web_service(hengine, port, target)
        v6 = create(hengine, "bind", name="v6", frontend=ids["frontend"], address="fd00:10::5", port=port)
        anywhere = create(hengine, "bind", name="any", frontend=ids["frontend"], address="", port=port + 1)
        assert settled(hengine, "bind", v6) == "Deployed" and settled(hengine, "bind", anywhere) == "Deployed"
        assert "fd00" not in config(hengine) and ":%d" % (port + 1) not in config(hengine)

        second = create(hengine, "frontend", name="f2", load_balancer=LB, mode="tcp", default_backend=ids["backend"])
        twin = create(hengine, "bind", name="twin", frontend=second, address="127.0.10.50", port=port)
        assert settled(hengine, "bind", twin) == "DeploymentError"
        assert "already bound by bind %s" % ids["bind"] in hengine.haproxy()["errors"][-1]["reason"]
        assert ask("127.0.10.50", port) == "node1"
    finally:
        node.stop()


def test_a_reload_haproxy_cannot_complete_fails_the_bind_and_the_rest_keeps_serving(hengine):
    port, target, taken = free_port(), free_port(), free_port()
    node = Node("node1", "127.0.0.1", [target]).start()
    blocker = socket.socket()
    try:
        ids = web_service(hengine, port, target)
        blocker.bind(("127.0.10.51", taken))   # another program holds the address:port (haproxy -c cannot know)
        blocker.listen()
        bind = create(hengine, "bind", name="busy", frontend=ids["frontend"], address="127.0.10.51", port=taken)
        assert settled(hengine, "bind", bind) == "DeploymentError"
        assert "cannot bind socket" in hengine.haproxy()["errors"][-1]["reason"]
        assert ask("127.0.10.50", port) == "node1"

        blocker.close()
        update(hengine, "bind", bind)
        assert settled(hengine, "bind", bind) == "Updated" and ask("127.0.10.51", taken) == "node1"
    finally:
        blocker.close()
        node.stop()


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open("/proc/%d/stat" % pid) as handle:   # a zombie is dead
        return handle.read().split(") ", 1)[1][0] != "Z"


def test_haproxy_stops_with_the_engine_even_when_the_engine_is_killed():
    for ending in ("stop", "kill"):
        engine = LocalEngine(seed=DEFAULT_SEED, extra_args=["--haproxy", "--haproxy-bin", haproxy_binary()]).start()
        try:
            work_dir = engine.haproxy()["work_dir"]
            with open(os.path.join(work_dir, "haproxy.pid")) as handle:
                pids = [int(p) for p in handle.read().split()]
            assert pids and all(pid_alive(p) for p in pids)
            if ending == "kill":
                engine.proc.kill()
        finally:
            engine.stop()
        assert wait_for(lambda: not any(pid_alive(p) for p in pids), timeout=10), (ending, pids)
        if ending == "stop":
            assert not os.path.exists(work_dir)


def test_without_haproxy_the_admin_view_says_so(engine):
    resp = engine.http.get(engine.url + "/_local/haproxy", timeout=5)
    assert resp.status_code == 404 and "--haproxy" in resp.json()["error"]["message"]


def test_a_missing_haproxy_binary_is_named_in_one_line():
    done = subprocess.run([sys.executable, RUN, "--token", "t", "--listen", "127.0.0.1:0", "--haproxy",
                           "--haproxy-bin", "/nonexistent/haproxy"], capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("tests/engine/run: error: --haproxy-bin: /nonexistent/haproxy is not an executable; "
                           "install HAProxy (scripts/apt-deps.sh haproxy)\n")
