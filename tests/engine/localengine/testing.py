"""LocalEngine: tests/engine/run as a subprocess on a free loopback port, for tests and tools.

    with LocalEngine(seed="tests/engine/seeds/default.yml", deploy_delay=0.2, tag_match="substring") as engine:
        engine.api("GET", "/api/LBaaS/v1/loadbalancer.json")
        engine.set_faults({"errors": {"GET": {"503": 0.5}}, "seed": 1})
        engine.set_options(put="merge")   # until the next reset

Behaviour options (options.py: put, deploy_on, tag_match, tag_names, tag_delete, full_listings,
put_enable) are keyword
arguments; None leaves the strict default (or what ``extra_args`` says). ``dns=True`` serves the
CloudDNS zones with knot on a free loopback port (``engine.dns_port``); ``dns_deploy_delay`` is the
seconds a zone revision takes to deploy.
"""
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import warnings

import requests

from .options import OPTIONS, flag

RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run")
READY = "local engine listening on "
MUTATING = ("POST", "PUT", "PATCH", "DELETE")
TIMEOUT = 10   # seconds for any one HTTP call
TAIL = 6000    # characters of the Engine's stderr a failed start's message quotes (its last ones)


class _Silent(Exception):
    """An Engine start that printed nothing before its deadline (LocalEngine.start tries once more); its text is
    what the hung process's faulthandler dumped: the stack of every thread at the deadline."""


class SilentStartWarning(UserWarning):
    """A start of the local Engine was silent until its deadline and was tried once more; the warning carries
    the stacks the hung process dumped, for finding the cause."""


def written(handle):
    """What the Engine wrote so far to ``handle``, a file it shares with this process, read without moving the file
    position the two share (pread). A seek there moved the Engine's next write too: a ready line printed in two
    writes, read between them, had its newline written over its first byte after the seek back to 0, and the start
    waited a minute for a line it had missed (the "silent" starts of earlier runs; 2 in 300 reproduced with 1 ms
    polls)."""
    chunks, offset = [], 0
    while True:
        chunk = os.pread(handle.fileno(), 65536, offset)
        if not chunk:
            return b"".join(chunks).decode("utf-8", "replace")
        chunks.append(chunk)
        offset += len(chunk)


def tail(text):
    return text if len(text) <= TAIL else "[...]" + text[-TAIL:]


class LocalEngine:
    def __init__(self, token="test-token", seed=None, deploy_delay=0.0, update_delay=0.0, delete_delay=0.0,
                 state=None, extra_args=(), dns=False, dns_deploy_delay=0.0, **options):
        self.token = token
        self.args = [sys.executable, RUN, "--listen", "127.0.0.1:0", "--token", token, "--quiet",
                     "--deploy-delay", str(deploy_delay), "--update-delay", str(update_delay),
                     "--delete-delay", str(delete_delay), "--dns-deploy-delay", str(dns_deploy_delay)]
        self.args += ["--dns", "127.0.0.1:0"] if dns else []   # knot on a free loopback port: dns_port
        self.args += ["--seed", seed] if seed else []
        self.args += ["--state", state] if state else []
        for name, value in sorted(options.items()):
            if name not in OPTIONS:
                raise TypeError("LocalEngine: unknown option %r (known: %s)" % (name, ", ".join(sorted(OPTIONS))))
            self.args += [flag(name), value] if value is not None else []
        self.args += list(extra_args)
        self.proc = None
        self.url = None
        self.dns_port = None   # with dns=True: the loopback port (UDP and TCP) knot answers on
        self.http = None
        self._out = self._err = None

    def start(self, timeout=60):
        """Starts the Engine and waits (at most ``timeout`` seconds) for its ready line: generous, since on a
        fresh, busy machine the first start competes with every other process for two cores.

        A start that stays silent until then (alive, no ready line, nothing on stderr) is tried once more with a
        new process. Twice in some thirty full suites on a loaded machine an Engine seemed to print nothing for a
        minute; the stacks dumped below showed it serving, its line printed: this side had missed it, which
        ``written`` now prevents. The retry stays for a start that hangs for another reason. A start that fails
        (an exit, an error) is never tried again. The Engine runs with Python's faulthandler on
        (PYTHONFAULTHANDLER) and a start still alive at its deadline is sent SIGABRT, so it dumps the stack of
        every thread to stderr: a retried start says so in a SilentStartWarning carrying that dump, a failed one in
        its message (the tail of stderr, the dump included)."""
        try:
            return self._start(timeout)
        except _Silent as silent:
            warnings.warn(SilentStartWarning("the local Engine printed nothing within %gs and was started once more; "
                                             "its stacks at the deadline:\n%s" % (timeout, silent)), stacklevel=2)
            try:
                return self._start(timeout, last=True)
            except RuntimeError as exc:
                raise RuntimeError("%s\n(the start before was silent too; its stacks at the deadline:\n%s)"
                                   % (exc, silent)) from None

    def _start(self, timeout, last=False):
        self._out, self._err = tempfile.TemporaryFile(), tempfile.TemporaryFile()   # files: no pipe can fill up
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=self._out, stderr=self._err,
                                     env=dict(os.environ, PYTHONFAULTHANDLER="1"))
        deadline = time.monotonic() + timeout
        while True:
            line = "".join(written(self._out).partition("\n")[:2])   # the first line, with its newline once written
            if line.endswith("\n") and line.startswith(READY):
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                reason = "timeout" if self.proc.returncode is None else "exit %s" % self.proc.returncode
                silent = reason == "timeout" and not self.stderr()
                if reason == "timeout":
                    self._dump_stacks()
                error = tail(self.stderr())
                self.stop()
                if silent and not last:
                    raise _Silent(error)
                raise RuntimeError("the local Engine did not start (%s): %s" % (reason, error))
            time.sleep(0.02)
        self.url = line[len(READY):].strip()
        self.http = requests.Session()
        if "--dns" in self.args:
            self.dns_port = self.dns()["port"]
        return self

    def _dump_stacks(self, timeout=5.0):
        """SIGABRT to a start that hangs: its faulthandler writes every thread's stack to stderr, then it ends.
        Its core size limit is set to 0 first (from here: no preexec_fn, which can itself hang a fork), so the
        abort leaves no core file."""
        try:
            resource.prlimit(self.proc.pid, resource.RLIMIT_CORE, (0, 0))
        except (AttributeError, OSError):
            pass   # not Linux, or already gone: the abort below settles it
        self.proc.send_signal(signal.SIGABRT)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pass   # stop() kills it

    def stderr(self):
        """What the Engine wrote to stderr so far (errors, tracebacks)."""
        return written(self._err)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for handle in (self._out, self._err, self.http):
            if handle is not None:
                handle.close()
        self._out = self._err = self.http = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- admin API -----------------------------------------------------------------------------
    def admin(self, method, path, body=None):
        resp = self.http.request(method, self.url + "/_local/" + path, json=body, timeout=TIMEOUT)
        if resp.status_code != 200:
            raise RuntimeError("admin %s %s: %s %s" % (method, path, resp.status_code, resp.text))
        return resp.json()

    def reset(self):
        """Wipes all state, reseeds, clears the request log and the faults."""
        return self.admin("POST", "reset")

    def requests(self):
        return self.admin("GET", "requests")

    def reset_requests(self):
        return self.admin("POST", "requests/reset")

    def mutating_requests(self):
        """How many POST/PUT/PATCH/DELETE Engine requests the log holds."""
        return sum(n for method, n in self.requests()["by_method"].items() if method in MUTATING)

    def set_faults(self, faults):
        return self.admin("PUT", "faults", faults)

    def clear_faults(self):
        return self.set_faults({})

    def set_state(self, ident, state_title):
        """Forces an LBaaS object's state (e.g. "DeploymentError"); None ends that."""
        return self.admin("PUT", "objects/%s/state" % ident, {"state": state_title})

    def dump(self):
        return self.admin("GET", "dump")

    def options(self):
        return self.admin("GET", "options")

    def set_options(self, **options):
        """Changes behaviour options until the next reset, e.g. ``set_options(tag_match="substring")``."""
        return self.admin("PUT", "options", options)

    def tag_entities(self):
        """The account's tag entities, each with ``_carriers`` (resources carrying it)."""
        return self.dump()["tags"]

    def haproxy(self):
        """With --haproxy: {"config": {lb name: text}, "servers": [{name, status, ...}], "errors": [...], ...}."""
        return self.admin("GET", "haproxy")

    def dns(self):
        """With dns=True: {"host", "port", "zones": {name: serial knot serves}, "errors": [...], ...}."""
        return self.admin("GET", "dns")

    # ---- Engine API with the token -------------------------------------------------------------
    def api(self, method, path, **kw):
        """``requests`` call to the Engine API with the token; keyword arguments pass through."""
        kw["headers"] = dict(kw.get("headers") or {}, Authorization="Token " + self.token)
        kw.setdefault("timeout", TIMEOUT)
        return self.http.request(method, self.url + path, **kw)
