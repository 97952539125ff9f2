"""The demo's story with assertions: the service playbook against the local Engine in HAProxy mode,
three backend web servers on loopback, traffic through the address the pool allocated.

Every node serves traffic; a rerun writes nothing; a removed port stops listening and a removed node
gets no traffic; an established connection survives the reloads of a playbook run; a stopped node is
taken out by the health checks; after removal nothing listens and the address is back in the pool.
Loopback only; every wait and every request is bounded.

The two previews (the plan, the garbage collection's) are ansible-playbook runs with --check --diff of their own, as
a user runs them; the four runs that write (apply, rerun, shrink, collect) are the plays of one ansible-playbook run,
each played when the story gets there (playbooks.py), which pays one start-up of ansible-playbook instead of four.
"""
import socket

from .backends import Node, free_port, refused, sample, wait_for
from .playbooks import GC, SERVICES

V4_POOL = "0a11ce11000000000000000000000001"
NODES = [("node1", "127.0.0.1"), ("node2", "127.0.0.2"), ("node3", "127.0.0.3")]
REQUESTS = 9


def service(ports, nodes, state="present"):
    declared = {"name": "e2e-web", "load_balancers": ["lb1"], "address_pool": ["anxlb-pool=demo"]}
    if state == "absent":
        return dict(declared, state="absent")
    return dict(declared, ports=[{"name": name, "port": port, "target_port": target} for name, port, target in ports],
                servers=[{"name": name, "address": host} for name, host in nodes])


def bound(engine):
    """(address, sorted ports) of the service's binds on the Engine: those in its frontends (ownership by
    containment: the frontend carries the owner tag, the bind none)."""
    objects = engine.dump()["objects"]
    ours = set(o["identifier"] for o in objects if o["_kind"] == "frontend" and "anxlb-svc=e2e-web" in o["_tags"])

    def frontend(bind):
        link = bind.get("frontend")
        return link.get("identifier") if isinstance(link, dict) else link
    binds = [o for o in objects if o["_kind"] == "bind" and frontend(o) in ours]
    assert len(set(b["address"] for b in binds)) == 1, binds
    return binds[0]["address"], sorted(b["port"] for b in binds)


def served_by(engine):
    """The nodes HAProxy has servers for, from the local Engine's view of its stats socket."""
    return sorted(set((s["name"] or "").split(".")[0] for s in engine.haproxy()["servers"]))


def pool_holds(engine, address):
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": V4_POOL, "page": 1, "limit": 1000})
    return address in [a["name"] for a in resp.json()["data"]["data"]]


def test_a_service_carries_traffic_from_plan_to_removal(hengine, playbooks):
    engine = hengine
    http, admin = free_port(), free_port()
    targets = (free_port(), free_port())
    ports = [("http", http, targets[0]), ("admin", admin, targets[1])]
    smaller = [p for p in ports if p[0] == "http"]
    nodes = dict((name, Node(name, host, targets).start()) for name, host in NODES)
    held = None
    try:
        # the plan writes nothing and listens nowhere (a run of its own: the role words check mode from --check)
        plan, writes = playbooks.run(service(ports, NODES), "--check", "--diff", output=True)
        assert writes == 0 and "would change" in plan.proc.stdout + plan.proc.stderr
        assert engine.haproxy()["servers"] == []

        # the runs that write, as the plays of one ansible-playbook run, each played when the story gets there:
        # apply, rerun, shrink (node2 and the admin port removed), then garbage collection of the dropped service
        runs = playbooks.session((service(ports, NODES), SERVICES, {}), (service(ports, NODES), SERVICES, {}),
                                 (service(smaller, [n for n in NODES if n[0] != "node2"]), SERVICES, {}),
                                 ([], GC, {"garbage_collection_allow_empty": True}))

        # applied: every node answers on both ports of the allocated address
        writes = runs.play()
        address, listening = bound(engine)
        assert writes > 0 and listening == sorted([http, admin])
        assert address.startswith("127.0.10.") and pool_holds(engine, address)
        for port in (http, admin):
            answers = sample(address, port, REQUESTS)
            assert answers == {"node1": 3, "node2": 3, "node3": 3}, answers   # round robin, one per connection

        # a rerun writes nothing
        assert runs.play() == 0

        # an established connection, half-way through its request, while the next run reloads HAProxy
        held = socket.create_connection((address, http), timeout=5)
        held.sendall(b"GET / HTTP/1.1\r\nHost: e2e\r\n")
        reloads = engine.haproxy()["reloads"]

        # node2 and the admin port removed: no traffic to node2, the admin port refused
        runs.play()
        assert wait_for(lambda: served_by(engine) == ["node1", "node3"], timeout=5), served_by(engine)
        assert wait_for(lambda: refused(address, admin), timeout=5)
        answers = sample(address, http, REQUESTS)
        assert set(answers) == {"node1", "node3"} and sum(answers.values()) == REQUESTS, answers

        # the held connection was not dropped by the reloads in between
        assert engine.haproxy()["reloads"] > reloads
        held.sendall(b"Connection: close\r\n\r\n")
        reply = held.makefile("rb").read().decode()
        assert reply.startswith("HTTP/1.0 200") and reply.rstrip().rsplit("\n", 1)[-1] in ("node1", "node2", "node3")

        # node3's web server stops: HAProxy marks it DOWN and sends everything to node1
        nodes["node3"].stop()
        assert wait_for(lambda: set(s["status"] for s in engine.haproxy()["servers"]
                                    if s["name"].startswith("node3.")) == {"DOWN"}, timeout=10), engine.haproxy()
        assert sample(address, http, REQUESTS) == {"node1": REQUESTS}

        # dropped from the live set: garbage collection previews (no write; a run of its own, with --check), then
        # removes it; nothing listens, HAProxy has no server left, the address is free again
        assert playbooks.run([], "--check", "--diff", "-e", "garbage_collection_allow_empty=true", path=GC) == 0
        assert not refused(address, http) and pool_holds(engine, address)
        writes = runs.play()
        assert writes > 0
        assert wait_for(lambda: refused(address, http), timeout=5)
        # HAProxy is re-rendered after each delete the Engine carries out: under load the last one (the servers)
        # may land a moment after the binds' did
        assert wait_for(lambda: served_by(engine) == [], timeout=10), served_by(engine)
        assert refused(address, admin) and not pool_holds(engine, address)
        assert "frontend fe_" not in "".join(engine.haproxy()["config"].values())
        assert engine.haproxy()["errors"] == []
    finally:
        if held is not None:
            held.close()
        for node in nodes.values():
            node.stop()
