"""Fixtures for the unit tests that talk HTTP (the Engine client tests in _engine/, and a few others).

``make_client``: an EngineClient against the session's local Engine with tiny, recorded sleeps.
``stub``: a tiny scripted HTTP server on 127.0.0.1 for answers the local Engine does not give
(other list envelopes, non-JSON bodies, redirects, slow answers, Retry-After dates, echoed tokens).
"""
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._client import EngineClient
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._retry import RetryPolicy

LB1 = "0a11ba1a000000000000000000000001"
LB2 = "0a11ba1a000000000000000000000002"
PREFIX4 = "0a11ce11000000000000000000000001"
PREFIX6 = "0a11ce11000000000000000000000002"


def engine_log(engine, total=None, timeout=2.0):
    """The local Engine's request log ({"total", "by_method", "log"}).

    The local Engine appends to its log just *after* it has answered, so a client holding its answer
    can be a moment ahead of the log: wait until the log has ``total`` entries, or (without ``total``)
    for a short settling pause."""
    if total is None:
        time.sleep(0.03)
        return engine.requests()
    deadline = time.monotonic() + timeout
    while True:
        view = engine.requests()
        if view["total"] >= total or time.monotonic() > deadline:
            return view
        time.sleep(0.005)


def reset_log(engine):
    """Clears the local Engine's request log once the answers already given are logged."""
    time.sleep(0.03)
    engine.reset_requests()


class Sleeps(list):
    """A recording stand-in for time.sleep (an empty list is falsy: the policy must not mind)."""

    def __call__(self, seconds):
        self.append(seconds)


def fast_policy(retries=3, sleeps=None, **kw):
    """Real backoff arithmetic, no real sleeping: every delay lands in ``sleeps``."""
    kw.setdefault("backoff_base", 0.001)
    kw.setdefault("backoff_max", 0.01)
    kw.setdefault("conflict_delay", 0.001)
    return RetryPolicy(retries=retries, sleep=Sleeps() if sleeps is None else sleeps, **kw)


def new_client(url, token="test-token", retries=3, policy=None, **kw):
    policy = policy or fast_policy(retries)
    kw.setdefault("timeout", 5)
    client = EngineClient(api_url=url, token=token, policy=policy, **kw)
    client.sleeps = policy.sleep
    return client


@pytest.fixture
def make_client(engine):
    """``make_client(token=None, retries=3, policy=None, **EngineClient options)`` for the local Engine."""
    made = []

    def make(token=None, retries=3, policy=None, **kw):
        client = new_client(engine.url + "/", token=token or engine.token, retries=retries, policy=policy, **kw)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


class Stub:
    """Scripted HTTP on loopback. ``respond(req)`` returns ``(status, body[, headers])`` where body is
    bytes/str (sent as is) or anything JSON-able; or the string ``"drop"`` (close without answer).
    Every request is recorded in ``seen`` as a dict: method, path (with query), query, headers, body."""

    def __init__(self):
        self.seen = []
        self.respond = lambda req: (200, {})
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                split = urlsplit(self.path)
                req = {"method": self.command, "path": self.path, "route": split.path,
                       "query": parse_qs(split.query, keep_blank_values=True),
                       "headers": dict(self.headers.items()), "body": raw}
                with stub.lock:
                    stub.seen.append(req)
                answer = stub.respond(req)
                if answer == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                status, body = answer[0], answer[1]
                headers = answer[2] if len(answer) > 2 else {}
                if isinstance(body, str):
                    data = body.encode("utf-8")
                elif isinstance(body, bytes):
                    data = body
                else:
                    data = json.dumps(body).encode("utf-8")
                    headers = dict({"Content-Type": "application/json"}, **headers)
                try:
                    self.send_response(status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True   # the client gave up (a timeout test): nothing to answer

            do_GET = do_POST = do_PUT = do_DELETE = handle_one

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def client(self, **kw):
        return new_client(self.url, **kw)


@pytest.fixture
def stub():
    server = Stub()
    yield server
    server.close()


def slow(seconds, answer):
    """A ``respond`` that answers ``answer`` after ``seconds``."""
    def respond(req):
        time.sleep(seconds)
        return answer
    return respond


def closed_port():
    """A loopback port nobody listens on (bound and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
