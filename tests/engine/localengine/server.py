"""HTTP: the admin API for loopback clients, then for Engine requests fault injection, token auth,
the JSON content type, the request log, and the Engine's error body on every error."""
import ipaddress
import json
import socket
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from .admin import Admin, RequestLog
from .errors import ApiError
from .faults import DROP


def is_loopback(host):
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return (getattr(ip, "ipv4_mapped", None) or ip).is_loopback


def is_json(content_type):
    """application/json, with or without parameters such as charset (Go clients send both)."""
    return content_type.split(";")[0].strip().lower() == "application/json"


def logged_body(method, raw_body):
    """The decoded JSON body of a POST or PUT for the request log; None for other methods, no body or
    a body that is not JSON."""
    if method not in ("POST", "PUT") or not raw_body.strip():
        return None
    try:
        return json.loads(raw_body.decode("utf-8"))
    except ValueError:
        return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, as the clients' connection pools expect
    server_version = "LocalEngine/1.0"
    disable_nagle_algorithm = True   # headers and body go out in two writes; Nagle would hold the body ~40 ms

    def log_message(self, fmt, *args):
        if not self.server.quiet:
            BaseHTTPRequestHandler.log_message(self, fmt, *args)

    def _record(self, status):
        """Logs the Engine request being answered, before the answer leaves: a client that reads the
        log right after its answer must find the request there. So ``end`` is the time just before the
        answer is written (or the connection dropped), ``start`` when handling began."""
        shown, self._shown = getattr(self, "_shown", None), None
        if shown is not None:
            now = time.time()
            self.server.log.add(self.command, shown, status, getattr(self, "_start", now), now,
                                getattr(self, "_body", None))

    def _send(self, status, payload, headers=None):
        data = json.dumps(payload).encode("utf-8")
        self._record(status)
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _error(self, exc, headers=None):
        self._send(exc.status, exc.body(), headers)
        return exc.status

    def send_error(self, code, message=None, explain=None):
        """http.server's own errors (bad request line, unsupported method) in the Engine's body too."""
        self.close_connection = True
        self._send(code, ApiError(code, message or HTTPStatus(code).phrase).body(), {"Connection": "close"})

    def _read_body(self):
        if self.headers.get("Transfer-Encoding"):
            raise ApiError(411, "Send a Content-Length; chunked request bodies are not supported.")
        length = self.headers.get("Content-Length") or "0"
        if not length.isdigit():
            raise ApiError(400, "Bad Content-Length %r." % length)
        return self.rfile.read(int(length))

    def _handle(self):
        self._start, self._body = time.time(), None
        split = urlsplit(self.path)
        admin = split.path.startswith("/_local/")
        self._shown = None if admin else split.path + ("?" + split.query if split.query else "")
        try:
            raw_body = self._read_body()
        except ApiError as exc:
            self.close_connection = True   # the unread body would be taken for the next request
            self._error(exc)
        else:
            self._body = logged_body(self.command, raw_body)
            if admin:
                self._admin(split.path, raw_body)
            else:
                self._engine(split, raw_body)

    def _admin(self, path, raw_body):
        if not is_loopback(self.client_address[0]):
            self._error(ApiError(403, "The admin API answers loopback clients only."))
            return
        try:
            self._send(200, self.server.admin.handle(self.command, path, raw_body))
        except ApiError as exc:
            self._error(exc)
        except Exception:   # a bug here must still answer, in the Engine's error body
            traceback.print_exc()
            self._error(ApiError(500, "Internal error of the local Engine (traceback on its stderr)."))

    def _engine(self, split, raw_body):
        """Answers one Engine API request; returns its status (0: dropped)."""
        engine = self.server.engine
        delay = engine.faults.latency(self.command)
        if delay:
            time.sleep(delay)
        injected = engine.faults.injected(self.command, split.path)
        if injected == DROP:
            return self._drop()
        if injected:
            retry_after = engine.faults.retry_after()
            headers = {"Retry-After": "%g" % retry_after} if injected == 429 and retry_after is not None else {}
            return self._error(ApiError(injected, "Injected fault: %d %s." % (injected, HTTPStatus(injected).phrase)),
                               headers)
        auth = self.headers.get("Authorization")
        if not auth:
            return self._error(ApiError(401, "Authentication credentials were not provided."))
        if auth != "Token " + self.server.token:
            return self._error(ApiError(403, "Invalid token."))
        if raw_body.strip() and not is_json(self.headers.get("Content-Type", "")):
            return self._error(ApiError(415, "Unsupported media type %r; send application/json." %
                                        self.headers.get("Content-Type", "")))
        try:
            payload = engine.handle(self.command, split.path, parse_qs(split.query, keep_blank_values=True), raw_body)
        except ApiError as exc:
            return self._error(exc)
        except Exception:
            traceback.print_exc()
            return self._error(ApiError(500, "Internal error of the local Engine (traceback on its stderr)."))
        after = engine.faults.committed(self.command, split.path)   # commit_then: the change stays
        if after == DROP:
            return self._drop()
        if after:
            return self._error(ApiError(after, "Injected fault after the request was carried out: %d %s." % (
                after, HTTPStatus(after).phrase)))
        self._send(200, payload)
        return 200

    def _drop(self):
        """Closes the connection without an answer (status 0 in the log)."""
        self._record(0)
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)
        return 0

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _handle


class EngineServer(ThreadingHTTPServer):
    daemon_threads = True   # open keep-alive connections must not keep the process alive

    def __init__(self, address, engine, token, seed_path=None, quiet=False):
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        ThreadingHTTPServer.__init__(self, address, Handler)
        self.engine = engine
        self.token = token
        self.quiet = quiet
        self.log = RequestLog()
        self.admin = Admin(engine, self.log, seed_path)
