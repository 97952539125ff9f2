#!/usr/bin/env python
"""Where a no-op ``service`` task's CPU goes, and what the collection's lazy imports are worth (issue 40, item 6).

    .venv/bin/python tests/bench/import_cost.py [--rounds 9] [--direct 15] [--json /tmp/import_cost.json]
                                                [--only playbook,direct,stages,build,groups,classify]

Not part of ``make test`` or ``make bench``: it asserts nothing but that every run did what it should. Every figure
is CPU time (user + sys), not wall time: the machine is shared, so the runs of the compared arms are interleaved
(round after round, the arms in a new random order each round) and each figure is the median over the rounds with
its spread (min-max) and n. Plain CPython and ansible-core from the interpreter running this script.

It starts the local Engine (tests/engine, default seed), converges one service (1 load balancer, 2 ports, 1 address,
3 servers) and measures:

1. ``playbook``: whole one-task ``ansible-playbook`` runs, the CPU of the process tree (``os.wait4``: the
   controller, its workers, the shells they start and the module process), five arms: an
   ``ansible.builtin.debug`` task; the no-op ``service`` task; the same with the module process's own CPU logged
   (the interpreter is a bash script that runs Python and appends bash's ``times`` to a file); the same with the
   payload already built (tests/integration/callback_plugins/shared_ansiballz.py and a warmed
   $ANXLB_ANSIBALLZ_CACHE: ansible-core reads its payload from its cache instead of building it). The two last
   arms both load that callback, so their difference is the payload build alone; the fifth runs the no-op
   ``service`` task with the ``seams`` copy of the collection (below).
2. ``direct``: the kept payloads (ANSIBLE_KEEP_REMOTE_FILES=1) of four copies of the collection, run as the
   controller runs them (``python AnsiballZ_service.py``), the process's CPU by ``os.wait4``: ``lazy`` is the
   checkout; ``eager-write`` imports the write code with ``_reconcile/_run.py`` (the applier, the waiter and the
   operations of every family: ``_reconcile._apply``, ``_reconcile._wait``, ``_dns._apply``,
   ``_addresses._apply``, ``_gc._apply``: the finder then ships them all); ``eager-all`` imports, in every file,
   what any function of the file imports (every function-level import made a file-level one, each inside
   ``try``, as dnspython is optional); ``seams`` is eager-all but for the imports SEAMS names (the write code,
   check mode's predictions and overlays, what only the DNS options or --diff need: dnspython, service_info's
   zone reads, yaml), which stay in their functions: what the recommendation would make of the checkout. The
   copies live in a temporary directory and are never committed. Runs: a no-op; a writing run (a fourth server
   added, then removed again, alternating: each run writes); check mode (the fourth server added, --check); a
   task refused for its arguments.
3. ``stages``: the lazy no-op payload run by tests/bench/ansiballz_stages.py, which does what the AnsiballZ wrapper
   does and reads ``time.process_time()`` after each step: interpreter start; the wrapper (compiling the script,
   writing the zip); ansible-core's module loader and ``basic``; then, imported before the module runs so that
   each is charged to its own line, the module file's own imports (the collection's), requests (urllib3,
   charset_normalizer, idna, certifi, http, ssl, email), netaddr, the collection files the run imports, the other
   modules the run imports; then the run itself (the work: arguments, requests to the Engine, planning, output);
   and the exit (``wait4`` total minus the last checkpoint: finalizing the modules). Also the compile of the
   module file alone, and ``-X importtime`` runs (wall microseconds, summed per package) as a cross-check.
4. ``build``: the payload build alone (``module_common.recursive_finder`` and base64), in a fresh process per round
   for each copy of the collection, with the finder's parse of each file it ships timed by whose file it is.
5. ``groups``: what each group of function-level imports would add to a no-op if imported at file level: the
   group is imported after the no-op module has exited, in the same process (ansiballz_stages.py ``after``);
   n processes per group, each against a no-op process without it in the same round. The service's groups, and
   service_info's DNS reads after a service_info run without dns_zones.
6. ``classify``: each function-level import of plugins/, and the valid runs (one per module, and the service's
   no-op, check mode and DNS no-op) that load its file but not what it imports: those a file-level import would
   cost; an import whose module every such run loads anyway costs nothing at file level.
"""
import argparse
import ast
import base64
import io
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "engine")]

from localengine.testing import LocalEngine  # noqa: E402
from tests.bench.module_process import collections_path, module_payload  # noqa: E402

SEED = os.path.join(ROOT, "tests", "engine", "seeds", "default.yml")
PYTHON = sys.executable
PLAYBOOK = os.path.join(os.path.dirname(PYTHON), "ansible-playbook")
STAGES = os.path.join(HERE, "ansiballz_stages.py")
CALLBACKS = os.path.join(ROOT, "tests", "integration", "callback_plugins")
UTILS = "ansible_collections.anxcloud.lbaas.plugins.module_utils."
MODULE = "ansible_collections.anxcloud.lbaas.plugins.modules.service"

SERVICE = {"name": "web", "load_balancers": ["lb1"],
           "ports": [{"name": "http", "port": 8080}, {"name": "https", "port": 8443}],
           "addresses": ["127.0.10.5"],
           "servers": [{"name": "n%d" % i, "address": "10.0.0.%d" % i} for i in (1, 2, 3)]}
ADDED = dict(SERVICE, servers=SERVICE["servers"] + [{"name": "n4", "address": "10.0.0.4"}])
REFUSED = dict(SERVICE, ports=[{"name": "http", "port": "eighty"}])   # refused by the argument spec

# the write code behind the seam (Run._applier, Part.operations), as eager-write imports it with _reconcile/_run.py
EAGER_WRITE = ("from . import _apply as _eager_apply, _wait as _eager_wait  # noqa\n"
               "from .._dns import _apply as _eager_dns_apply  # noqa\n"
               "from .._addresses import _apply as _eager_addresses_apply  # noqa\n"
               "from .._gc import _apply as _eager_gc_apply  # noqa\n")

# the groups of function-level imports (what they import), as a file-level import would load them in a no-op
GROUPS = [
    ("dnspython", ["dns.exception", "dns.name", "dns.rdata", "dns.rdataclass", "dns.rdatatype", "dns.tokenizer"]),
    ("yaml (_diff_text)", ["yaml"]),
    ("write core (_reconcile._apply, _wait)", [UTILS + "_reconcile._apply", UTILS + "_reconcile._wait"]),
    ("write operations (_dns._apply: the service's; its payload has no _addresses._apply)", [UTILS + "_dns._apply"]),
    ("check-mode code (_reconcile._predictions, the three overlays)",
     [UTILS + "_reconcile._predictions", UTILS + "_lbaas._predicted", UTILS + "_dns._predicted",
      UTILS + "_addresses._predicted"]),
    ("address pools (_addresses._pool, _ippool, _plan, _model._ipam)",
     [UTILS + "_addresses._pool", UTILS + "_addresses._ippool", UTILS + "_addresses._plan", UTILS + "_model._ipam"]),
    ("_dns._run", [UTILS + "_dns._run"]),
]


# service_info loads these only with dns_zones
INFO_GROUPS = [("_dns._values, _dns._owners (service_info without dns_zones)",
                [UTILS + "_dns._values", UTILS + "_dns._owners"])]


def summary(values):
    values = sorted(values)
    return {"median": statistics.median(values), "min": values[0], "max": values[-1], "n": len(values)}


def fmt(s, scale=1.0, unit=""):
    return "%.3f%s (%.3f-%.3f, n=%d)" % (s["median"] * scale, unit, s["min"] * scale, s["max"] * scale, s["n"])


def cpu(cmd, env, cwd, expect=(0,)):
    """The CPU seconds (user + sys) of ``cmd`` and every process it waited for, by wait4; and the wall seconds."""
    started = time.monotonic()
    with open(os.path.join(cwd, "last.out"), "wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    rc = os.waitstatus_to_exitcode(status)
    if rc not in expect:
        with open(os.path.join(cwd, "last.out"), "rb") as out:
            raise RuntimeError("%s: exit %s\n%s" % (" ".join(cmd), rc, out.read()[-3000:].decode("utf-8", "replace")))
    return usage.ru_utime + usage.ru_stime, wall


def output(cwd):
    with open(os.path.join(cwd, "last.out"), "rb") as out:
        return out.read().decode("utf-8", "replace")


def module_result(cwd):
    text = output(cwd)
    return json.loads(text[text.index("{"):])


class Workspace:
    def __init__(self, engine, tmp):
        self.engine = engine
        self.tmp = tmp
        self.checkout = collections_path()
        self.variants = {"lazy": self.checkout,
                         "eager-write": self.copy("eager-write", eager_write),
                         "eager-all": self.copy("eager-all", eager_all),
                         "seams": self.copy("seams", seams)}
        self.playbooks = {}
        for name, task in (("debug", {"ansible.builtin.debug": {"msg": "hello"}}),
                           ("service", {"anxcloud.lbaas.service": SERVICE}),
                           ("added", {"anxcloud.lbaas.service": ADDED}),
                           ("refused", {"anxcloud.lbaas.service": REFUSED}),
                           ("service_info", {"anxcloud.lbaas.service_info": {"names": ["web"]}})):
            path = os.path.join(tmp, name + ".yml")
            with open(path, "w") as handle:
                json.dump([{"hosts": "localhost", "gather_facts": False, "tasks": [task]}], handle)
            self.playbooks[name] = path
        self.module_log = os.path.join(tmp, "module-times.log")
        self.interpreter = os.path.join(tmp, "timed-python")
        with open(self.interpreter, "w") as handle:   # bash's `times`: this shell's and its children's user/sys
            handle.write('#!/bin/bash\n"%s" "$@"\nrc=$?\ntimes >> "$MODULE_TIMES"\nexit $rc\n' % PYTHON)
        os.chmod(self.interpreter, 0o755)
        self.cache = os.path.join(tmp, "ansiballz-cache")
        os.mkdir(self.cache)

    def copy(self, name, transform):
        """A copy of the collection's files a run uses (galaxy.yml, meta, plugins) with ``transform`` applied."""
        top = os.path.join(self.tmp, name)
        dest = os.path.join(top, "ansible_collections", "anxcloud", "lbaas")
        os.makedirs(dest)
        shutil.copy(os.path.join(ROOT, "galaxy.yml"), dest)
        shutil.copytree(os.path.join(ROOT, "meta"), os.path.join(dest, "meta"))
        shutil.copytree(os.path.join(ROOT, "plugins"), os.path.join(dest, "plugins"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        transform(os.path.join(dest, "plugins"))
        return top

    def env(self, variant="lazy", **extra):
        env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=self.variants[variant], ANEXIA_API_URL=self.engine.url,
                   ANEXIA_TOKEN=self.engine.token, ANSIBLE_PYTHON_INTERPRETER=PYTHON, ANSIBLE_NOCOLOR="1",
                   ANSIBLE_RETRY_FILES_ENABLED="0", ANSIBLE_LOCALHOST_WARNING="0",
                   ANSIBLE_INVENTORY_UNPARSED_WARNING="0", ANSIBLE_LOCAL_TEMP=os.path.join(self.tmp, "local"))
        for name in ("ANSIBLE_CALLBACKS_ENABLED", "ANSIBLE_CALLBACK_PLUGINS", "ANXLB_ANSIBALLZ_CACHE",
                     "ANSIBLE_KEEP_REMOTE_FILES", "PYTHONPATH"):
            env.pop(name, None)
        env.update(extra)
        return env

    def playbook(self, name, env, expect=(0,), extra=()):
        return cpu([PLAYBOOK, "-i", "localhost,", "-c", "local", self.playbooks[name]] + list(extra), env, self.tmp,
                   expect)

    def kept(self, variant, name, label, expect=(0,), extra=()):
        """The payload ansible-core built for the ``name`` playbook's task with the ``variant`` collection."""
        remote = os.path.join(self.tmp, "kept", variant, label)
        os.makedirs(remote)
        self.playbook(name, self.env(variant, ANSIBLE_KEEP_REMOTE_FILES="1", ANSIBLE_REMOTE_TMP=remote), expect, extra)
        (found,) = [os.path.join(d, f) for d, _dirs, files in os.walk(remote) for f in files
                    if f.startswith("AnsiballZ_")]
        return found


def eager_write(plugins):
    path = os.path.join(plugins, "module_utils", "_reconcile", "_run.py")
    with open(path, "a") as handle:   # at the end: the files it imports import _run (Part) back
        handle.write("\n\n# import_cost.py: the write code imported with this file\n" + EAGER_WRITE)


def eager_all(plugins):
    """Every import inside a function also at file level (the end of a module_utils file, before ``main``'s call in
    a module file), each in ``try``: a missing optional library (dnspython) stays reported as the code reports it."""
    for folder, _dirs, files in os.walk(plugins):
        for name in files:
            if name.endswith(".py"):
                hoist(os.path.join(folder, name))


# the imports the ``seams`` copy leaves in their functions: the write code, check mode's predictions and overlays, and
# what only one option needs (DNS: dnspython, service_info's zone reads; --diff: yaml for the diff text)
SEAMS = re.compile(r"\._apply\b|\._wait\b|\._predictions\b|\._predicted\b|^import dns\.|^import yaml\b|"
                   r"_dns\._values\b|_dns\._owners\b")


def seams(plugins):
    """Every function-level import also at file level (as ``eager_all``) but those SEAMS matches."""
    for folder, _dirs, files in os.walk(plugins):
        for name in files:
            if name.endswith(".py"):
                hoist(os.path.join(folder, name), keep=SEAMS.search)


def hoist(path, keep=lambda statement: False):
    with open(path) as handle:
        source = handle.read()
    tree = ast.parse(source)
    lines = source.splitlines(True)
    inner = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    inner.append("".join(lines[sub.lineno - 1:sub.end_lineno]).strip().split("#", maxsplit=1)[0].strip())
    if not inner:
        return
    block = "\n# import_cost.py: the imports of this file's functions, at file level\n"
    inner = [statement for statement in inner if not keep(statement)]
    if not inner:
        return
    for statement in sorted(set(inner)):
        block += "try:\n    %s  # noqa\nexcept ImportError:\n    pass\n" % statement
    main = source.find('\nif __name__ == "__main__":')
    source = source + block if main < 0 else source[:main] + "\n" + block + source[main:]
    with open(path, "w") as handle:
        handle.write(source)


def rounds(count, arms, run):
    """``run(arm)`` for every arm, ``count`` rounds, the arms in a new random order each round; {arm: [result]}."""
    results = {arm: [] for arm in arms}
    order = list(arms)
    for _round in range(count):
        random.shuffle(order)
        for arm in order:
            results[arm].append(run(arm))
    return results


def module_times(log):
    """The children's user+sys of each module process the timed interpreter ran (bash ``times``, 2nd line)."""
    with open(log) as handle:
        lines = [line.split() for line in handle.read().splitlines() if line.strip()]
    seconds = [sum(float(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", " ".join(pair)))
               for pair in lines[1::2]]
    os.unlink(log)
    return seconds


def measure_playbook(ws, count):
    timed = os.path.join(ws.tmp, "module.times")
    callbacks = dict(ANSIBLE_CALLBACK_PLUGINS=CALLBACKS, ANSIBLE_CALLBACKS_ENABLED="shared_ansiballz",
                     ANSIBLE_PYTHON_INTERPRETER=ws.interpreter, MODULE_TIMES=timed)
    envs = {"debug": ("debug", ws.env()), "service": ("service", ws.env()),
            "service, module timed": ("service", ws.env(**callbacks)),
            "service, module timed, payload cached": ("service", ws.env(ANXLB_ANSIBALLZ_CACHE=ws.cache, **callbacks)),
            "service, the seams copy": ("service", ws.env("seams"))}
    ws.playbook("service", envs["service, module timed, payload cached"][1])   # warms the cache
    os.unlink(timed)
    module = {}

    def run(arm):
        book, env = envs[arm]
        seconds, _wall = ws.playbook(book, env)
        if "timed" in arm:
            (module_cpu,) = module_times(timed)
            module.setdefault(arm, []).append(module_cpu)
            assert "changed=0" in output(ws.tmp), output(ws.tmp)[-2000:]
        return seconds

    results = rounds(count, list(envs), run)
    timed_arm, cached_arm = "service, module timed", "service, module timed, payload cached"
    build = [a - b for a, b in zip(results[timed_arm], results[cached_arm])]
    controller = [t - m for t, m in zip(results[timed_arm], module[timed_arm])]
    extra = [s - d for s, d in zip(results["service"], results["debug"])]
    after = [a - s for a, s in zip(results["service, the seams copy"], results["service"])]
    other = [c - m - d for c, m, d in zip(results[cached_arm], module[cached_arm], results["debug"])]
    return {"total": {arm: summary(v) for arm, v in results.items()},
            "module process (bash times)": {arm: summary(v) for arm, v in module.items()},
            "service - debug (same round)": summary(extra),
            "the seams copy - service (same round)": summary(after),
            "payload build (timed - cached, same round)": summary(build),
            "controller of the timed service (total - module)": summary(controller),
            "controller's other extra work (cached - its module - debug, same round)": summary(other)}


def measure_direct(ws, count):
    payloads = {}
    for variant in ws.variants:
        payloads[variant, "noop"] = ws.kept(variant, "service", "noop")
        payloads[variant, "added"] = ws.kept(variant, "added", "added")
        payloads[variant, "removed"] = ws.kept(variant, "service", "removed")
        payloads[variant, "refused"] = ws.kept(variant, "refused", "refused", expect=(2,))
        payloads[variant, "check"] = ws.kept(variant, "added", "check", extra=["--check"])
    env = ws.env()

    def direct(payload, expect=(0,)):
        return cpu([PYTHON, payload], env, ws.tmp, expect)[0]

    def check(changed):
        result = module_result(ws.tmp)
        assert result.get("changed") is changed and not result.get("failed"), result

    def run(arm):
        variant, kind = arm
        if kind == "noop":
            seconds = direct(payloads[variant, "noop"])
            check(False)
            return seconds
        if kind == "refused":
            seconds = direct(payloads[variant, "refused"], expect=(1,))
            assert "port" in module_result(ws.tmp)["msg"], output(ws.tmp)
            return seconds
        if kind == "check":
            seconds = direct(payloads[variant, "check"])
            check(True)
            return seconds
        seconds = direct(payloads[variant, "added"])
        check(True)
        removed = direct(payloads[variant, "removed"])
        check(True)
        return seconds, removed

    arms = [(v, k) for v in ws.variants for k in ("noop", "write", "check", "refused")]
    results = rounds(count, arms, run)
    table = {}
    for (variant, kind), values in results.items():
        if kind == "write":
            table[variant, "write (server added)"] = summary([a for a, _r in values])
            table[variant, "write (server removed)"] = summary([r for _a, r in values])
            table[variant, "write (both)"] = summary([a for a, _r in values] + [r for _a, r in values])
        else:
            table[variant, kind] = summary(values)
    for kind in ("noop", "write (both)", "check", "refused"):   # paired with the lazy run of the same round
        for variant in ("eager-write", "eager-all", "seams"):
            key = "write" if kind.startswith("write") else kind
            if key == "write":
                pairs = [(a + r) / 2 - (la + lr) / 2
                         for (a, r), (la, lr) in zip(results[variant, key], results["lazy", key])]
            else:
                pairs = [x - y for x, y in zip(results[variant, key], results["lazy", key])]
            table[variant, kind + ": minus lazy, same round"] = summary(pairs)
    return {"%s / %s" % key: value for key, value in table.items()}, payloads


def top_level_imports(payload):
    """The modules the module file imports at its top (absolute names), read from the payload's zip."""
    with open(payload) as handle:
        data = re.search(r"zip_data='([^']*)'", handle.read()).group(1)
    archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(data)))
    tree = ast.parse(archive.read(MODULE.replace(".", "/") + ".py"))
    package = MODULE.rsplit(".", 1)[0].split(".")
    names = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            names.append(".".join(base + node.module.split(".")))
        elif isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
    return names


def staged(ws, payload, config, expect=(0,)):
    out = os.path.join(ws.tmp, "stages.json")
    path = os.path.join(ws.tmp, "stages-config.json")
    with open(path, "w") as handle:
        json.dump(dict(config, out=out), handle)
    total, _wall = cpu([PYTHON, STAGES, payload, path], ws.env(), ws.tmp, expect)
    with open(out) as handle:
        result = json.load(handle)
    os.unlink(out)
    return total, result


def measure_stages(ws, payload, count):
    """The no-op payload by ansiballz_stages.py, ``count`` times: CPU seconds per step (see the module's docstring,
    3.); what the run imports is learnt from a first run."""
    _total, first = staged(ws, payload, {})
    imported = first["imported"]
    ours = [m for m in imported if m.startswith("ansible_collections.")]
    libraries = ("requests", "urllib3", "charset_normalizer", "idna", "certifi", "netaddr")
    others = [m for m in imported if not m.startswith(("ansible_collections.",) + libraries)]
    config = {"stages": [["the collection: the module file's imports", top_level_imports(payload)],
                         ["requests (urllib3, charset_normalizer, idna, certifi, http, ssl, email)",
                          ["requests", "requests.adapters"]],
                         ["netaddr", ["netaddr"]],
                         ["the collection: the files the run imports", ours],
                         ["the standard library's modules the run imports", others]],
              "after": [["compile of the module file alone (not part of the run's total)", ["compile:" + MODULE]]]}
    lines, totals = {}, []
    for _round in range(count):
        total, result = staged(ws, payload, config)
        assert result["code"] == 0, result
        marks = result["checkpoints"]
        previous = 0.0
        for name, seconds in marks:
            lines.setdefault(name, []).append(seconds - previous)
            previous = seconds
        run_end = [s for n, s in marks if n == "run"][0]
        after = marks[-1][1] - run_end   # the after-step: no part of the run
        lines.setdefault("exit (wait4 total minus the last checkpoint: finalizing the modules)", []).append(
            total - marks[-1][1])
        totals.append(total - after)
    result = {name: summary(values) for name, values in lines.items()}
    result["total of the staged process (wait4, without the after-step)"] = summary(totals)
    result["what the run imported"] = "%d files of the collection, %d other modules" % (len(ours), len(others))
    return result


def measure_importtime(ws, payload, count):
    """``python -X importtime AnsiballZ_service.py``: the self time of each import (wall microseconds), summed per
    top-level package, and the collection's costliest files; the median over ``count`` runs."""
    per, files = {}, {}
    for _round in range(count):
        proc = subprocess.run([PYTHON, "-X", "importtime", payload], env=ws.env(), cwd=ws.tmp, capture_output=True,
                              text=True, check=True)
        sums = {}
        for line in proc.stderr.splitlines():
            found = re.match(r"import time:\s+(\d+) \|\s+\d+ \|(\s*)(\S+)", line)
            if not found:
                continue
            name = found.group(3)
            if name.startswith("ansible_collections"):
                key = "the collection"
                files.setdefault(name.split("lbaas.plugins.")[-1], []).append(int(found.group(1)) / 1e6)
            elif name.startswith("ansible"):
                key = "ansible-core (from the zip)"
            elif name.split(".")[0] in ("requests", "urllib3", "charset_normalizer", "idna", "certifi"):
                key = "requests, urllib3, charset_normalizer, idna, certifi"
            elif name.split(".")[0] in ("netaddr", "dns", "yaml"):
                key = name.split(".")[0]
            else:
                key = "the standard library"
            sums[key] = sums.get(key, 0) + int(found.group(1))
        for key, value in sums.items():
            per.setdefault(key, []).append(value / 1e6)
    result = {key: summary(values) for key, values in per.items()}
    top = sorted(files.items(), key=lambda item: -statistics.median(item[1]))[:12]
    result["the collection's costliest files (self time)"] = {name: summary(values) for name, values in top}
    return result


BUILD = r"""
import datetime, io, json, sys, time, zipfile
from ansible.plugins.loader import init_plugin_loader, module_loader
init_plugin_loader([sys.argv[1]])
from ansible.executor import module_common
from ansible._internal._ansiballz import _builder
from ansible._internal._datatag._tags import Origin
path = module_loader.find_plugin_with_context(sys.argv[2]).plugin_resolved_path
with open(path, "rb") as handle:
    data = handle.read()
parse = {}
compile_ast = module_common._compile_module_ast
def timed(name, source):   # the finder's parse of each file it ships, timed by the file's owner
    started = time.process_time()
    try:
        return compile_ast(name, source)
    finally:
        key = "ansible_collections" if name.startswith("ansible_collections") else "ansible"
        parse[key] = parse.get(key, 0.0) + time.process_time() - started
module_common._compile_module_ast = timed
class Archive(zipfile.ZipFile):   # the finder's writes into the zip (deflate), timed
    def writestr(self, *args, **kwargs):
        started = time.process_time()
        try:
            return super().writestr(*args, **kwargs)
        finally:
            parse["zip"] = parse.get("zip", 0.0) + time.process_time() - started
started = time.process_time()
out = io.BytesIO()
archive = Archive(out, mode="w", compression=zipfile.ZIP_DEFLATED)
module_common.recursive_finder(sys.argv[2].rsplit(".", 1)[-1], sys.argv[3], Origin(path=path).tag(data), archive,
                               datetime.datetime.now(), _builder.ExtensionManager())
archive.close()
zipped = time.process_time()
import base64
base64.b64encode(out.getvalue())
done = time.process_time()
print(json.dumps({"build": done - started, "zip": parse.pop("zip") + done - zipped, "parse": parse,
                  "files": len(archive.namelist())}))
"""


def measure_build(ws, count):
    """The payload build as ansible-core's worker does it (``module_common.recursive_finder``: find, parse and zip every
    file the module imports, at any depth and inside functions too; then base64), in a fresh process after the plugin
    loader is set up, ``count`` times: CPU seconds (process_time), with the finder's parse of each file
    (``_compile_module_ast``, ``compile(..., ast.PyCF_ONLY_AST)``) summed by whose file it is. The variants' payloads
    differ only where eager-write imports more (the finder follows function-level imports as it follows the others)."""
    per = {}
    for variant, path in ws.variants.items():
        for _round in range(count):
            cpu([PYTHON, "-c", BUILD, path, "anxcloud.lbaas.service", MODULE], ws.env(variant), ws.tmp)
            result = json.loads(output(ws.tmp).strip().splitlines()[-1])
            per.setdefault("%s: build (%d files)" % (variant, result["files"]), []).append(result["build"])
            per.setdefault("%s: parse of ansible-core's files" % variant, []).append(result["parse"]["ansible"])
            per.setdefault("%s: parse of the collection's files" % variant, []).append(
                result["parse"]["ansible_collections"])
            per.setdefault("%s: zip (deflate) and base64" % variant, []).append(result["zip"])
    return {name: summary(values) for name, values in per.items()}


PROBE = r"""
import json, runpy, sys
module, args, out = sys.argv[1:4]
sys.argv = [module, args]
code = None
try:
    runpy.run_module("ansible_collections.anxcloud.lbaas.plugins.modules." + module, run_name="__main__",
                     alter_sys=True)
except SystemExit as exc:
    code = exc.code
with open(out, "w") as handle:
    json.dump({"code": code, "modules": sorted(sys.modules)}, handle)
"""

# one valid run of each module (the second of two: a no-op where the module writes), and the service's variants
PROBES = [("service no-op", "service", SERVICE, False),
          ("service --check (a server added)", "service", dict(ADDED, check_mode_predictions=[]), True),
          ("service with dns, no-op", "service", dict(SERVICE, name="named", addresses=["127.0.10.6"],
                                                      dns={"zone": "local.test", "name": "named"}), False),
          ("backend no-op", "backend", {"load_balancer": "lb1", "name": "own", "mode": "tcp"}, False),
          ("frontend_info", "frontend_info", {"load_balancer": "lb1"}, False),
          ("loadbalancer_info (tree)", "loadbalancer_info", {"name": "lb1", "tree": True}, False),
          ("service_info", "service_info", {"names": ["web"]}, False),
          ("gc, nothing to collect", "gc", {"keep": ["web", "named"]}, False),
          ("ip_pool_info", "ip_pool_info", {"pool": ["anxlb-pool=demo"]}, False),
          ("ip_address no-op", "ip_address", {"pool": ["anxlb-pool=demo"], "owner": "held", "family": "v4"}, False),
          ("dns_record no-op", "dns_record", {"zone": "local.test", "name": "w2", "type": "A", "values": ["127.0.0.6"]},
           False),
          ("dns_zone_info", "dns_zone_info", {}, False),
          ("dns_record_info", "dns_record_info", {"zone": "local.test"}, False)]


def function_imports():
    """Every import statement inside a function of plugins/: (file as a module name, line, the module it imports)."""
    found = []
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "plugins")):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            module = "ansible_collections.anxcloud.lbaas." + os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
            with open(path) as handle:
                tree = ast.parse(handle.read())
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for sub in ast.walk(node):
                        if isinstance(sub, ast.Import):
                            found += [(module, sub.lineno, a.name) for a in sub.names]
                        elif isinstance(sub, ast.ImportFrom):
                            base = module.split(".")[:len(module.split(".")) - sub.level] if sub.level else []
                            found.append((module, sub.lineno, ".".join(base + ([sub.module] if sub.module else []))))
    return sorted(set(found))


def classify(ws):
    """Which function-level imports a valid run of each module loads anyway: for each run (PROBES, each module run
    twice as ``python -m`` would, from the checkout), the modules loaded when it exits; for each import, the runs
    that load its file but not what it imports (those a file-level import would cost)."""
    env = dict(ws.env(), PYTHONPATH=ws.checkout)
    loaded = {}
    for label, module, args, check in PROBES:
        args = {k: v for k, v in args.items() if v is not None}
        path = os.path.join(ws.tmp, "probe-args.json")
        with open(path, "w") as handle:
            json.dump(module_payload(module, args, check=check), handle)
        out = os.path.join(ws.tmp, "probe.json")
        for _attempt in range(2):
            cpu([PYTHON, "-c", PROBE, module, path, out], env, ws.tmp)
        result = module_result(ws.tmp)
        assert not result.get("failed") and (check or not result.get("changed")), (label, result)
        with open(out) as handle:
            loaded[label] = set(json.load(handle)["modules"])
    rows = {}
    for module, line, target in function_imports():
        where = "%s:%d" % (module.split("lbaas.plugins.")[-1], line)
        runs = [label for label, modules in loaded.items()
                if module in modules or (".modules." in module and label_module(label) == module.rsplit(".", 1)[-1])]
        missing = [label for label in runs if target not in loaded[label]]
        told = ("loaded anyway by every run that loads the file (%d)" % len(runs) if not missing
                else "not loaded by: " + "; ".join(missing))
        rows.setdefault(target, []).append("%s: %s" % (where, told))
    return rows


def label_module(label):
    return [module for name, module, _args, _check in PROBES if name == label][0]


def measure_groups(ws, payload, count):
    """Each group of GROUPS imported after the no-op service has exited, and of INFO_GROUPS after a service_info run,
    ``count`` rounds against the run alone: what a file-level import of the group would add to that run."""
    payloads = {"service": payload, "service_info": ws.kept("lazy", "service_info", "service_info")}
    groups = [("service", name, targets) for name, targets in GROUPS]
    groups += [("service_info", name, targets) for name, targets in INFO_GROUPS]
    arms = [(module, "alone") for module in payloads] + [(module, name) for module, name, _targets in groups]
    configs = {(module, name): {"after": [[name, targets]]} for module, name, targets in groups}

    def run(arm):
        total, result = staged(ws, payloads[arm[0]], configs.get(arm, {}))
        assert result["code"] == 0, result
        inside = result["checkpoints"][-1][1] - result["checkpoints"][-2][1] if arm[1] != "alone" else 0.0
        return total, inside, result["imported"]

    results = rounds(count, arms, run)
    table = {}
    for module, name, _targets in groups:
        alone = results[module, "alone"]
        table["%s: %s" % (module, name)] = {
            "in-process (process_time of the imports)": summary([i for _t, i, _m in results[module, name]]),
            "whole process minus the run alone, same round (wait4)":
                summary([t - b for (t, _i, _m), (b, _bi, _bm) in zip(results[module, name], alone)])}
    loaded = set(results["service", "alone"][0][2])
    table["already loaded by a no-op (cost nothing at file level)"] = sorted(
        m for m in ("requests", "urllib3", "netaddr", "yaml", "dns") if m in loaded)
    return table


def seed(tmp):
    """The default seed (two load balancers, two prefixes) with the zones of the DNS seed (for the probes)."""
    with open(SEED) as handle:
        data = yaml.safe_load(handle)
    with open(os.path.join(ROOT, "tests", "engine", "seeds", "dns.yml")) as handle:
        data["zones"] = yaml.safe_load(handle)["zones"]
    path = os.path.join(tmp, "seed.yml")
    with open(path, "w") as handle:
        yaml.safe_dump(data, handle)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--rounds", type=int, default=9, help="rounds of the playbook arms (default 9)")
    parser.add_argument("--direct", type=int, default=15, help="rounds of the module-process arms (default 15)")
    parser.add_argument("--only", default="playbook,direct,stages,build,groups,classify")
    parser.add_argument("--json", help="write the results there too")
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args()
    random.seed(args.seed)
    only = args.only.split(",")
    report = {}
    with tempfile.TemporaryDirectory(prefix="import-cost-") as tmp, LocalEngine(seed=seed(tmp)) as engine:
        ws = Workspace(engine, tmp)
        ws.playbook("service", ws.env())    # converges the service: every later `service` run is a no-op
        if "playbook" in only:
            report["1. one-task ansible-playbook (CPU-s of the process tree)"] = measure_playbook(ws, args.rounds)
        payloads = None
        if "direct" in only:
            report["2. the module process, kept payloads run directly (CPU-s, wait4)"], payloads = \
                measure_direct(ws, args.direct)
        lazy = payloads["lazy", "noop"] if payloads else ws.kept("lazy", "service", "noop")
        if "stages" in only:
            report["3. inside the no-op module process (CPU-s, process_time checkpoints)"] = \
                measure_stages(ws, lazy, args.direct)
            report["3b. -X importtime of the no-op payload (wall s of the imports' self time, per package)"] = \
                measure_importtime(ws, lazy, args.rounds)
        if "build" in only:
            report["4. the payload build on the controller (CPU-s, process_time)"] = measure_build(ws, args.rounds)
        if "groups" in only:
            report["5. a group of function-level imports made file-level: added to a run (CPU-s)"] = \
                measure_groups(ws, lazy, args.direct)
        if "classify" in only:
            report["6. each function-level import: is its module loaded anyway by a valid run?"] = classify(ws)
    report["machine"] = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "load at the end": os.getloadavg()}
    emit(report)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=1, sort_keys=True)


def emit(report):
    for section, table in report.items():
        print("\n## " + section)
        for key, value in table.items():
            if isinstance(value, dict) and "median" in value:
                print("  %-70s %s" % (key, fmt(value)))
            elif isinstance(value, dict):
                print("  " + key)
                for sub, inner in value.items():
                    shown = fmt(inner) if isinstance(inner, dict) and "median" in inner else inner
                    print("    %-68s %s" % (sub, shown))
            else:
                print("  %-70s %s" % (key, value))


if __name__ == "__main__":
    main()
