"""A seeded fault soak of the service module: random declarations across two load balancers while the
local Engine fails in every way it knows, and runs crash mid-way.

Each run executes the real module file (as Ansible does: a Python process given its arguments as
JSON; forked from a server that imported the libraries once, tests/bench/module_forks.py, and killed at a
random moment to crash it) against the local Engine over loopback. After every run the Engine is read through its admin
dump (which no fault touches) and these must hold:
- the run converged to its declaration, or failed with a clear message (never a traceback);
- no duplicate: no two objects of one name under one parent;
- once converged, every backend and frontend of the service carries its owner tag (its binds and
  servers are its by containment: children of a parent carrying it), and nothing of it is left on a
  load balancer it no longer names;
- a backend or frontend named as the service names them but without its tag (left by a run that ended
  between a create and its tag write) is never made by a converged run, and one on a load balancer of
  the declaration is adopted or named in the run's warnings;
- objects outside our parents that are not ours (a foreign service, untagged objects) are never written;
- two teams use the same service names under the prefixes ``anxlb`` and ``xanxlb`` (the latter with a
  ``name_suffix``) on the same load balancers: no write of one prefix's run names (in its path or body)
  an object of the other prefix's services, and their objects read back unchanged after it; now and
  then the other prefix's service is declared under exactly the names a converged run left, and fails
  before any write, naming ``name_suffix`` (every ``*-svc=`` tag is an owner, issue 18).
When the faults stop, one run per service converges and the next sends no mutating request.
The soak runs against today's Engine (every object read by its GET) and against one that lists whole objects
(``listings``), with the first half of the same runs there. Seed and run count are printed (``SOAK_SEED``/``SOAK_RUNS``
override them).
"""
import json
import os
import random
import tempfile
import time

from localengine.testing import MUTATING

from ..bench.module_process import module_environ
from ..conftest import COLLECTIONS


SEED = int(os.environ.get("SOAK_SEED", "20261123"))
RUNS = int(os.environ.get("SOAK_RUNS", "40"))
# Against an Engine that lists whole objects (``listings``: honour) the same seed plays its first half: the
# invariants must not depend on how objects were read, and the soak is the costliest test of the suite.
RUNS_BY_LISTINGS = {"ignore": RUNS, "honour": max(1, RUNS // 2)}
# by its import name, as Ansible runs it: its imports are relative to the collection
MODULE = "ansible_collections.anxcloud.lbaas.plugins.modules.service"
PORTS = [{"name": "http", "port": 8080, "target_port": 18080}, {"name": "https", "port": 8443, "target_port": 18443},
         {"name": "admin", "port": 9000, "mode": "http"}]
NODES = [{"name": "n%d" % i, "address": "127.0.0.%d" % i} for i in range(1, 5)]
# (tag prefix, service name): the same names under two prefixes, the second team's objects told apart by a suffix
SERVICES = [("anxlb", "alpha"), ("anxlb", "beta"), ("xanxlb", "alpha"), ("xanxlb", "beta")]
SUFFIX = {"anxlb": None, "xanxlb": "x"}
OTHER = {"anxlb": "xanxlb", "xanxlb": "anxlb"}
ADDRESSES = {("anxlb", "alpha"): ["127.0.10.20", "fd00:10::20"], ("anxlb", "beta"): ["127.0.10.21", "fd00:10::21"],
             ("xanxlb", "alpha"): ["127.0.10.22", "fd00:10::22"], ("xanxlb", "beta"): ["127.0.10.23", "fd00:10::23"]}


def declaration(rng, prefix, name):
    return {
        "name": name,
        "tag_prefix": prefix,
        "name_suffix": SUFFIX[prefix],
        "load_balancers": rng.sample(["lb1", "lb2"], rng.randint(1, 2)),
        "ports": [dict(p) for p in rng.sample(PORTS, rng.randint(1, 3))],
        "servers": [dict(n) for n in rng.sample(NODES, rng.randint(1, 4))],
        "addresses": rng.sample(ADDRESSES[(prefix, name)], rng.randint(1, 2)),
    }


def scheme(decl):
    """``<service>[.<name_suffix>]``, the tail of every object name of the service."""
    return decl["name"] + ("." + decl["name_suffix"] if decl.get("name_suffix") else "")


def faults(rng):
    """One random mix of what goes wrong: gateway errors and dropped connections on every method, a
    rate limit, tag writes that fail, creates that commit and then answer 504, deployments that fail
    or hang."""
    out = {"seed": rng.randint(0, 10 ** 6), "errors": {}, "script": [], "deploy": []}
    for method in ("GET", "POST", "PUT", "DELETE"):
        if rng.random() < 0.6:
            out["errors"][method] = {rng.choice(["500", "502", "503", "504", "drop"]): rng.choice([0.03, 0.08])}
    kind = rng.choice(["tag", "commit", "deploy", "rate", "conflict", "none"])
    if kind == "tag":
        out["script"].append({"method": "POST", "path": "/tags/", "status": rng.choice([500, 503, "drop"]),
                              "count": rng.randint(1, 6)})
    elif kind == "commit":
        out["script"].append({"method": "POST", "path": "/api/LBaaS/v1/*", "commit_then": rng.choice([504, "drop"]),
                              "count": rng.randint(1, 3)})
    elif kind == "deploy":
        out["deploy"].append({"match": "*", "outcome": rng.choice(["error", "stuck"]), "count": rng.randint(1, 2)})
    elif kind == "rate":
        out["script"].append({"method": "*", "path": "/api/", "status": 429, "count": 1})
    elif kind == "conflict":
        out["tag_conflicts"] = rng.randint(1, 4)
    return out


def run_module(server, args, timeout, module=MODULE.rsplit(".", 1)[1]):
    """The module (``module``; the service unless named) as Ansible runs it (its arguments file, its JSON on stdout), in
    a process forked from the session's ``module_fork_server`` (tests/bench/module_forks.py), killed once ``timeout`` seconds passed; returns (result or
    None when killed, stdout). Forked, the module works from its first moment: a short timeout kills it between two
    of its requests, not while a fresh interpreter is still importing."""
    with tempfile.TemporaryDirectory() as tmp:
        request = {"module": module, "args": os.path.join(tmp, "args.json"),
                   "out": os.path.join(tmp, "out"), "err": os.path.join(tmp, "err"),
                   "env": module_environ({}, COLLECTIONS), "timeout": timeout}
        with open(request["args"], "w") as handle:
            json.dump({"ANSIBLE_MODULE_ARGS": args}, handle)
        answer = server.ask(request)
        if answer["killed"]:
            return None, ""   # killed mid-way: a crash between any two requests
        with open(request["out"]) as out, open(request["err"]) as err:
            stdout, stderr = out.read(), err.read()
    try:
        return json.loads(stdout), stdout
    except ValueError:
        raise AssertionError("the module did not answer JSON (rc=%s):\n%s\n%s"
                             % (answer["rc"], stdout[-3000:], stderr[-3000:]))


class World:
    """The Engine's objects from the admin dump: no fault applies to it."""

    def __init__(self, engine):
        self.objs = dict((o["identifier"], o) for o in engine.dump()["objects"] if o["_kind"] in (
            "loadbalancer", "backend", "frontend", "bind", "server"))
        self.lb_names = dict((i, o["name"]) for i, o in self.objs.items() if o["_kind"] == "loadbalancer")

    def lb_of(self, obj):
        if obj["_kind"] in ("backend", "frontend"):
            return obj["load_balancer"]
        parent = self.objs.get(obj["frontend"] if obj["_kind"] == "bind" else obj["backend"])
        return self.lb_of(parent) if parent else None

    def parent_of(self, obj):
        return {"backend": obj.get("load_balancer"), "frontend": obj.get("load_balancer"),
                "bind": obj.get("frontend"), "server": obj.get("backend")}[obj["_kind"]]

    def duplicates(self):
        seen, dups = {}, []
        for obj in self.objs.values():
            if obj["_kind"] == "loadbalancer":
                continue
            key = (obj["_kind"], self.parent_of(obj), obj["name"])
            if key in seen:
                dups.append(key)
            seen[key] = obj
        return dups

    def ours(self, obj, tag):
        """docs/reconciliation.md, Ownership: carrying the owner tag, or a child of a parent carrying it."""
        if tag in obj["_tags"]:
            return True
        parent = self.objs.get(self.parent_of(obj)) if obj["_kind"] in ("bind", "server") else None
        return parent is not None and tag in parent["_tags"]

    def service(self, decl):
        """(lb name, kind, object name) of every object of the service."""
        tag = "%s-svc=%s" % (decl["tag_prefix"], decl["name"])
        return set((self.lb_names.get(self.lb_of(o)), o["_kind"], o["name"]) for o in self.objs.values()
                   if o["_kind"] != "loadbalancer" and self.ours(o, tag))

    def untagged_of(self, decl):
        """Backends and frontends of the service without its tag. Its binds and servers carry none: they are
        its by containment (their parent's tag)."""
        tag = "%s-svc=%s" % (decl["tag_prefix"], decl["name"])
        return sorted(o["name"] for o in self.objs.values()
                      if o["_kind"] in ("backend", "frontend") and self.ours(o, tag) and tag not in o["_tags"])

    def untagged_parents(self, decl):
        """{id: (lb name, kind, name)} of backends and frontends named as the service names them that do
        not carry its tag: what a run leaves that ends between a create and its tag write. Not the
        service's (nothing outside its parents is ever written), so they stay until adopted."""
        tag = "%s-svc=%s" % (decl["tag_prefix"], decl["name"])
        return dict((i, (self.lb_names.get(self.lb_of(o)), o["_kind"], o["name"])) for i, o in self.objs.items()
                    if o["_kind"] in ("backend", "frontend") and o["name"].split(".", 1)[-1] == scheme(decl)
                    and tag not in o["_tags"])

    def of_prefix(self, prefix):
        """{id: object} of every object of a service of ``prefix``: carrying one of its owner tags, or a child
        of a parent carrying one."""
        head = "%s-svc=" % prefix
        tags = set(t for o in self.objs.values() for t in o["_tags"] if t.startswith(head))
        return dict((i, o) for i, o in self.objs.items()
                    if o["_kind"] != "loadbalancer" and any(self.ours(o, t) for t in tags))


def expected(decl):
    out = set()
    for lb in decl["load_balancers"]:
        for port in decl["ports"]:
            suffix = "%s.%s" % (port["name"], scheme(decl))
            out.update([(lb, "backend", suffix), (lb, "frontend", suffix)])
            out.update((lb, "bind", "%s.%s" % ("v6" if ":" in a else "v4", suffix)) for a in decl["addresses"])
            out.update((lb, "server", "%s.%s" % (n["name"], suffix)) for n in decl["servers"])
    return out


def seed_foreign(engine):
    """Objects the soak must never write: another owner's service, and untagged objects, on both."""
    ids = []

    def create(kind, tag=None, **body):
        resp = engine.api("POST", "/api/LBaaS/v1/%s.json" % kind, json=body)
        resp.raise_for_status()
        ident = resp.json()["identifier"]
        if tag:
            engine.api("POST", "/api/core/v1/resource.json/%s/tags/%s" % (ident, tag), json="").raise_for_status()
        ids.append(ident)
        return ident

    lbs = dict((o["name"], o["identifier"]) for o in engine.dump()["objects"] if o["_kind"] == "loadbalancer")
    for lb_name, tag in (("lb1", "anxlb-svc=gamma"), ("lb2", None)):
        backend = create("backend", tag, name="5000.legacy", mode="tcp", load_balancer=lbs[lb_name])
        frontend = create("frontend", tag, name="5000.legacy", mode="tcp", load_balancer=lbs[lb_name],
                          default_backend=backend)
        create("bind", tag, name="v4.5000.legacy", address="127.0.10.99", port=5000, frontend=frontend)
        create("server", tag, name="n1.5000.legacy", ip="127.0.0.9", port=5000, backend=backend)
    return ids


def unstick(engine):
    """A hung deployment ends when its fault does (the Engine's operators fix it): force what is still
    stuck to Deployed, so the next run starts from an Engine that answers again."""
    for obj in engine.dump()["objects"]:
        if (obj.get("_phase") or {}).get("outcome") == "stuck" and not obj.get("_forced"):
            engine.set_state(obj["identifier"], "Deployed")


def module_args(engine, decl, check=False):
    return dict(decl, api_url=engine.url, api_token=engine.token, wait=True, wait_timeout=4, lease_timeout=3,
                api_retries=2, _ansible_check_mode=check, _ansible_diff=False)


def say(record_property, text):
    """Printed at the end of every run of the suite (tests/conftest.py), also from an xdist worker."""
    record_property("summary", text)


def writes_naming(entries, ids):
    """The mutating requests among ``entries`` that name one of ``ids`` in their path or body."""
    return [(e["method"], e["path"]) for e in entries if e["method"] in MUTATING
            and any(i in e["path"] or i in json.dumps(e.get("body")) for i in ids)]


def collision(engine, server, decl, where):
    """The other prefix's same-named service declared under exactly the names a converged run of ``decl``
    left (same suffix, ports and load balancers): it fails before any write, naming name_suffix."""
    other = OTHER[decl["tag_prefix"]]
    probe = dict(decl, tag_prefix=other, addresses=ADDRESSES[(other, decl["name"])][:1])
    engine.reset_requests()
    result, _out = run_module(server, module_args(engine, probe), timeout=120)
    assert result.get("failed") and "name_suffix" in result.get("msg", ""), "%s: collision probe %r" % (where, result)
    assert "carrying %s-svc=%s" % (decl["tag_prefix"], decl["name"]) in result["msg"], where
    assert engine.mutating_requests() == 0, "%s: the collision probe wrote" % where


def test_fault_soak(engine, listings, record_property, module_fork_server):
    rng = random.Random(SEED)
    runs = RUNS_BY_LISTINGS[listings]
    say(record_property, "fault soak (full listings: %s): seed %d, %d runs (SOAK_SEED / SOAK_RUNS to change)"
        % (listings, SEED, runs))
    foreign = seed_foreign(engine)
    before = dict((i, o) for i, o in World(engine).objs.items() if i in foreign)
    written = []           # every mutating request of the soak's runs
    last = {}
    untagged_before = {}   # service -> what untagged_parents() showed after its last run
    outcomes = {"converged": 0, "failed": 0, "crashed": 0, "collisions refused": 0}
    for number in range(runs):
        prefix, name = rng.choice(SERVICES)
        decl = declaration(rng, prefix, name)
        last[(prefix, name)] = decl
        others = World(engine).of_prefix(OTHER[prefix])   # the other team's objects, before this run
        engine.reset_requests()
        engine.set_faults(faults(rng))
        crash = rng.random() < 0.15
        result, _out = run_module(module_fork_server, module_args(engine, decl),
                                  timeout=rng.uniform(0.3, 1.5) if crash else 120)
        engine.clear_faults()
        log = engine.requests()["log"]
        written.extend(e for e in log if e["method"] in MUTATING)
        unstick(engine)
        world = World(engine)
        where = "run %d (%s %s, seed %d)" % (number, prefix, name, SEED)
        assert writes_naming(log, others) == [], "%s: wrote the other prefix's objects" % where
        assert dict((i, world.objs.get(i)) for i in others) == others, "%s: the other prefix's objects changed" % where
        left = world.untagged_parents(decl)
        assert not world.duplicates(), "%s: duplicates %s" % (where, world.duplicates())
        if result is None:
            outcomes["crashed"] += 1
        elif result.get("failed"):
            outcomes["failed"] += 1
            msg = result.get("msg") or ""
            assert msg and "Traceback" not in msg and "MODULE FAILURE" not in msg, "%s: %r" % (where, result)
        else:
            outcomes["converged"] += 1
            assert world.service(decl) == expected(decl), "%s: not converged" % where
            assert world.untagged_of(decl) == [], "%s: untagged objects of ours" % where
            # A converged run leaves no untagged object of its own making; one an interrupted run left
            # on a load balancer of the declaration is adopted (its port is declared) or reported.
            made = set(left) - set(untagged_before.get((prefix, name), {}))
            assert not made, "%s: left untagged %s" % (where, [left[i] for i in made])
            warnings = json.dumps(result.get("warnings") or [])   # texts (or, from ansible-core 2.19, dicts)
            unreported = [v for i, v in left.items() if v[0] in decl["load_balancers"] and i not in warnings]
            assert not unreported, "%s: untagged objects named as ours, not reported: %s" % (where, unreported)
            if rng.random() < 0.3:
                collision(engine, module_fork_server, decl, where)
                outcomes["collisions refused"] += 1
        untagged_before[(prefix, name)] = left
    say(record_property, "fault soak outcomes: %s" % outcomes)
    # Nothing outside our parents that is not ours was ever written (the request log), nor changed.
    assert not [r for r in written if any(ident in r["path"] for ident in foreign)]
    assert dict((i, o) for i, o in World(engine).objs.items() if i in foreign) == before
    # Faults over (leases of crashed runs may still live for lease_timeout): one run converges each
    # service, the next sends no mutating request.
    engine.clear_faults()
    for key, decl in sorted(last.items()):
        for attempt in range(10):
            result, _out = run_module(module_fork_server, module_args(engine, decl), timeout=120)
            if not result.get("failed") or "leased by" not in result.get("msg", ""):
                break
            time.sleep(1)
        assert not result.get("failed"), result
        assert World(engine).service(decl) == expected(decl) and World(engine).untagged_of(decl) == []
        engine.reset_requests()
        result, _out = run_module(module_fork_server, module_args(engine, decl), timeout=120)
        assert not result.get("failed") and result["changed"] is False, result
        assert engine.mutating_requests() == 0
    assert outcomes["converged"] and outcomes["failed"]
