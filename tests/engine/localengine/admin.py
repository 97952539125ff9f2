"""The admin API under /_local/ (a path the real Engine does not use; loopback only, no token).

GET  /_local/requests           {"total", "by_method", "log": [{"method", "path", "status"}]}
POST /_local/requests/reset     clears the request log
GET  /_local/faults, PUT /_local/faults      fault injection (see faults.py)
POST /_local/reset              wipes all state, reseeds, clears the log and the faults
PUT  /_local/objects/<id>/state {"state": "DeploymentError"}: force an LBaaS object's state
                                ({"state": null} returns it to normal)
GET  /_local/dump               every object and its tags
"""
import json
import threading

from . import seed, states
from .common import ApiError
from .faults import FaultError


class RequestLog(object):
    def __init__(self):
        self.lock = threading.Lock()
        self.entries = []

    def add(self, method, path, status):
        with self.lock:
            self.entries.append({"method": method, "path": path, "status": status})

    def view(self):
        with self.lock:
            by_method = {}
            for entry in self.entries:
                by_method[entry["method"]] = by_method.get(entry["method"], 0) + 1
            return {"total": len(self.entries), "by_method": by_method, "log": list(self.entries)}

    def reset(self):
        with self.lock:
            self.entries = []


class Admin(object):
    def __init__(self, engine, log, seed_path=None):
        self.engine = engine
        self.log = log
        self.seed_path = seed_path

    def reseed(self):
        if self.seed_path:
            seed.load(self.engine, self.seed_path)

    def handle(self, method, path, raw_body):
        body = json.loads(raw_body.decode("utf-8")) if raw_body.strip() else None
        if path == "/_local/requests" and method == "GET":
            return self.log.view()
        if path == "/_local/requests/reset" and method == "POST":
            self.log.reset()
            return {}
        if path == "/_local/faults":
            if method == "PUT":
                try:
                    self.engine.faults.set(body or {})
                except FaultError as exc:
                    raise ApiError(422, str(exc))
            return self.engine.faults.view()
        if path == "/_local/reset" and method == "POST":
            with self.engine.store.lock:
                self.engine.store.wipe()
                self.engine.faults.set({})
                self.reseed()
            self.log.reset()
            return {}
        if path.startswith("/_local/objects/") and path.endswith("/state") and method == "PUT":
            ident = path.split("/")[3]
            with self.engine.store.lock:
                kind = self.engine.store.kind_of(ident)
                doc = self.engine.store.get(ident)
                if doc is None:
                    raise ApiError(404, "no object %s" % ident)
                title = (body or {}).get("state")
                if title is not None and title not in states.STATES:
                    raise ApiError(422, "state must be one of %s" % ", ".join(sorted(states.STATES)))
                doc["_forced"] = title
                self.engine.store.put(kind, doc)
            return {"identifier": ident, "state": title}
        if path == "/_local/dump" and method == "GET":
            store = self.engine.store
            return {"objects": [dict(store.get(i), _kind=store.kind_of(i), _tags=store.tags(i)) for i in store.ids()]}
        raise ApiError(404, "No such admin endpoint: %s %s" % (method, path))
