"""`make demo`: the whole story on loopback, about a minute.

A local Engine with HAProxy (--haproxy), seeded with load balancers and an IP pool on 127.0.10.0/24;
three backend web servers (node1-3 on 127.0.0.1-3) that answer with their own name. Then, with
headings: the vars file, the plan (--check --diff, 0 writes), the real run, traffic through the
allocated address from every node, a rerun (0 writes), one node and one port fewer, a node stopped
and taken out by HAProxy's health checks, a name for the service in DNS (CloudDNS records served by the
local knot, traffic sent by the name), maintenance (a port disabled, refusing connections while the other answers,
and enabled again), an allow-list admitting one source address and refusing
another, the service removed, and a closing table. Everything it
started is stopped at the end, on Ctrl-C and on SIGTERM too.

Run by scripts/demo.sh (environment: collection path, .venv on PATH).
"""
import os
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests", "engine"), os.path.join(ROOT, "tests", "e2e")]

from backends import Node, ask, refused, sample, wait_for  # noqa: E402  (paths above)
from localengine.testing import LocalEngine  # noqa: E402
import dns.message  # noqa: E402
import dns.query  # noqa: E402
import dns.rdatatype  # noqa: E402

SERVICE, LB = "demo-web", "lb1"
OWNER_TAG = "anxlb-svc=" + SERVICE
NODES = [("node1", "127.0.0.1"), ("node2", "127.0.0.2"), ("node3", "127.0.0.3")]
TARGET_PORTS = (18080, 18081)   # the vars file's target ports
PLAYBOOK = os.path.join(ROOT, "playbooks", "service_loadbalancer.yml")
VARS = os.path.join(ROOT, "playbooks", "vars")
V4_POOL = "0a11ce11000000000000000000000001"   # 127.0.10.0/24 in tests/engine/seeds/dns_service.yml
NAME = "web.local.test."   # playbooks/vars/service_example_named.yml: dns {zone: local.test, name: web}
REQUESTS = 9   # per traffic sample: three rounds over three nodes
MUTATING = ("POST", "PUT", "PATCH", "DELETE")


class Interrupted(Exception):
    pass


def stop_group(proc):
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(wait)
            return
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def heading(text):
    print("\n" + "=" * 100 + "\n== " + text + "\n" + "=" * 100, flush=True)


def say(text=""):
    print(text, flush=True)


class Demo(object):
    def __init__(self):
        self.engine = None
        self.nodes = {}
        self.steps = []   # rows of the closing table

    # ---- what it starts --------------------------------------------------------------------------
    def start(self):
        heading("Starting the local Engine with HAProxy and DNS (knot), and three backend web servers")
        knotd = shutil.which("knotd") or "/usr/sbin/knotd"
        self.engine = LocalEngine(token="demo-token-%d" % os.getpid(), seed=os.path.join(ROOT, "tests", "engine",
                                  "seeds", "dns_service.yml"), deploy_delay=0.5, update_delay=0.3, dns=True,
                                  extra_args=["--haproxy", "--knot-bin", knotd]).start()
        say("local Engine: %s (load balancers lb1 and lb2, IP pool anxlb-pool=demo = 127.0.10.0/24, CloudDNS zone "
            "local.test served by knot on 127.0.0.1:%d)" % (self.engine.url, self.engine.dns_port))
        say("HAProxy: master-worker, work dir %s" % self.engine.haproxy()["work_dir"])
        for name, host in NODES:
            self.nodes[name] = Node(name, host, TARGET_PORTS).start()
            say("%s: http://%s:{%s} answers %r" % (name, host, ",".join(map(str, TARGET_PORTS)), name))

    def stop(self):
        for node in self.nodes.values():
            node.stop()
        if self.engine is not None:
            self.engine.stop()   # the Engine stops its HAProxy

    # ---- playbooks and what they cost ----------------------------------------------------------------
    def play(self, step, vars_file, *args, playbook=PLAYBOOK):
        """Runs a playbook (default: the service playbook for a vars file); the Engine's request counts
        go into the table when ``step`` names a row."""
        self.engine.reset_requests()
        env = dict(os.environ, ANEXIA_API_URL=self.engine.url, ANEXIA_TOKEN=self.engine.token,
                   ANSIBLE_DISPLAY_SKIPPED_HOSTS="false")
        extra = ["-e", "lbaas_vars_file=%s" % os.path.join(VARS, vars_file)] if vars_file else []
        cmd = ["ansible-playbook", "-i", "localhost,", "-c", "local", playbook] + extra + list(args)
        say("$ " + " ".join(["ansible-playbook"] + cmd[5:]).replace(ROOT + "/", ""))
        started = time.monotonic()
        # its own process group, so that an interrupt stops ansible's workers and modules too
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            returncode = proc.wait()
        except BaseException:
            stop_group(proc)
            raise
        if returncode != 0:
            raise SystemExit("the playbook failed (exit %d); stopping the demo" % returncode)
        log = self.engine.requests()
        writes = sum(n for method, n in log["by_method"].items() if method in MUTATING)
        say("-> Engine requests in this step (from %s/_local/requests): %d, of them writes: %d; %.1fs"
            % (self.engine.url, log["total"], writes, time.monotonic() - started))
        if step:
            self.record(step, "%d (%d writes)" % (log["total"], writes))
        return writes

    def record(self, step, requests):
        address, ports, nodes = self.live()
        self.steps.append((step, SERVICE, LB, address or "-", ports or "-", nodes or "-", requests))

    def live(self):
        """(address, ports, nodes) of the service's objects on the Engine now (not being deleted)."""
        objects = [o for o in self.engine.dump()["objects"] if not o.get("_deleted_at")]
        # binds and servers carry no owner tag: they are the service's by containment (their parent's tag)
        parents = set(o["identifier"] for o in objects if OWNER_TAG in o.get("_tags", []))

        def parent_of(obj, link):
            parent = obj.get(link)
            return parent.get("identifier") if isinstance(parent, dict) else parent

        def ours(obj, link):
            return parent_of(obj, link) in parents
        binds = [o for o in objects if o["_kind"] == "bind" and ours(o, "frontend")]
        nodes = sorted(set(o["name"].split(".")[0] for o in objects if o["_kind"] == "server" and ours(o, "backend")))
        # a port whose frontend is disabled (maintenance) keeps its bind but does not listen
        off = set(o["identifier"] for o in objects if o["_kind"] == "frontend" and o.get("enable") is False)
        ports = sorted(set((b["port"], parent_of(b, "frontend") in off) for b in binds))
        return (",".join(sorted(set(b["address"] for b in binds))),
                ",".join("%d%s" % (port, " (disabled)" if disabled else "") for port, disabled in ports), ",".join(nodes))

    def address(self):
        return self.live()[0]

    # ---- traffic ----------------------------------------------------------------------------------
    def traffic(self, port, expect=None):
        """Requests through the service's address; shows who answered."""
        address = self.address()
        counts = sample(address, port, REQUESTS)
        say("%d requests to http://%s:%d/ answered by: %s" % (REQUESTS, address, port, ", ".join(
            "%s x%d" % (name, n) for name, n in sorted(counts.items()))))
        if expect is not None and set(counts) != set(expect):
            say("!! expected answers from %s" % ", ".join(sorted(expect)))
        return counts

    def resolve(self):
        """The A values the local knot answers for the service's name (as a stub resolver asks, over UDP)."""
        query = dns.message.make_query(NAME, "A")
        answer = dns.query.udp(query, "127.0.0.1", port=self.engine.dns_port, timeout=3)
        return sorted(r.to_text() for rrset in answer.answer if rrset.rdtype == dns.rdatatype.A for r in rrset)

    def show_refused(self, address, port):
        closed = refused(address, port)
        say("http://%s:%d/: %s" % (address, port, "connection refused (nothing listens)" if closed else "STILL OPEN"))
        return closed

    def show_servers(self):
        say("HAProxy's view (stats socket, via the local Engine's GET /_local/haproxy):")
        for server in sorted(self.engine.haproxy()["servers"], key=lambda s: s["name"] or ""):
            say("  %-22s %-18s %-6s %s" % (server["name"], server["address"], server["status"], server["check"] or ""))

    def wait_serving(self, nodes, timeout=5):
        """Deletions finish on the Engine at once; HAProxy follows within a moment."""
        wait_for(lambda: sorted(set((s["name"] or "").split(".")[0] for s in self.engine.haproxy()["servers"]))
                 == sorted(nodes), timeout=timeout)

    def node_status(self, node):
        return set(s["status"] for s in self.engine.haproxy()["servers"] if (s["name"] or "").startswith(node + "."))


def story(demo):
    heading("1. The vars file the playbook applies: playbooks/vars/service_example.yml")
    with open(os.path.join(VARS, "service_example.yml")) as handle:
        say(handle.read().rstrip())

    heading("2. The plan: ansible-playbook --check --diff (nothing is written: 0 writes)")
    demo.play("1 plan (--check --diff)", "service_example.yml", "--check", "--diff")

    heading("3. Apply it for real")
    demo.play("2 apply", "service_example.yml")

    address = demo.address()
    heading("4. Traffic through the allocated address %s: every node answers, on both ports" % address)
    demo.traffic(8080, expect=[name for name, host in NODES])
    demo.traffic(8081, expect=[name for name, host in NODES])

    heading("5. Run it again: nothing changes (0 writes)")
    demo.play("3 rerun", "service_example.yml")

    named(demo)
    maintenance(demo)

    heading("6. One node (node2) and one port (admin, 8081) fewer: playbooks/vars/service_example_smaller.yml")
    demo.play("4 node2 and port 8081 removed", "service_example_smaller.yml", "--diff")
    demo.wait_serving(["node1", "node3"])
    demo.traffic(8080, expect=["node1", "node3"])
    wait_for(lambda: refused(address, 8081), timeout=5)
    demo.show_refused(address, 8081)

    heading("7. node3's web server stops: HAProxy's health checks take it out")
    demo.nodes["node3"].stop()
    say("node3 stopped; waiting for HAProxy to mark it DOWN ...")
    wait_for(lambda: demo.node_status("node3") == {"DOWN"}, timeout=10)
    demo.show_servers()
    demo.traffic(8080, expect=["node1"])
    demo.record("5 node3's web server stopped", "0 (no playbook)")
    allow_list(demo)


def named(demo):
    """dns: the service gets an A record of its address in CloudDNS; the name is resolved through the local knot and
    the traffic sent to the address it answers."""
    heading("5b. A name for the service: playbooks/vars/service_example_named.yml (dns: {zone: local.test, name: web})")
    say("before: %s -> %s" % (NAME, ", ".join(demo.resolve()) or "no such name"))
    demo.play("5b dns: web.local.test", "service_example_named.yml", "--diff")
    answered = demo.resolve()
    say("dig @127.0.0.1 -p %d %s A -> %s (record comment: %s, the owner's mark)" % (
        demo.engine.dns_port, NAME, ", ".join(answered) or "no such name", OWNER_TAG))
    if answered:
        counts = sample(answered[0], 8080, REQUESTS)
        say("%d requests to http://%s:8080/ (%s) answered by: %s" % (REQUESTS, NAME.rstrip("."), answered[0], ", ".join(
            "%s x%d" % (name, n) for name, n in sorted(counts.items()))))


def maintenance(demo):
    """enabled: false on the admin port disables its frontend (one write): 8081 refuses connections, 8080 still answers;
    the file without it puts the port back (one write again) and 8081 answers."""
    address = demo.address()
    heading("5c. Maintenance: the admin port (8081) out of service, playbooks/vars/service_example_maintenance.yml "
            "(enabled: false on the port); preview first (--check --diff, 0 writes)")
    demo.play("5c maintenance --check", "service_example_maintenance.yml", "--check", "--diff")
    demo.traffic(8081, expect=[name for name, host in NODES])   # the preview changed nothing
    heading("5d. For real: one object written, the admin port's frontend disabled (the other writes are the run's lease "
            "and marker tags); 8081 refuses, 8080 answers")
    demo.play("5d admin port disabled", "service_example_maintenance.yml", "--diff")
    wait_for(lambda: refused(address, 8081), timeout=10)
    if not demo.show_refused(address, 8081):
        say("!! expected 8081 to refuse connections while its frontend is disabled")
    demo.traffic(8080, expect=[name for name, host in NODES])
    heading("5e. Back in service: service_example_named.yml again (no enabled: the port is enabled), one object written")
    demo.play("5e admin port enabled", "service_example_named.yml", "--diff")
    wait_for(lambda: ask(address, 8081) in [name for name, host in NODES], timeout=10)
    demo.traffic(8081, expect=[name for name, host in NODES])


def allow_list(demo):
    """allow_sources: a client from 127.0.0.5 is answered, one from 127.0.0.6 refused by HAProxy."""
    address = demo.address()
    heading("8. Only 127.0.0.5 may connect: playbooks/vars/service_example_allow.yml (allow_sources)")
    demo.play("6 allow_sources [127.0.0.5/32]", "service_example_allow.yml", "--diff")

    def answered():
        return ask(address, 8080, source="127.0.0.5"), ask(address, 8080, source="127.0.0.6")
    wait_for(lambda: answered()[0] == "node1" and answered()[1] != "node1", timeout=10)
    for source, answer in zip(("127.0.0.5", "127.0.0.6"), answered()):
        shown = answer if answer.startswith("node") else "refused by HAProxy (%s)" % answer
        say("from %s: http://%s:8080/ -> %s" % (source, address, shown))


def remove_service(demo):
    """The end of the story: the service is dropped from the live set and garbage collection removes
    its objects and returns its address to the pool (check mode first); nothing listens any more."""
    address = demo.address()
    gc = os.path.join(ROOT, "playbooks", "garbage_collection.yml")
    heading("9. demo-web leaves the live set (playbooks/vars/live_set_without_demo.yml): what would garbage "
            "collection remove? (--check --diff, nothing is written)")
    with open(os.path.join(VARS, "live_set_without_demo.yml")) as handle:
        say(handle.read().rstrip())
    zones = ("-e", '{"garbage_collection_dns_zones": ["local.test"]}')   # where its name's records are
    demo.play("7 gc --check", "live_set_without_demo.yml", "--check", "--diff", "-e", "garbage_collection_allow_empty=true",
              *zones, playbook=gc)
    heading("10. Collect it for real")
    demo.play("8 gc", "live_set_without_demo.yml", "--diff", "-e", "garbage_collection_allow_empty=true", *zones, playbook=gc)
    say("%s -> %s" % (NAME, ", ".join(demo.resolve()) or "no such name (its records went with the service)"))
    listed = demo.engine.api("GET", "/api/ipam/v1/address/filtered.json",
                             params={"prefix": V4_POOL, "page": 1, "limit": 1000}).json()["data"]["data"]
    held = [a["name"] for a in listed]
    say("pool 127.0.10.0/24: %s is %s" % (address, "still allocated" if address in held else "free again"))
    demo.wait_serving([])
    for port in (8080, 8081):
        demo.show_refused(address, port)
    say("HAProxy servers left: %d" % len(demo.engine.haproxy()["servers"]))
    heading("11. lb1 and the pool as the collection's info modules see them: playbooks/demo/show_loadbalancer.yml")
    demo.play(None, None, playbook=os.path.join(ROOT, "playbooks", "demo", "show_loadbalancer.yml"))


def table(demo, seconds):
    heading("Summary (%.0fs)" % seconds)
    head = ("step", "service", "load balancer", "address", "ports", "nodes", "Engine requests")
    rows = [head] + demo.steps
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(head))]
    for index, row in enumerate(rows):
        say("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0:
            say("  ".join("-" * width for width in widths))


def main():
    def interrupted(signum, _frame):
        raise Interrupted(signal.Signals(signum).name)
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    demo = Demo()
    started = time.monotonic()
    try:
        demo.start()
        story(demo)
        remove_service(demo)
        table(demo, time.monotonic() - started)
    except Interrupted as exc:
        say("\ninterrupted (%s); stopping what the demo started" % exc)
        return 130
    finally:
        demo.stop()
    say("\nDone: the local Engine, HAProxy and the backend web servers are stopped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
