#!/usr/bin/env python
"""The service module's cost against a local Engine with injected latency: `make bench`.

    .venv/bin/python tests/bench/benchmark.py [--quick] [--no-fleet] [--out docs/benchmarks.md]
    .venv/bin/python tests/bench/benchmark.py --shape S1008 --latency 0.05 --out /tmp/s1008.md   # one figure
    .venv/bin/python tests/bench/benchmark.py --fleet-only --out /tmp/fleet.md                    # the 50-service rows
    .venv/bin/python tests/bench/benchmark.py --dns-only      # the CloudDNS rows, merged into docs/benchmarks.md
    .venv/bin/python tests/bench/benchmark.py --zone-only     # only dns_record_sets in a zone of 10,000 records

Starts the local Engine (tests/engine) and, at 0 and 50 ms of latency per request, runs the
`service` module as its own process (no Ansible controller around it) for S42 (3 ports, 2 addresses,
10 nodes: R = 42 objects), S42 on two load balancers and S1008 (2 ports, 2 addresses, 500 nodes):
fresh create, no-op, check mode (one node added, --check), node added, port added, node removed; at 50 ms
again against an Engine that lists whole objects (``attributes=all`` honoured: every phase) and one that
refuses the parameter (the no-ops).
For each run it reads the Engine's request log: requests by method, and the round trips in a row
(the longest chain of requests that did not overlap, from each request's start and end); and the
module process's wall time and peak memory (ru_maxrss). Rows for per-object modules in a loop (a
real playbook), the cloud controller's formulas, `dns_record` on one rrset in a zone of 1,000 records and
`dns_record_sets` on 200 record sets in a zone of 10,000 come next, then the role over 50 services on 5
load balancers, one after another and as a fleet (docs/fleet.md): their no-ops with pipelining off and on, and
against an Engine that lists whole objects, each with the CPU seconds of the controller and of the module
processes, and broken down by request path (what each reads, without identifiers). Prints the table and writes it
with the date and the machine to docs/benchmarks.md (only the generated part between its markers).
Not part of `make test`: it asserts nothing but that every run succeeded.
"""
import argparse
import datetime
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "engine")]

from localengine.testing import LocalEngine  # noqa: E402
from tests.bench.chain import by_method, by_path, describe, longest_chain  # noqa: E402
from tests.bench.module_process import collections_path, run_module  # noqa: E402
from tests.bench.role_pass import WRAPPER  # noqa: E402

sys.path.insert(0, collections_path())
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import build  # noqa: E402

SEED = os.path.join(ROOT, "tests", "engine", "seeds", "default.yml")
BEGIN, END = "<!-- benchmark:begin -->", "<!-- benchmark:end -->"
METHODS = ("GET", "POST", "PUT", "DELETE")


def service(name, ports, nodes, lbs):
    return {"name": name, "load_balancers": lbs,
            "ports": [{"name": "p%d" % i, "port": 8000 + i} for i in range(ports)],
            "addresses": ["127.0.10.5", "fd00:10::5"],
            "servers": [{"name": "n%d" % i, "address": "10.%d.%d.%d" % (1 + i // 62500, i // 250 % 250, i % 250 + 1)}
                        for i in range(nodes)]}


SHAPES = [("S42", service("s42", 3, 10, ["lb1"])), ("S42 on 2 LBs", service("s42", 3, 10, ["lb1", "lb2"])),
          ("S1008", service("s1008", 2, 500, ["lb1"]))]


def objects(svc):
    return len(svc["ports"]) * (2 + len(svc["addresses"]) + len(svc["servers"])) * len(svc["load_balancers"])


def phases(svc):
    added = dict(svc, servers=svc["servers"] + [{"name": "added", "address": "10.9.9.9"}])
    ported = dict(added, ports=added["ports"] + [{"name": "extra", "port": 9000}])
    removed = dict(ported, servers=ported["servers"][1:])
    return [("fresh create", svc, False), ("no-op", svc, False), ("check mode (node added)", added, True),
            ("node added", added, False), ("port added", ported, False), ("node removed", removed, False)]


class Row:
    per_path = False   # listed in the requests-per-path table too

    def __init__(self, scenario, latency, log, seconds=None, peak=None, note="", chain=None):
        self.scenario = scenario
        self.latency = latency
        self.counts = by_method(log) if log is not None else {}
        self.paths = by_path(log) if log is not None else {}
        self.total = len(log) if log is not None else None
        chain = longest_chain(log) if chain is None and log is not None else chain
        self.in_a_row = len(chain) if chain is not None else None
        self.chain = describe(chain) if chain else ""
        self.seconds = seconds
        self.peak = peak
        self.note = note

    def cells(self):
        def num(v, fmt="%d"):
            return "-" if v is None else fmt % v
        methods = " ".join("%s %d" % (m, self.counts[m]) for m in METHODS if self.counts.get(m))
        return [self.scenario, "%d ms" % round(self.latency * 1000), num(self.total), methods or "-",
                num(self.in_a_row), num(self.seconds, "%.2f"), num(self.peak, "%.0f"), self.note]


def engine_log(engine):
    time.sleep(0.05)   # the last answer is logged just before it leaves
    return engine.requests()["log"]


# How the Engine answers a listing's attributes=all (tests/engine/README.md, "Full listings"), and what the rows of
# each say after their scenario: today's ignores it (every object read by its GET).
LISTINGS = {"ignore": "", "honour": ", listings honoured", "refuse": ", listings refused"}


def module_rows(engine, latency, extra_concurrency=(), listings="ignore", only=None):
    """The rows of every shape and phase (``only``: of these phases; the others run unrecorded, to set the scene),
    against an Engine that answers ``attributes=all`` as ``listings`` says."""
    rows = []
    for shape, svc in SHAPES:
        engine.reset()
        engine.set_options(full_listings=listings)
        engine.set_faults({"latency": latency})
        for phase, declared, check in phases(svc):
            args = dict(declared, api_url=engine.url, api_token=engine.token)
            engine.reset_requests()
            run = run_module("service", args, check=check)
            log = engine_log(engine)
            if run.failed:
                raise SystemExit("%s %s failed: %s" % (shape, phase, run.result.get("msg")))
            mutating = sum(1 for e in log if e["method"] != "GET")
            if check and mutating:
                raise SystemExit("check mode sent %d mutating requests" % mutating)
            if only and phase not in only:
                continue
            note = "R = %d" % objects(declared) if phase == "fresh create" else ""
            rows.append(Row("%s %s%s" % (shape, phase, LISTINGS[listings]), latency, log, run.seconds, run.peak_mb, note))
            print(" | ".join(rows[-1].cells()), flush=True)
            if phase == "no-op" and latency and shape in extra_concurrency:
                engine.reset_requests()
                run = run_module("service", dict(args, api_concurrency=8))
                rows.append(Row("%s no-op, api_concurrency 8" % shape, latency, engine_log(engine), run.seconds,
                                run.peak_mb))
                print(" | ".join(rows[-1].cells()), flush=True)
    return rows


# ---- per-object modules in a loop (a real playbook) -------------------------------------------
def ansible_env(engine):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR="1",
               ANSIBLE_RETRY_FILES_ENABLED="0", ANSIBLE_LOCALHOST_WARNING="0",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="0", ANSIBLE_PYTHON_INTERPRETER=sys.executable,
               ANEXIA_API_URL=engine.url, ANEXIA_TOKEN=engine.token)
    return env


def playbook(engine, plays, tmp, name, extra=()):
    path = os.path.join(tmp, name)
    with open(path, "w") as handle:
        yaml.safe_dump(plays, handle, sort_keys=False)
    started = time.monotonic()
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), path] + list(extra),
                          env=ansible_env(engine), capture_output=True, text=True, cwd=tmp, check=False)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit("%s failed:\n%s\n%s" % (name, proc.stdout[-3000:], proc.stderr[-2000:]))
    return seconds


def per_object_tasks(svc):
    d = build(svc)
    lb, owner = svc["load_balancers"][0], svc["name"]
    names = dict((port, b["name"]) for port, b in d.by_kind["backend"].items())
    return [
        {"name": "backends", "anxcloud.lbaas.backend": {"load_balancer": lb, "name": "{{ item.name }}", "mode": "{{ item.mode }}",
                                                        "health_check": "{{ item.health_check }}", "owner": owner},
         "loop": list(d.by_kind["backend"].values())},
        {"name": "frontends", "anxcloud.lbaas.frontend": {"load_balancer": lb, "name": "{{ item.name }}", "mode": "{{ item.mode }}",
                                                          "default_backend": "{{ item.name }}", "owner": owner},
         "loop": list(d.by_kind["frontend"].values())},
        {"name": "binds", "anxcloud.lbaas.bind": {"load_balancer": lb, "frontend": "{{ item.frontend }}", "name": "{{ item.name }}",
                                                  "address": "{{ item.address }}", "port": "{{ item.port }}", "owner": owner},
         "loop": [dict(b, frontend=names[port]) for (port, _a), b in sorted(d.by_kind["bind"].items())]},
        {"name": "servers", "anxcloud.lbaas.server": {"load_balancer": lb, "backend": "{{ item.backend }}", "name": "{{ item.name }}",
                                                      "ip": "{{ item.ip }}", "port": "{{ item.port }}", "check": "{{ item.check }}",
                                                      "owner": owner},
         "loop": [dict(s, backend=names[port]) for (port, _n), s in sorted(d.by_kind["server"].items())]},
    ]


def per_object_row(engine, tmp, latency):
    svc = SHAPES[0][1]
    engine.reset()
    engine.set_faults({"latency": 0})
    run = run_module("service", dict(svc, api_url=engine.url, api_token=engine.token))
    if run.failed:
        raise SystemExit("per-object setup failed: %s" % run.result.get("msg"))
    engine.set_faults({"latency": latency})
    plays = [{"hosts": "localhost", "gather_facts": False, "tasks": per_object_tasks(svc)}]
    engine.reset_requests()
    seconds = playbook(engine, plays, tmp, "per_object.yml")
    log = engine_log(engine)
    if any(e["method"] != "GET" for e in log):
        raise SystemExit("the per-object no-op wrote to the Engine")
    return Row("S42 no-op, per-object modules in a loop (playbook)", latency, log, seconds, None,
               "wall time of the whole playbook")


def ccm_rows():
    """The cloud controller's requests for S42, all sequential (docs/benchmarks.md: counted from k8s-anexia-ccm's
    reconciliation code)."""
    p, s, r = 3, 10, 42   # ports, nodes, objects (2 addresses)

    def listing(n):
        return (n + 9) // 10 + 1 if n else 1
    rows = []
    for label, total in (("S42 no-op", 4 * r + 2 * ((r + 9) // 10) + 3),
                         ("S42 fresh create", 1 + 1 + 3 * r + listing(p) + 2 * p + listing(p * (2 + s)) + 2 * p * (2 + s)
                          + 2 * (listing(r) + 2 * r))):
        row = Row("%s, cloud controller (formula)" % label, 0.05, None)
        row.total = row.in_a_row = total
        row.note = "every request in a row"
        rows.append(row)
    return rows


# ---- CloudDNS: one rrset in a zone of 1,000 records (issue 29) ---------------------------------
BIG_ZONE = 1000


def dns_seed(tmp, count=BIG_ZONE):
    """A seed (tests/engine/seeds, ``zones``) with one zone of ``count`` A records, deployed at start."""
    path = os.path.join(tmp, "dns-seed.yml")
    records = [{"name": "h%d" % i, "type": "A", "rdata": "10.0.%d.%d" % (i // 250, i % 250 + 1), "comment": "bench"}
               for i in range(count)]
    with open(path, "w") as handle:
        yaml.safe_dump({"zones": [{"name": "bench.test", "ttl": 300, "records": records}]}, handle, sort_keys=False)
    return path


def dns_rows(tmp, latencies):
    """dns_record's create and no-op of one rrset in a zone of 1,000 records: the no-op must cost at most 2
    requests (issue 29), as it reads only its rrset (the records filtered by name and type), never the zone."""
    rows = []
    task = {"zone": "bench.test", "name": "app", "type": "A", "values": ["127.0.0.7", "127.0.0.8"], "ttl": 300}
    with LocalEngine(seed=dns_seed(tmp)) as engine:
        for latency in latencies:
            engine.reset()
            engine.set_faults({"latency": latency})
            for phase in ("create", "no-op"):
                engine.reset_requests()
                run = run_module("dns_record", dict(task, api_url=engine.url, api_token=engine.token))
                log = engine_log(engine)
                if run.failed or run.result.get("changed") != (phase == "create"):
                    raise SystemExit("dns_record %s failed: %s" % (phase, run.result.get("msg") or run.result))
                note = "zone of %d records; target ≤ 2 requests" % BIG_ZONE if phase == "no-op" else "zone of %d records" % BIG_ZONE
                rows.append(Row("DNS one rrset, dns_record %s" % phase, latency, log, run.seconds, run.peak_mb, note))
                print(" | ".join(rows[-1].cells()), flush=True)
    return rows


# ---- CloudDNS: 200 record sets in a zone of 10,000 records, one task (issue 41) ---------------
ZONE_FILL = 10000
ZONE_SETS = 200


def zone_rows(tmp, latencies):
    """dns_record_sets over 200 record sets in a zone of 10,000 records (the seed's ``fill``): create, no-op (at most 2
    requests: one listing), check mode with prune, a change of 20 (one changeset), and that change again with the
    Engine answering 429 (Retry-After 1 s) to the listing once and to the changeset twice: the client's back-off."""
    path = os.path.join(tmp, "zone-seed.yml")
    with open(path, "w") as handle:
        yaml.safe_dump({"zones": [{"name": "bench.test", "ttl": 300, "fill": ZONE_FILL}]}, handle)
    sets = [{"name": "s%d" % i, "type": "A", "values": ["127.0.%d.%d" % (2 + i // 250, i % 250 + 1)], "ttl": 300}
            for i in range(ZONE_SETS)]
    changed = [dict(s, values=["127.0.9.%d" % (i + 1)]) if i < 20 else s for i, s in enumerate(sets)]
    rate_limited = [dict(s, values=["127.0.8.%d" % (i + 1)]) if i < 20 else s for i, s in enumerate(sets)]
    base = {"zone": "bench.test", "owner": "bench"}
    phases = [("create", dict(base, record_sets=sets), False, None),
              ("no-op", dict(base, record_sets=sets), False, None),
              ("check mode, prune", dict(base, record_sets=sets[:190], prune=True), True, None),
              ("change of 20", dict(base, record_sets=changed), False, None),
              ("change of 20 under 429", dict(base, record_sets=rate_limited), False,
               {"retry_after": 1, "script": [{"method": "GET", "path": "/records", "status": 429, "count": 1},
                                             {"method": "POST", "path": "/changeset", "status": 429, "count": 2}]})]
    rows = []
    with LocalEngine(seed=path) as engine:
        for latency in latencies:
            engine.reset()
            for phase, args, check, faults in phases:
                engine.set_faults(dict(faults or {}, latency=latency))
                engine.reset_requests()
                run = run_module("dns_record_sets", dict(args, api_url=engine.url, api_token=engine.token), check=check)
                log = engine_log(engine)
                if run.failed or run.result.get("changed") != (phase != "no-op"):
                    raise SystemExit("dns_record_sets %s failed: %s" % (phase, run.result.get("msg") or run.result))
                changesets = len([e for e in log if e["method"] == "POST" and e["status"] == 200])
                note = {"no-op": "target ≤ 2 requests", "check mode, prune": "10 record sets to prune, 0 writes",
                        "change of 20": "%d changeset" % changesets,
                        "change of 20 under 429": "%d changeset; 429 on 1 listing and 2 changesets, each sent again "
                                                  "after Retry-After" % changesets}.get(phase, "")
                rows.append(Row("DNS zone of %d records, %d record sets, dns_record_sets %s" % (ZONE_FILL, ZONE_SETS, phase),
                                latency, log, run.seconds, run.peak_mb, note))
                print(" | ".join(rows[-1].cells()), flush=True)
    return rows


# ---- 50 services on 5 load balancers: the role, one after another and as a fleet ---------------
FLEET_SEED = """loadbalancers:
%s""" % "".join("  - {name: lb%d, identifier: 0a11ba1a00000000000000000000000%d}\n" % (i, i) for i in range(1, 6))


def fleet_services(count=50, lbs=5):
    return [{"name": "svc%02d" % i, "load_balancers": ["lb%d" % (i % lbs + 1)],
             "ports": [{"name": "web", "port": 80, "target_port": 8080}],
             "addresses": ["127.0.20.%d" % (i + 1)],
             "servers": [{"name": "a", "address": "127.0.0.1"}, {"name": "b", "address": "127.0.0.2"}]}
            for i in range(count)]


# The fleet's no-ops run three ways: today's Engine with ansible-core's default (no pipelining), the same with
# pipelining (each task's module payload piped to the interpreter instead of written, copied and deleted: it did not
# pay here, docs/benchmarks.md), and an Engine that lists whole objects (issue 42). Pipelining is set per run by an
# extra var, whatever a playbook says.
FLEET_NO_OPS = (("ignore", False), ("ignore", True), ("honour", False))


def fleet_rows(tmp, latency, forks):
    seed = os.path.join(tmp, "fleet-seed.yml")
    with open(seed, "w") as handle:
        handle.write(FLEET_SEED)
    services = fleet_services()
    wrapper = module_wrapper(tmp)
    inventory = os.path.join(tmp, "fleet-inventory.yml")
    with open(inventory, "w") as handle:
        yaml.safe_dump({"all": {"children": {"lbaas_services": {"hosts": dict(
            (s["name"], {"lbaas_service": s, "ansible_connection": "local", "ansible_python_interpreter": wrapper})
            for s in services)}}}}, handle, sort_keys=False)
    fleet = os.path.join(ROOT, "playbooks", "service_fleet.yml")
    role = os.path.join(tmp, "role_serial.yml")
    with open(role, "w") as handle:
        yaml.safe_dump([{"hosts": "localhost", "gather_facts": False, "vars": {"lbaas_services": services},
                         "roles": [{"role": "anxcloud.lbaas.service_loadbalancer"}]}], handle, sort_keys=False)
    fleet_cmd = ["-i", inventory, "-f", str(forks), fleet]
    role_cmd = [role, "-e", "ansible_python_interpreter=%s" % wrapper]
    rows = []
    with LocalEngine(seed=seed) as engine:
        engine.set_faults({"latency": latency})
        engine.reset_requests()
        created = timed_playbook(engine, tmp, fleet_cmd, pipelining=False)
        rows.append(Row("50 services on 5 LBs, fresh create, fleet (forks %d)" % forks, latency, engine_log(engine),
                        created.wall))
        print(" | ".join(rows[-1].cells()), flush=True)
        for listings, pipelining in FLEET_NO_OPS:
            engine.set_options(full_listings=listings)
            how = "%s, pipelining %s" % (LISTINGS[listings], "on" if pipelining else "off")
            engine.reset_requests()
            run = timed_playbook(engine, tmp, role_cmd, pipelining)
            serial = Row("50 services on 5 LBs, no-op, role (one after another)%s" % how, latency, engine_log(engine),
                         run.wall, note=run.cpu())
            rows.append(serial)
            print(" | ".join(rows[-1].cells()), flush=True)
            engine.reset_requests()
            run = timed_playbook(engine, tmp, fleet_cmd, pipelining)
            rows.append(Row("50 services on 5 LBs, no-op, fleet (forks %d)%s" % (forks, how), latency, engine_log(engine),
                            run.wall, note="%.1f× faster than one after another; %s" % (serial.seconds / run.wall, run.cpu())))
            # the role's loop against the fleet, in requests (issue 31: at most 1.2×); in the per-path table: today's and
            # the honouring Engine's
            serial.note = "the role's loop; %.2f× the fleet's requests; %s" % (serial.total / float(rows[-1].total), serial.note)
            serial.per_path = rows[-1].per_path = not pipelining
            print(" | ".join(rows[-1].cells()), flush=True)
    return rows


def module_wrapper(tmp):
    """The module interpreter of the fleet's runs: it starts the real one and logs that process's CPU time
    (tests/bench/role_pass.py, WRAPPER)."""
    path = os.path.join(tmp, "python-wrapper")
    with open(path, "w") as handle:
        handle.write(WRAPPER)
    os.chmod(path, 0o755)
    return path


class Timed:
    """One ansible-playbook run: wall seconds, CPU seconds of the controller (ansible-playbook, its forks, their shells)
    and of the module processes, and how many module processes ran."""

    def __init__(self, wall, total, modules):
        self.wall = wall
        self.modules = sum(m for m, _own in modules)
        self.processes = len(modules)
        self.controller = total - self.modules

    def cpu(self):
        return "CPU s: controller %.1f + modules %.1f (%d module processes)" % (self.controller, self.modules,
                                                                                self.processes)


def timed_playbook(engine, tmp, args, pipelining):
    """Runs ``ansible-playbook args`` with pipelining on or off (an extra var, above any playbook's setting); ``Timed``."""
    log = os.path.join(tmp, "modules.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(ansible_env(engine), ROLE_PASS_PYTHON=sys.executable, ROLE_PASS_LOG=log)
    cmd = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook")] + list(args) + [
        "-e", "ansible_pipelining=%s" % ("true" if pipelining else "false")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp, check=False)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit("%s failed:\n%s\n%s" % (" ".join(args), proc.stdout[-3000:], proc.stderr[-2000:]))
    with open(log) as handle:
        modules = [tuple(float(x) for x in line.split()[:2]) for line in handle if line.strip()]
    return Timed(wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), modules)


# ---- output ----------------------------------------------------------------------------------
HEADER = ["scenario", "latency", "requests", "by method", "round trips in a row", "module s", "peak MB", "note"]


def table(rows):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


def paths_table(rows):
    """Requests per path (chain.label: method and what it reads, without identifiers) of the rows marked per_path,
    one column each, busiest path first: where a no-op's requests go, so that a regression shows."""
    rows = [r for r in rows if r.per_path]
    if not rows:
        return ""
    paths = sorted(set(p for r in rows for p in r.paths), key=lambda p: (-max(r.paths.get(p, 0) for r in rows), p))
    lines = ["| path | " + " | ".join(r.scenario for r in rows) + " |", "|" + "---|" * (len(rows) + 1)]
    lines += ["| %s | %s |" % (p, " | ".join(str(r.paths.get(p, 0)) for r in rows)) for p in paths]
    lines.append("| all | %s |" % " | ".join(str(r.total) for r in rows))
    return "\n".join(lines)


def machine():
    cpus = os.cpu_count()
    try:
        load = "%.1f" % os.getloadavg()[0]
    except OSError:
        load = "?"
    return "%s %s, %s CPUs (load average %s at the end), Python %s" % (
        platform.system(), platform.machine(), cpus, load, platform.python_version())


def write(out, rows, chains, started):
    text = [BEGIN, "",
            "Generated by `make bench` (tests/bench/benchmark.py) on %s; machine: %s; %.0f s in all." % (
                started.strftime("%Y-%m-%d %H:%M UTC"), machine(), (datetime.datetime.utcnow() - started).total_seconds()),
            "", table(rows), ""]
    per_path = paths_table(rows)
    if per_path:
        text += ["Requests per path of the 50-service no-ops at 50 ms (the role's loop and the fleet; `list X`: a listing, "
                 "`GET X`: one object, `GET tags`: one core resource with its tags, `list by tag`: a tag listing):", "",
                 per_path, ""]
    text += ["Longest chains at 50 ms (what the round trips in a row are made of):", ""]
    text += ["- **%s**: %s" % (name, chain) for name, chain in chains]
    text += ["", END]
    body = "\n".join(text)
    if os.path.exists(out):
        old = open(out).read()
        if BEGIN in old and END in old:
            body = old[:old.index(BEGIN)] + body + old[old.index(END) + len(END):]
        else:
            body = old.rstrip() + "\n\n" + body + "\n"
    else:
        body = "# Benchmarks\n\n" + body + "\n"
    with open(out, "w") as handle:
        handle.write(body)


def merge(out, rows):
    """Puts ``rows`` into the scenario table of ``out``: each replaces the row of the same scenario and latency, or
    is added at the table's end (``--dns-only``: some rows measured again without running them all)."""
    lines = open(out).read().split("\n")
    heads = [i for i, line in enumerate(lines) if line.startswith("| scenario |")]
    if BEGIN not in lines or not heads:
        raise SystemExit("%s has no generated table to merge into; run make bench" % out)
    for row in rows:
        end = next((i for i in range(heads[0], len(lines)) if not lines[i].startswith("|")), len(lines))
        key = "| %s | %s |" % tuple(row.cells()[:2])
        same = [i for i in range(heads[0], end) if lines[i].startswith(key)]
        line = "| " + " | ".join(row.cells()) + " |"
        if same:
            lines[same[0]] = line
        else:
            lines.insert(end, line)
    with open(out, "w") as handle:
        handle.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--quick", action="store_true", help="50 ms only, S42 shapes only, no fleet")
    parser.add_argument("--no-fleet", action="store_true", help="skip the 50-service role runs")
    parser.add_argument("--fleet-only", action="store_true", help="only the 50-service rows (the table written then "
                        "has only those)")
    parser.add_argument("--forks", type=int, default=10)
    parser.add_argument("--shape", action="append", help="run only these shapes (S42, 'S42 on 2 LBs', S1008); "
                        "with --latency, a quick look at one figure (the table written then has only those rows)")
    parser.add_argument("--latency", type=float, action="append", help="latencies in seconds (default 0 and 0.05)")
    parser.add_argument("--dns-only", action="store_true", help="only the CloudDNS rows (one rrset in a zone of 1,000 "
                        "records; 200 record sets in a zone of 10,000), merged into the table of --out in place of the "
                        "same rows (the others stay)")
    parser.add_argument("--zone-only", action="store_true", help="only the rows of 200 record sets in a zone of 10,000 "
                        "records, merged as --dns-only merges")
    parser.add_argument("--listings", action="append", choices=sorted(LISTINGS),
                        help="the Engines whose module rows to measure: ignore (today's, at every latency), honour (all "
                        "phases) and refuse (the no-ops), the last two at 50 ms (default: all three)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    started = datetime.datetime.utcnow()
    if args.dns_only or args.zone_only:
        with tempfile.TemporaryDirectory() as tmp:
            latencies = tuple(args.latency or (0.0, 0.05))
            rows = ([] if args.zone_only else dns_rows(tmp, latencies)) + zone_rows(tmp, latencies)
        merge(args.out, rows)
        print("merged into %s" % args.out)
        return
    if args.quick:
        del SHAPES[2:]
    if args.shape:
        SHAPES[:] = [s for s in SHAPES if s[0] in args.shape]
    latencies = tuple(args.latency or ((0.05,) if args.quick else (0.0, 0.05)))
    rows, chains = [], []
    print(" | ".join(HEADER), flush=True)
    if args.fleet_only:
        with tempfile.TemporaryDirectory() as tmp:
            rows = fleet_rows(tmp, 0.05, args.forks)
        print(table(rows))
        print(paths_table(rows))
        write(args.out, rows, chains, started)
        print("written to %s" % args.out)
        return
    with LocalEngine(seed=SEED) as engine, tempfile.TemporaryDirectory() as tmp:
        engines = args.listings or ["ignore", "honour", "refuse"]
        runs = [(latency, "ignore") for latency in latencies if "ignore" in engines]
        runs += [(latency, listings) for listings in ("honour", "refuse") if listings in engines
                 for latency in latencies if latency]
        for latency, listings in runs:
            found = module_rows(engine, latency, extra_concurrency=("S42 on 2 LBs", "S1008") if listings == "ignore" else (),
                                listings=listings, only=("no-op",) if listings == "refuse" else None)
            rows += found
            if latency:
                chains += [(r.scenario, r.chain) for r in found if "check" not in r.scenario]
        if args.shape:
            args.no_fleet = True   # a quick look at some shapes: no playbook rows
        else:
            rows.append(per_object_row(engine, tmp, 0.05))
            print(" | ".join(rows[-1].cells()), flush=True)
            rows += ccm_rows()
            rows += dns_rows(tmp, latencies)
            rows += zone_rows(tmp, latencies)
        if not (args.quick or args.no_fleet):
            rows += fleet_rows(tmp, 0.05, args.forks)
    print(table(rows))
    write(args.out, rows, chains, started)
    print("written to %s" % args.out)


if __name__ == "__main__":
    main()
