#!/usr/bin/env python
"""Benchmark: Engine requests and wall time of the service module against the local Engine.

    .venv/bin/python tests/bench/service_requests.py [--latency 0.02] [--ports 2] [--servers 3] [--lbs 1]

Runs a fresh create, a no-op rerun and a delete of one service, each a real ansible-playbook run,
and prints the Engine's own request counts per phase next to the cloud controller's figures
(docs/benchmarks.md, counted from k8s-anexia-ccm's reconciliation code) for the same shape.
"""
import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "engine")]

from localengine.testing import LocalEngine  # noqa: E402
from tests.integration.conftest import Ansible  # noqa: E402


class Dir:
    def __init__(self, path):
        self.path = path

    def __truediv__(self, name):
        from pathlib import Path
        return Path(self.path) / name


def ccm(p, a, s, m):
    """The cloud controller's request counts for P ports, A addresses, S servers, M load balancers."""
    r = p * (2 + a + s)

    def listing(n):
        return (n + 9) // 10 + 1 if n else 1
    noop = m * (1 + 2 * listing(m * r) + 4 * m * r)
    create = 1 + 1 + 3 * r + listing(p) + 2 * p + listing(p * (2 + s)) + 2 * p * (2 + s) + 2 * (listing(r) + 2 * r)
    delete = 5 * r + 2 * listing(r) + 4
    return {"create": create if m == 1 else None, "noop": noop, "delete": delete if m == 1 else None}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--ports", type=int, default=2)
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--lbs", type=int, default=1)
    args = parser.parse_args()
    service = {"name": "bench", "load_balancers": ["lb1", "lb2"][:args.lbs],
               "ports": [{"name": "p%d" % i, "port": 8000 + i} for i in range(args.ports)],
               "addresses": ["127.0.10.5"],
               "servers": [{"name": "n%d" % i, "address": "127.0.0.%d" % (i + 1)} for i in range(args.servers)]}
    seed = os.path.join(ROOT, "tests", "engine", "seeds", "default.yml")
    with LocalEngine(seed=seed) as engine, tempfile.TemporaryDirectory() as tmp:
        engine.set_faults({"latency": args.latency})
        ansible = Ansible(engine, Dir(tmp))
        expected = ccm(args.ports, 1, args.servers, args.lbs)
        print("service: %d ports, 1 address, %d servers, %d load balancer(s); latency %.3fs per request"
              % (args.ports, args.servers, args.lbs, args.latency))
        print("%-8s %9s %9s %9s %10s" % ("phase", "requests", "writes", "ccm", "seconds"))
        for phase, state in (("create", "present"), ("noop", "present"), ("delete", "absent")):
            engine.reset_requests()
            started = time.monotonic()
            run = ansible.run({"anxcloud.lbaas.service": dict(service, state=state)})
            elapsed = time.monotonic() - started
            if run.failed():
                raise SystemExit("%s failed: %s" % (phase, run.last.get("msg")))
            counts = engine.requests()
            writes = sum(n for m, n in counts["by_method"].items() if m != "GET")
            print("%-8s %9d %9d %9s %10.2f" % (phase, counts["total"], writes, expected[phase] or "-", elapsed))


if __name__ == "__main__":
    main()
