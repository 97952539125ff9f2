"""The admin API under /_local/ (a path the real Engine does not have; loopback clients only, no token).

GET  /_local/requests            {"total", "by_method", "log": [{"method", "path", "status", "start", "end",
                                 "body"}]}
POST /_local/requests/reset      clears the request log
GET  /_local/faults              the fault configuration, counts as used up so far
PUT  /_local/faults              replaces it (faults.py; {} clears)
GET  /_local/options             the behaviour options (options.py)
PUT  /_local/options             changes some of them ({"tag_match": "substring"}); 422 if invalid
POST /_local/reset               wipes all state, reseeds from --seed, clears the log and the faults,
                                 restores the options given at start
PUT  /_local/objects/<id>/state  {"state": "DeploymentError"} forces an LBaaS object's state until its
                                 next deployment; {"state": null} ends that
GET  /_local/dump                every object (bookkeeping keys included) with its kind and tags, and
                                 the tag entities with the number of resources carrying each
GET  /_local/haproxy             with --haproxy: the configuration per load balancer, server health
                                 from HAProxy's stats socket, recent rejections (haproxy.py)
GET  /_local/dns                 with --dns: knot's address, the serial it serves per zone, recent
                                 refusals (knot.py)
"""
import json
import re
import threading

from . import seed, states
from .errors import ApiError, not_found
from .faults import FaultError
from .lbaas_types import KINDS
from .options import OptionError, validated

STATE_PATH = re.compile(r"^/_local/objects/([^/]+)/state$")


class RequestLog:
    """Every Engine API request (admin requests excluded), with its path as sent, its status (0 =
    connection dropped by a fault), ``start`` and ``end`` (time.time() when handling began and just
    before the answer was written) and the decoded JSON ``body`` of a POST or PUT (else None)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = []

    def add(self, method, path, status, start, end, body):
        with self.lock:
            self.entries.append({"method": method, "path": path, "status": status, "start": start, "end": end,
                                 "body": body})

    def view(self):
        with self.lock:
            by_method = {}
            for entry in self.entries:
                by_method[entry["method"]] = by_method.get(entry["method"], 0) + 1
            return {"total": len(self.entries), "by_method": by_method, "log": list(self.entries)}

    def reset(self):
        with self.lock:
            self.entries = []


class Admin:
    def __init__(self, engine, log, seed_path=None):
        self.engine = engine
        self.log = log
        self.seed_path = seed_path

    def reset(self):
        with self.engine.store.transaction():
            self.engine.store.wipe()
            if self.seed_path:
                seed.load(self.engine, self.seed_path)
        self.engine.clouddns.changed()
        self.engine.faults.set({})
        self.engine.options = dict(self.engine.start_options)
        self.log.reset()
        for follower in (self.engine.haproxy, self.engine.dns):
            if follower is not None:
                follower.forget_errors()

    def set_options(self, body):
        try:
            self.engine.options = validated(body or {}, self.engine.options)
        except OptionError as exc:
            raise ApiError(422, str(exc))
        return self.engine.options

    def dump(self):
        store = self.engine.store
        with store.transaction():
            objects = store.dump()
            tags = [dict(entity, _carriers=len(store.tagged(entity["name"]))) for entity in store.tag_entities()]
        return {"objects": objects, "tags": tags}

    def force_state(self, ident, body):
        title = body.get("state") if isinstance(body, dict) else None
        if not isinstance(body, dict) or (title is not None and title not in states.STATES):
            raise ApiError(422, "Send {\"state\": <one of %s, or null>}." % ", ".join(sorted(states.STATES)))
        store = self.engine.store
        with store.transaction():
            kind = store.kind_of(ident)
            if kind is None:
                raise not_found("object", ident)
            if kind not in KINDS:
                raise ApiError(422, "%s is a %s; only LBaaS objects have deployment states." % (ident, kind))
            doc = store.get(ident)
            doc["_forced"] = title
            store.put(kind, doc)
        return {"identifier": ident, "state": title}

    def handle(self, method, path, raw_body):
        try:
            body = json.loads(raw_body.decode("utf-8")) if raw_body.strip() else None
        except ValueError:
            raise ApiError(400, "The request body is not valid JSON.")
        match = STATE_PATH.match(path)
        if match and method == "PUT":
            return self.force_state(match.group(1), body)
        if (method, path) == ("GET", "/_local/requests"):
            return self.log.view()
        if (method, path) == ("POST", "/_local/requests/reset"):
            self.log.reset()
            return {}
        if (method, path) == ("GET", "/_local/faults"):
            return self.engine.faults.view()
        if (method, path) == ("PUT", "/_local/faults"):
            try:
                self.engine.faults.set(body or {})
            except FaultError as exc:
                raise ApiError(422, str(exc))
            return self.engine.faults.view()
        if (method, path) == ("POST", "/_local/reset"):
            self.reset()
            return {}
        if (method, path) == ("GET", "/_local/options"):
            return self.engine.options
        if (method, path) == ("PUT", "/_local/options"):
            return self.set_options(body)
        if (method, path) == ("GET", "/_local/haproxy"):
            if not self.engine.haproxy:
                raise ApiError(404, "The local Engine runs without --haproxy.")
            return self.engine.haproxy.status()
        if (method, path) == ("GET", "/_local/dns"):
            if not self.engine.dns:
                raise ApiError(404, "The local Engine runs without --dns.")
            return self.engine.dns.status()
        if (method, path) == ("GET", "/_local/dump"):
            return self.dump()
        raise ApiError(404, "No such admin endpoint: %s %s" % (method, path))
