"""Integration harness: real ``ansible-playbook`` runs against the local Engine over loopback.

``ansible.run(tasks, check=..., diff=...)`` writes a playbook for localhost, runs it in a
subprocess with the collection on the collections path and the Engine's URL and token in the
environment (the modules' env fallbacks), and returns the recorded task results.
``ansible.session(plays)`` does the same for several plays, played one at a time: a test that acts on the
Engine between steps runs its steps as the plays of one run, which starts ansible-playbook once.

``module(name, args, check=..., diff=...)`` runs one module of the collection as its own process
against the same Engine, without the controller (a third of a playbook task's CPU time): for
matrices of bad input, where each case only checks the module's own refusal. What the controller
does (templating, no_log masking of its output, module_defaults, the action plugins' carrying of
predictions between tasks, the environment it hands on) is proved on ``ansible``.
Each such process is forked from a server that imported Ansible's module base, the libraries and the collection's
module_utils once per session (``ForkedModule``: a fifth of a fresh process's CPU time or less), and runs the module
as ``python -m`` does. ``fresh_module`` starts a fresh ``python -m`` process instead: for what a fresh process imports
and for processes that must run at the same time (``module`` refuses overlapping runs rather than queue them, so
that no test believes it ran two at once).
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import pytest
import yaml
from localengine.testing import MUTATING

from ..bench.module_process import ModuleRun, module_environ, module_payload, result_of, run_module
from ..conftest import COLLECTIONS, SHARED_PAYLOADS   # the collections path, made once for the session

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def sent(engine, start, end):
    """The local Engine's log entries of the requests that began and were answered between ``start`` and
    ``end`` (time.time(), the log's clock)."""
    return [e for e in engine.requests()["log"] if start <= e["start"] and e["end"] <= end]


def writes(entries):
    """How many of the log ``entries`` are mutating requests."""
    return len([e for e in entries if e["method"] in MUTATING])


class Run:
    """The results of one playbook run; ``run[i]`` is the i-th task's result dict."""

    def __init__(self, proc, records):
        self.proc = proc
        self.records = records
        self.rc = proc.returncode

    def __getitem__(self, index):
        return self.records[index]["result"]

    def requests(self, engine, index):
        """The local Engine's log entries of the requests the ``index``-th task sent (by time: the
        tasks of one play run one after another)."""
        return sent(engine, self.records[index]["start"], self.records[index]["end"])

    def writes(self, engine, index):
        """How many mutating requests the ``index``-th task sent."""
        return writes(self.requests(engine, index))

    @property
    def last(self):
        return self.records[-1]["result"]

    def failed(self, index=-1):
        return self.records[index]["status"] == "failed"

    def task(self, name):
        """The one record of the task called ``name`` (templated names as shown in the output)."""
        (found,) = [r for r in self.records if r["task"] == name]
        return found

    def __repr__(self):
        last = self.records[-1]["result"].get("msg") if self.records else None
        return "Run(rc=%s, last msg=%r)\n%s\n%s" % (self.rc, last, self.proc.stdout[-4000:], self.proc.stderr[-4000:])


class Session:
    """The plays of one ansible-playbook run, played one at a time. The run starts at once and waits before each
    play (callback_plugins/record.py); ``next()`` lets it play its next play and returns that play's ``Run`` when
    the play has finished. Between two ``next()`` the test reads and changes the Engine as it would between two
    runs, and the plays pay one start-up of ansible-playbook instead of one each. ``Run.rc`` is None while the
    run waits, its exit status after the last play. If a play ends the run (a failed host plays no further
    play), the plays left come back empty."""

    # how long to wait between two looks at the run: 5 ms at first, each wait half as long again, at most 0.1 s (a play
    # takes seconds; looking every 5 ms all along cost the test's process seconds of CPU in a long session)
    POLL, POLL_MAX = 0.005, 0.1

    def __init__(self, ansible, paths, plays, extra_args=(), cwd=None):
        """``paths``: the playbooks of the run, ``plays`` plays in all; ``extra_args`` follow them on the command line."""
        self.plays = plays
        self.played = 0
        self.record, env = ansible.recorded()
        self.pause = self.record.with_suffix(".pause")
        self.pause.mkdir()
        self.out, self.err = self.record.with_suffix(".out"), self.record.with_suffix(".err")
        env["RECORD_PAUSE"] = str(self.pause)
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.proc = subprocess.Popen(ansible.command(*paths) + list(extra_args), env=env, stdout=out, stderr=err,
                                         stdin=subprocess.DEVNULL, text=True, cwd=cwd)

    def next(self):
        assert self.played < self.plays, "all %d plays were played" % self.plays
        index, self.played = self.played, self.played + 1
        (self.pause / ("go-%d" % index)).touch()
        paused = self.pause / ("paused-%d" % (index + 1))
        deadline, wait = time.monotonic() + 600, self.POLL
        while self.proc.poll() is None and not paused.exists():
            if time.monotonic() > deadline:
                self.close()
                raise AssertionError("play %d of %s did not finish in 600 s" % (index, self.pause))
            time.sleep(wait)
            wait = min(wait * 1.5, self.POLL_MAX)
        finished = subprocess.CompletedProcess(self.proc.args, self.proc.returncode, self.out.read_text(),
                                               self.err.read_text())
        return Run(finished, [r for r in records_in(self.record) if r["play"] == index])

    def close(self):
        """Ends the run if the test stopped before its last play."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Ansible:
    def __init__(self, engine, tmp_path):
        self.engine = engine
        self.tmp_path = tmp_path
        self.count = 0
        self.sessions = []

    def env(self, token=True):
        env = dict(os.environ)
        env.update(SHARED_PAYLOADS)
        env.update(
            ANSIBLE_COLLECTIONS_PATH=COLLECTIONS,
            ANSIBLE_CALLBACKS_ENABLED="record," + SHARED_PAYLOADS["ANSIBLE_CALLBACKS_ENABLED"],
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_RETRY_FILES_ENABLED="0",
            ANSIBLE_LOCALHOST_WARNING="0",
            ANSIBLE_INVENTORY_UNPARSED_WARNING="0",
            ANSIBLE_PYTHON_INTERPRETER=sys.executable,
            ANEXIA_API_URL=self.engine.url,
        )
        env.pop("ANEXIA_TOKEN", None)
        if token:
            env["ANEXIA_TOKEN"] = self.engine.token
        return env

    def run(self, tasks, check=False, diff=False, token=True, extra_args=(), vars=None, play=None):
        """Runs ``tasks`` (a task dict or a list of them) on localhost; returns a ``Run``.
        ``play`` adds play keywords (e.g. ``module_defaults``)."""
        if isinstance(tasks, dict):
            tasks = [tasks]
        path = self.write([(tasks, dict({"vars": vars or {}}, **(play or {})))])
        return self.playbook(path, check=check, diff=diff, token=token, extra_args=extra_args)

    def write(self, plays):
        """A playbook of ``plays``, (tasks, play keywords) each, for localhost without facts; its path."""
        self.count += 1
        path = self.tmp_path / ("play%d.yml" % self.count)
        path.write_text(yaml.safe_dump([dict({"hosts": "localhost", "gather_facts": False, "tasks": tasks}, **keywords)
                                        for tasks, keywords in plays], sort_keys=False))
        return str(path)

    def session(self, plays):
        """Several plays in one ansible-playbook run, played one at a time with the test acting in between (a
        ``Session``): one start-up and one module build for all of them, where a run each would pay both again.
        ``plays`` are (tasks, play keywords), e.g. ``(tasks, {"check_mode": True, "diff": True})``; the keywords
        do for one play what --check and --diff do for a run (but ``ansible_check_mode`` stays false, which roles
        read: a role in check mode needs a run with --check)."""
        return self.started(Session(self, [self.write(plays)], len(plays)))

    def playbooks(self, paths, extra_args=(), cwd=None):
        """The playbook files ``paths`` (one play each, e.g. playbooks/service_loadbalancer.yml more than once) by one
        ansible-playbook run, played one at a time as a ``session``'s plays are; ``extra_args`` as on the command line.
        Extra vars hold for the whole run, but a vars file the playbook reads (``-e lbaas_vars_file=...``) is read when
        its play runs: the test may write it between plays. Not for several --check passes of the same service: check
        mode's predictions last for the rest of a run, so the second pass would start from the first's."""
        return self.started(Session(self, [str(p) for p in paths], len(paths), extra_args, cwd))

    def started(self, session):
        self.sessions.append(session)
        return session

    @staticmethod
    def command(*paths):
        return [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,", "-c", "local"] + list(
            paths)

    def recorded(self, token=True):
        """The path of a new record file and the environment of a run whose ``record`` callback writes it."""
        self.count += 1
        record = self.tmp_path / ("record%d.json" % self.count)
        env = self.env(token)
        env["RECORD_FILE"] = str(record)
        return record, env

    def playbook(self, path, check=False, diff=False, token=True, extra_args=(), cwd=None):
        """Runs a playbook file (e.g. one of playbooks/) on localhost, in directory ``cwd``; returns a ``Run``."""
        record, env = self.recorded(token)
        cmd = self.command(path)
        if check:
            cmd.append("--check")
        if diff:
            cmd.append("--diff")
        cmd.extend(extra_args)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                              check=False, cwd=cwd)
        return Run(proc, records_in(record))


def records_in(path):
    """The task results the ``record`` callback wrote to ``path``; none if the run wrote none."""
    return json.loads(path.read_text()) if path.exists() else []


def side(result, which):
    """One side (``before``/``after``) of a module's diff as data: the modules render it as YAML text."""
    text = result["diff"][which]
    return yaml.safe_load(text) if isinstance(text, str) else text


def sides(result):
    """Both sides of a module's diff as printed, without its headers (a real run's summary there says "added"
    where check mode's says "to add")."""
    return result["diff"]["before"], result["diff"]["after"]


@pytest.fixture(params=["ignore", "honour"])
def listings(engine, request):
    """How the test's Engine answers a listing's ``attributes=all`` (tests/engine/README.md, "Full listings"): as
    today's (``ignore``: every object read by its GET), and as one that lists whole objects (``honour``), for tests
    whose invariants must not depend on how objects were read. Set on ``engine`` until its next reset."""
    engine.set_options(full_listings=request.param)
    return request.param


@pytest.fixture
def ansible(engine, tmp_path):
    harness = Ansible(engine, tmp_path)
    yield harness
    for session in harness.sessions:
        session.close()


class ModuleResult:
    """One module process's result (``result``), its output as written (``text``) and the time it ran (the
    clock of the local Engine's request log)."""

    def __init__(self, run, start, end):
        self.run = run
        self.result = run.result
        self.text = run.text
        self.rc = run.rc
        self.start = start
        self.end = end

    def __getitem__(self, key):
        return self.result[key]

    @property
    def failed(self):
        return bool(self.result.get("failed")) and self.rc != 0

    def requests(self, engine):
        """The local Engine's log entries of the requests this process sent."""
        return sent(engine, self.start, self.end)

    def writes(self, engine):
        """How many mutating requests this process sent."""
        return writes(self.requests(engine))

    def message(self):
        """The message of a run that must have failed, answering its JSON without a traceback."""
        assert self.failed, self
        assert "Traceback" not in self.text and "Traceback" not in self.result.get("exception", ""), self
        return self.result["msg"]

    def __repr__(self):
        return "ModuleResult(rc=%s, msg=%r)\n%s" % (self.rc, self.result.get("msg"), self.text[-4000:])


class Module:
    """Runs a module of the collection as the controller starts it on localhost (``python -m``, its
    arguments as JSON with the internal options, the Engine's URL and token in the environment the way
    ``Ansible.env`` hands them on), but without the controller. In check mode a module whose action plugin
    (plugins/action/) predicts also gets the option the plugin adds there: the predictions of the play's
    earlier check-mode tasks, none, as for the first such task of a play."""

    ACTIONS = os.path.join(ROOT, "plugins", "action")

    def __init__(self, engine):
        self.engine = engine

    @classmethod
    def predicts(cls, name):
        """Whether the module's action plugin carries check mode's predictions (PredictingAction; service_info's only
        quiets its result)."""
        path = os.path.join(cls.ACTIONS, name + ".py")
        if not os.path.exists(path):
            return False
        with open(path) as handle:
            return "PredictingAction" in handle.read()

    def __call__(self, name, args, check=False, diff=False, token=True, pythonpath=None):
        """``pythonpath``: a directory put before the collection on the process's PYTHONPATH."""
        args = dict(args)
        if check and self.predicts(name):
            args["check_mode_predictions"] = []
        env = {"ANEXIA_API_URL": self.engine.url}
        if pythonpath:
            env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), COLLECTIONS])
        if token:
            env["ANEXIA_TOKEN"] = self.engine.token
        start = time.time()
        run = run_module(name, args, check=check, diff=diff, env=env, collections=COLLECTIONS)
        return ModuleResult(run, start, time.time())


@pytest.fixture
def fresh_module(engine):
    """``Module``: each run a fresh ``python -m`` process. For what a fresh process imports (``pythonpath``, lazy
    imports) and for module processes that must overlap (``module`` runs one at a time)."""
    return Module(engine)


class ModuleForkServer:
    """A process (tests/bench/module_forks.py) that has imported Ansible's module base, the libraries and the
    collection's module_utils once, and forks a module process from itself for each run (``ask``); started at the
    first run. Its CPU time and its children's count for the test process when it ends (``close``)."""

    SERVER = os.path.join(ROOT, "tests", "bench", "module_forks.py")

    def __init__(self, pythonpath=None):
        """``pythonpath``: a directory put before the collection on the server's PYTHONPATH (as ``Module`` puts it
        on a fresh process's), so that a library it hides is missing from the server's imports and from every
        child's, as from a fresh process's."""
        self.proc = None
        self.lock = threading.Lock()   # one run at a time (``ask``)
        self.env = module_environ({"PYTHONPATH": os.pathsep.join([str(pythonpath), COLLECTIONS])} if pythonpath else {},
                                  COLLECTIONS)

    def ask(self, request):
        """Runs ``request`` (module, args, out, env) in a forked process; its exit status and peak memory."""
        # Not a queue: a test that runs module processes from several threads means them to overlap, which forks
        # from one server cannot (each is waited for); it must use fresh_module, and is told so.
        if not self.lock.acquire(blocking=False):
            raise AssertionError("module processes that overlap (runs from several threads) need fresh_module")
        try:
            if self.proc is None:
                self.proc = subprocess.Popen([sys.executable, self.SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             env=self.env, cwd=tempfile.gettempdir(), text=True)
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            assert line, "the module fork server ended (rc %s)" % self.proc.poll()
            return json.loads(line)
        finally:
            self.lock.release()

    def close(self):
        with self.lock:
            if self.proc is not None:
                self.proc.stdin.close()
                self.proc.wait(timeout=60)
                self.proc.stdout.close()
                self.proc = None


class ForkedModule(Module):
    """``Module``, but each module process is forked from a ``ModuleForkServer``: it runs the module as a fresh
    ``python -m`` process does (its own process, arguments file, environment, output and exit status) for a fraction
    of the CPU time (most of which is imports). Not for what a fresh process imports (``pythonpath``, lazy imports)
    nor for module processes that must overlap (runs from several threads are refused): ``Module`` does those.
    Without a ``server`` it starts its own (``ModuleForkServer(pythonpath)``), which ``close()`` (or the end of a
    ``with`` block) ends."""

    def __init__(self, engine, server=None, pythonpath=None):
        super().__init__(engine)
        self.own = server is None
        self.server = ModuleForkServer(pythonpath) if server is None else server

    def __call__(self, name, args, check=False, diff=False, token=True, pythonpath=None):
        assert pythonpath is None, "a forked module process imports from the server's path: ModuleForkServer(pythonpath=...), or fresh_module"
        args = dict(args)
        if check and self.predicts(name):
            args["check_mode_predictions"] = []
        env = {"ANEXIA_API_URL": self.engine.url, "PYTHONPATH": self.server.env["PYTHONPATH"]}
        if token:
            env["ANEXIA_TOKEN"] = self.engine.token
        with tempfile.TemporaryDirectory() as tmp:
            request = {"module": name, "args": os.path.join(tmp, "args.json"), "out": os.path.join(tmp, "out"),
                       "env": module_environ(env, COLLECTIONS)}
            with open(request["args"], "w", encoding="utf-8") as handle:
                json.dump(module_payload(name, args, check, diff), handle)
            start, started = time.time(), time.monotonic()
            answer = self.server.ask(request)
            end = time.time()
            with open(request["out"], encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        run = ModuleRun(result_of(text), time.monotonic() - started, answer["peak_mb"], answer["rc"], text)
        return ModuleResult(run, start, end)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.own:
            self.server.close()


@pytest.fixture
def module(engine, module_fork_server):
    """A ``ForkedModule`` against the test's Engine, forked from the session's server: the module processes of the
    integration tests (``fresh_module`` for the few a fork cannot stand for)."""
    return ForkedModule(engine, module_fork_server)


def warning_texts(result):
    """A task's or a module process's warnings as text: strings, or (ansible-core 2.19) dicts, with the text in
    ``msg`` (a task's record) or in ``event.msg`` (a module's own output)."""
    def text(warning):
        if isinstance(warning, str):
            return warning
        return (warning.get("event") or warning).get("msg", json.dumps(warning))
    return [text(w) for w in result.get("warnings") or []]


class Steps:
    """Tasks of a play run as module processes one after another (``Module.tasks``), read as a ``Run`` is:
    ``steps[i]`` is the i-th result, ``requests``/``writes``/``failed`` by index. For tests whose subject is the
    modules' own behaviour task by task (plans, idempotence, check mode of each task, what is written), where the
    controller adds nothing but its cost. Unlike a play, a failed step does not stop the ones after it, and a
    check-mode step of a module with an action plugin gets no earlier step's predictions (as the first
    check-mode task of a play)."""

    def __init__(self, results):
        self.records = list(results)

    def __getitem__(self, index):
        return self.records[index].result

    def requests(self, engine, index):
        return self.records[index].requests(engine)

    def writes(self, engine, index):
        return self.records[index].writes(engine)

    @property
    def last(self):
        return self.records[-1].result

    def failed(self, index=-1):
        return self.records[index].failed

    def __repr__(self):
        return "Steps(\n%s)" % "\n".join(repr(r) for r in self.records)


def module_task(module, task, check=False, diff=False):
    """Runs one playbook task dict of a module of the collection (``{"anxcloud.lbaas.X": args}``, optionally
    ``check_mode``/``diff``; ``ignore_errors`` needs nothing here) as a module process; a ``ModuleResult``."""
    (key,) = [k for k in task if k.startswith("anxcloud.lbaas.")]
    return module(key[len("anxcloud.lbaas."):], task[key], check=task.get("check_mode", check),
                  diff=task.get("diff", diff))


def module_tasks(module, tasks, check=False, diff=False):
    """The playbook task dicts ``tasks`` run one after another as module processes (``module_task``); ``Steps``."""
    return Steps(module_task(module, task, check=check, diff=diff) for task in tasks)
