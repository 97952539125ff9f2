"""The Engine's request routing and the lifecycle rules every object type shares."""
import json
import re
import time
from urllib.parse import unquote

from .common import ApiError
from .core import Core
from .faults import Faults
from .ipam import Ipam
from .lbaas import KINDS, Lbaas
from .store import Store

ID = r"([^/]+)"
ROUTES = [
    (re.compile(r"^/api/LBaaS/v1/(%s)\.json(?:/%s)?$" % ("|".join(KINDS), ID)), "lbaas"),
    (re.compile(r"^/api/core/v1/resource\.json$"), "resources"),
    (re.compile(r"^/api/core/v1/resource\.json/%s$" % ID), "resource"),
    (re.compile(r"^/api/core/v1/resource\.json/%s/tags/(.+)$" % ID), "tag"),
    (re.compile(r"^/api/ipam/v1/(prefix)\.json(?:/%s)?$" % ID), "ipam"),
    (re.compile(r"^/api/ipam/v1/(address)\.json(?:/%s)?$" % ID), "ipam"),
    (re.compile(r"^/api/ipam/v1/address/(filtered)\.json$"), "ipam"),
    (re.compile(r"^/api/ipam/v1/address/(reserve)/ip/count\.json$"), "ipam"),
    (re.compile(r"^/api/(vlan)/v1/vlan\.json/%s$" % ID), "ipam"),
]


class Engine(object):
    def __init__(self, state=None, deploy_delay=0.0, update_delay=0.0, delete_delay=0.0, faults=None):
        self.store = Store(state)
        self.faults = Faults(faults)
        self.delays = {"create": deploy_delay, "update": update_delay}
        self.delete_delay = delete_delay
        self.lbaas = Lbaas(self)
        self.core = Core(self)
        self.ipam = Ipam(self)

    # ---- asynchronous deletion (ENGINE_API.md 4.10): readable for a while, then 404 ------------
    @staticmethod
    def deleting(doc):
        return doc.get("_gone_at") is not None

    @staticmethod
    def gone(doc):
        return doc is None or (doc.get("_gone_at") is not None and time.time() >= doc["_gone_at"])

    def schedule_removal(self, doc):
        if self.delete_delay <= 0:
            self.store.remove(doc["identifier"])
            return
        doc["_gone_at"] = time.time() + self.delete_delay
        self.store.put(self.store.kind_of(doc["identifier"]), doc)

    def purge(self):
        for ident in self.store.ids():
            if self.gone(self.store.get(ident)):
                self.store.remove(ident)

    # ---- requests ------------------------------------------------------------------------------
    def handle(self, method, path, query, raw_body):
        """(status, JSON-able body) for one Engine API request (already authenticated)."""
        body = None
        if raw_body.strip():
            try:
                body = json.loads(raw_body.decode("utf-8"))
            except ValueError:
                raise ApiError(400, "The request body is not valid JSON.")
        for pattern, route in ROUTES:
            match = pattern.match(path)
            if not match:
                continue
            groups = [unquote(g) if g is not None else None for g in match.groups()]
            with self.store.lock:
                self.purge()
                if route == "lbaas":
                    return 200, self.lbaas.handle(method, groups[0], groups[1], query, body)
                if route == "resources" and method == "GET":
                    return 200, self.core.list(query)
                if route == "resource" and method == "GET":
                    return 200, self.core.get(groups[0])
                if route == "tag":
                    return 200, self.core.tag(method, groups[0], groups[1], body, raw_body)
                if route == "ipam":
                    return 200, self.ipam.handle(method, groups[0], groups[1] if len(groups) > 1 else None, query, body)
            raise ApiError(405, "Method %s is not allowed here." % method)
        raise ApiError(404, "No such endpoint: %s" % path)
