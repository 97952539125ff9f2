"""Backend web servers that answer with their own name, and traffic through a load balancer address:
what the demo (scripts/demo.py) and the end-to-end test share. Loopback only, bounded in time.

    python tests/e2e/backends.py node1 127.0.0.1 18080 18081     # one node, serving until SIGTERM

``Node`` runs that as a child process (so one node can be stopped alone); ``sample`` sends requests,
each on a new connection, and counts which node answered; ``refused`` tells whether a port is closed.
"""
import collections
import ctypes
import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

READY = "serving"
TIMEOUT = 2.0   # seconds for one request through the load balancer


def _die_with_parent():
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG: no orphan keeps a port


class Node:
    """One backend web server process on ``host`` answering ``<name>\\n`` on every port of ``ports``."""

    def __init__(self, name, host, ports):
        self.name, self.host, self.ports = name, host, list(ports)
        self.proc = None

    def start(self, timeout=10.0):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), self.name, self.host]
                                     + [str(p) for p in self.ports], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, text=True, preexec_fn=_die_with_parent)
        ready = threading.Event()
        threading.Thread(target=lambda: (self.proc.stdout.readline(), ready.set()), daemon=True).start()
        if not ready.wait(timeout) or self.proc.poll() is not None:
            self.stop()
            raise RuntimeError("backend %s did not start on %s:%s" % (self.name, self.host, self.ports))
        return self

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc.stdout.close()
        self.proc = None

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None


def ask(address, port, timeout=TIMEOUT, source=None):
    """The body of GET / on a new connection (the load balancer picks the next server per connection),
    or the error's class name; ``source``: the (loopback) address the client connects from."""
    conn = http.client.HTTPConnection(address, port, timeout=timeout, source_address=(source, 0) if source else None)
    try:
        conn.request("GET", "/", headers={"Connection": "close"})
        resp = conn.getresponse()
        return resp.read().decode("utf-8", "replace").strip() if resp.status == 200 else "HTTP %d" % resp.status
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    finally:
        conn.close()


def sample(address, port, count):
    """Counter of who answered ``count`` requests (node names, or error names)."""
    return collections.Counter(ask(address, port) for attempt in range(count))


def refused(address, port, timeout=TIMEOUT):
    """True when nothing listens on address:port (connection refused)."""
    try:
        socket.create_connection((address, port), timeout=timeout).close()
    except ConnectionRefusedError:
        return True
    return False


def wait_for(predicate, timeout, interval=0.1):
    """Polls ``predicate`` until it returns something true or ``timeout`` seconds pass; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def free_port(host="127.0.0.1"):
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


# ---- the server process --------------------------------------------------------------------------
class NameHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = (self.server.node_name + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_HEAD = do_GET

    def log_message(self, fmt, *args):
        pass


def main(argv):
    if len(argv) < 3:
        print("usage: backends.py NAME HOST PORT...", file=sys.stderr)
        return 2
    name, host, ports = argv[0], argv[1], [int(p) for p in argv[2:]]
    servers = []
    for port in ports:
        server = ThreadingHTTPServer((host, port), NameHandler)
        server.daemon_threads = True
        server.node_name = name
        servers.append(server)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    print("%s %s %s:%s" % (READY, name, host, ",".join(map(str, ports))), flush=True)
    while not stopped.wait(0.5):
        pass
    for server in servers:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
