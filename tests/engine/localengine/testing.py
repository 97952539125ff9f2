"""LocalEngine: start tests/engine/run as a subprocess on a free loopback port, for tests and tools."""
import os
import subprocess
import sys
import time

import requests

RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run")
MUTATING = ("POST", "PUT", "PATCH", "DELETE")


class LocalEngine(object):
    def __init__(self, token="test-token", seed=None, deploy_delay=0.0, update_delay=0.0, delete_delay=0.0,
                 state=None, extra_args=()):
        self.token = token
        self.args = [sys.executable, RUN, "--listen", "127.0.0.1:0", "--token", token,
                     "--deploy-delay", str(deploy_delay), "--update-delay", str(update_delay),
                     "--delete-delay", str(delete_delay)]
        if seed:
            self.args += ["--seed", seed]
        if state:
            self.args += ["--state", state]
        self.args += list(extra_args)
        self.proc = None
        self.url = None
        self.http = requests.Session()

    def start(self, timeout=15):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        line = self.proc.stdout.readline()   # the ready line, or EOF if it died
        if not line.startswith("local engine listening on ") or time.monotonic() > deadline:
            self.stop()
            raise RuntimeError("the local Engine did not start: %r %s" % (line, self.proc.stderr.read()[-2000:]))
        self.url = line.split()[-1]
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc:
            for stream in (self.proc.stdout, self.proc.stderr):
                stream.close()
        self.http.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- admin API -----------------------------------------------------------------------------
    def admin(self, method, path, json=None):
        resp = self.http.request(method, self.url + "/_local/" + path, json=json, timeout=10)
        resp.raise_for_status()
        return resp.json()

    def reset(self):
        return self.admin("POST", "reset")

    def requests(self):
        return self.admin("GET", "requests")

    def reset_requests(self):
        return self.admin("POST", "requests/reset")

    def mutating_requests(self):
        return sum(n for method, n in self.requests()["by_method"].items() if method in MUTATING)

    def set_faults(self, faults):
        return self.admin("PUT", "faults", faults)

    def clear_faults(self):
        return self.set_faults({})

    def set_state(self, ident, title):
        return self.admin("PUT", "objects/%s/state" % ident, {"state": title})

    def dump(self):
        return self.admin("GET", "dump")

    # ---- Engine API with the token -------------------------------------------------------------
    def api(self, method, path, **kw):
        headers = dict(kw.pop("headers", {}), Authorization="Token " + self.token)
        return self.http.request(method, self.url + path, headers=headers, timeout=kw.pop("timeout", 10), **kw)
