"""HTTP: token auth, fault injection, the request log, JSON bodies and the Engine's error body."""
import ipaddress
import json
import socket
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from .admin import Admin, RequestLog
from .common import ApiError


def is_loopback(host):
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return host == "localhost"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, as the clients' sessions expect
    server_version = "LocalEngine/1.0"

    def log_message(self, fmt, *args):
        if not self.server.quiet:
            BaseHTTPRequestHandler.log_message(self, fmt, *args)

    def _send(self, status, payload, headers=None):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, exc, headers=None):
        self._send(exc.status, exc.body(), headers)
        return exc.status

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self):
        split = urlsplit(self.path)
        raw_body = self._body()
        server = self.server
        if split.path.startswith("/_local/"):
            if not is_loopback(self.client_address[0]):
                self._error(ApiError(403, "The admin API answers loopback clients only."))
                return
            try:
                self._send(200, server.admin.handle(self.command, split.path, raw_body))
            except ApiError as exc:
                self._error(exc)
            except ValueError as exc:
                self._error(ApiError(400, "Bad admin request: %s" % exc))
            return
        shown = split.path + ("?" + split.query if split.query else "")
        status = self._engine(split, raw_body)
        server.log.add(self.command, shown, status)

    def _engine(self, split, raw_body):
        server = self.server
        engine = server.engine
        delay = engine.faults.latency(self.command)
        if delay:
            time.sleep(delay)
        injected = engine.faults.injected(self.command, split.path)
        if injected == "drop":
            self.close_connection = True
            self.connection.close()
            return 0
        if injected:
            headers = {}
            retry_after = engine.faults.view().get("retry_after")
            if injected == 429 and retry_after is not None:
                headers["Retry-After"] = str(retry_after)
            return self._error(ApiError(injected, "Injected fault %d." % injected), headers)
        auth = self.headers.get("Authorization")
        if not auth:
            return self._error(ApiError(401, "Authentication credentials were not provided."))
        if auth != "Token %s" % server.token:
            return self._error(ApiError(403, "Invalid token."))
        try:
            status, payload = engine.handle(self.command, split.path, parse_qs(split.query, keep_blank_values=True),
                                            raw_body)
        except ApiError as exc:
            return self._error(exc)
        self._send(status, payload)
        return status

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle


class EngineServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, engine, token, seed_path=None, quiet=True):
        host = address[0]
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        ThreadingHTTPServer.__init__(self, address, Handler)
        self.engine = engine
        self.token = token
        self.quiet = quiet
        self.log = RequestLog()
        self.admin = Admin(engine, self.log, seed_path)
