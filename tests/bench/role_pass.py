#!/usr/bin/env python
"""What one pass of playbooks/service_loadbalancer.yml costs: CPU seconds (the controller and its forks apart from the
module processes) and the local Engine's requests, for 1, 3 and 10 services, first apply and no-op rerun.

    .venv/bin/python tests/bench/role_pass.py [--counts 1 3 10] [--repeat 2] [--check] [--prune]

Each pass is a real `ansible-playbook playbooks/service_loadbalancer.yml -e lbaas_vars_file=FILE` as a user runs it
(no payload cache shared between runs). Half of the services take a v4 address from the seeded pool, the others
declare theirs. The modules run under a small interpreter wrapper that starts the real Python and writes the CPU
time of that module process (and its own, which is counted on the controller's side, where ansible-core's
`/bin/sh -c` around it is too); the whole run's CPU time is that of the ansible-playbook process and every process
below it. CPU seconds, not wall time; still, on a machine busy with other work they vary by up to a third from one
run to the next: compare variants run one after the other, several times each (the lowest figure of the repeats is
printed). With $ROLE_PASS_OUTPUT set, each run's output and its module processes are appended to that file. Asserts
nothing but that every run succeeded.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "engine")]

from localengine.testing import LocalEngine, MUTATING  # noqa: E402
from tests.bench.module_process import collections_path  # noqa: E402

SEED = os.path.join(ROOT, "tests", "engine", "seeds", "default.yml")
PLAYBOOK = os.path.join(ROOT, "playbooks", "service_loadbalancer.yml")
# The module interpreter: spawns the real one, waits, appends "<module CPU s> <own CPU s>" to $ROLE_PASS_LOG.
WRAPPER = """#!/usr/bin/python3 -S
import os, sys, resource
real = os.environ["ROLE_PASS_PYTHON"]
pid = os.posix_spawn(real, [real] + sys.argv[1:], os.environ)
_, status, used = os.wait4(pid, 0)
me = resource.getrusage(resource.RUSAGE_SELF)
with open(os.environ["ROLE_PASS_LOG"], "a") as log:
    log.write("%f %f %s\\n" % (used.ru_utime + used.ru_stime, me.ru_utime + me.ru_stime, os.path.basename(sys.argv[-1])))
os._exit(os.waitstatus_to_exitcode(status))
"""


def services(count):
    found = []
    for i in range(count):
        svc = {"name": "svc%02d" % i, "load_balancers": ["lb%d" % (i % 2 + 1)],
               "ports": [{"name": "web", "port": 8000 + i, "target_port": 18080}],
               "servers": [{"name": "a", "address": "127.0.0.1"}, {"name": "b", "address": "127.0.0.2"}]}
        if i % 2:
            svc["addresses"] = ["127.0.20.%d" % (i + 1)]
        else:
            svc["address_pool"] = ["anxlb-pool=demo"]
        found.append(svc)
    return found


def env_for(engine, tmp):
    wrapper = os.path.join(tmp, "python-wrapper")
    with open(wrapper, "w") as handle:
        handle.write(WRAPPER)
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR="1",
               ANSIBLE_RETRY_FILES_ENABLED="0", ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_INVENTORY_UNPARSED_WARNING="0",
               ANSIBLE_PYTHON_INTERPRETER=wrapper, ROLE_PASS_PYTHON=sys.executable,
               ROLE_PASS_LOG=os.path.join(tmp, "modules.log"), ANEXIA_API_URL=engine.url, ANEXIA_TOKEN=engine.token)
    return env


def one_pass(engine, env, vars_file, extra):
    """(total CPU s, module CPU s, module processes, requests, writes) of one ansible-playbook run."""
    log = env["ROLE_PASS_LOG"]
    if os.path.exists(log):
        os.remove(log)
    engine.reset_requests()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), PLAYBOOK,
                           "-e", "lbaas_vars_file=%s" % vars_file,
                           # the implicit localhost runs modules with ansible-playbook's own Python: only a variable
                           # overrides that
                           "-e", "ansible_python_interpreter=%s" % env["ANSIBLE_PYTHON_INTERPRETER"]] + list(extra),
                          env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit("the pass failed:\n%s\n%s" % (proc.stdout[-3000:], proc.stderr[-2000:]))
    total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    with open(log) as handle:
        rows = [[float(x) for x in line.split()[:2]] + line.split()[2:] for line in handle if line.strip()]
    if os.environ.get("ROLE_PASS_OUTPUT"):   # where to append each run's output and module processes
        with open(os.environ["ROLE_PASS_OUTPUT"], "a") as out:
            out.write(proc.stdout + "\n%r\n" % rows)
    module = sum(r[0] for r in rows)
    log_entries = engine.requests()["log"]
    return total, module, len(rows), len(log_entries), len([e for e in log_entries if e["method"] in MUTATING])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 3, 10])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--check", action="store_true", help="passes with --check --diff instead")
    parser.add_argument("--prune", action="store_true", help="with lbaas_prune: true")
    args = parser.parse_args()
    extra = ["--check", "--diff"] if args.check else []
    print("%-9s %-11s %8s %10s %8s %8s %9s %7s" % ("services", "pass", "CPU s", "controller", "modules", "module#",
                                                   "requests", "writes"))
    with tempfile.TemporaryDirectory() as tmp:
        for count in args.counts:
            vars_file = os.path.join(tmp, "services%d.yml" % count)
            with open(vars_file, "w") as handle:
                yaml.safe_dump({"lbaas_services": services(count), "lbaas_prune": args.prune}, handle, sort_keys=False)
            best = {}
            for _round in range(args.repeat):
                with LocalEngine(seed=SEED) as engine:
                    env = env_for(engine, tmp)
                    for phase in ("first apply", "no-op"):
                        got = one_pass(engine, env, vars_file, extra)
                        if phase not in best or got[0] < best[phase][0]:
                            best[phase] = got
            for phase, (total, module, processes, requests, writes) in best.items():
                print("%-9d %-11s %8.2f %10.2f %8.2f %8d %9d %7d"
                      % (count, phase, total, total - module, module, processes, requests, writes), flush=True)


if __name__ == "__main__":
    main()
