"""LBaaS v1: LoadBalancer, Frontend, Backend, Bind, Server (ENGINE_API.md section 4)."""
from urllib.parse import parse_qs

from . import states
from .common import ApiError, first, invalid, parse_ip, wrapped_page
from .store import new_id

KINDS = ("loadbalancer", "frontend", "backend", "bind", "server")
# Link fields: field -> kind it points to. The first one is the parent.
LINKS = {
    "loadbalancer": {},
    "backend": {"load_balancer": "loadbalancer"},
    "frontend": {"load_balancer": "loadbalancer", "default_backend": "backend"},
    "bind": {"frontend": "frontend"},
    "server": {"backend": "backend"},
}
PARENT = {"backend": "load_balancer", "frontend": "load_balancer", "bind": "frontend", "server": "backend"}
FIELDS = {
    "loadbalancer": ("ip_address",),
    "backend": ("mode", "health_check", "server_timeout", "load_balancer"),
    "frontend": ("mode", "client_timeout", "load_balancer", "default_backend", "enable"),
    "bind": ("address", "port", "ssl", "ssl_certificate_path", "frontend"),
    "server": ("ip", "port", "check", "backend"),
}
REQUIRED = {"loadbalancer": ("name",), "backend": ("name", "load_balancer"), "frontend": ("name", "load_balancer"),
            "bind": ("name", "frontend", "port"), "server": ("name", "backend", "ip", "port")}
RESOURCE_TYPES = {
    "loadbalancer": ("f4a2b7d8c1e94d6f9a3b5c7d9e1f2a3b", "LBaaS LoadBalancer"),   # not known: invented
    "frontend": ("da9d14b9d95840c08213de67f9cee6e2", "LBaaS Frontend"),
    "backend": ("33164a3066a04a52be43c607f0c5dd8c", "LBaaS Backend"),
    "bind": ("bd24def982aa478fb3352cb5f49aab47", "LBaaS Bind"),
    "server": ("01f321a4875446409d7d8469503a905f", "LBaaS Server"),
}
CUSTOMER = "0000000000000000000000000000c0de"
RESELLER = "000000000000000000000000000000ee"


def _port(value):
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535


def _int(value):
    return isinstance(value, int) and not isinstance(value, bool)


class Lbaas(object):
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store

    # ---- reading -------------------------------------------------------------------------------
    def live(self, kind, ident):
        doc = self.store.get(ident, kind)
        if doc is None or self.engine.gone(doc):
            return None
        return doc

    def must(self, kind, ident):
        doc = self.live(kind, ident)
        if doc is None:
            raise ApiError(404, "%s %s not found" % (kind, ident))
        return doc

    def render(self, kind, doc):
        out = {"identifier": doc["identifier"], "name": doc.get("name")}
        for field in FIELDS[kind]:
            value = doc.get(field)
            if field in LINKS[kind]:
                linked = self.store.get(value) if value else None
                value = {"identifier": value, "name": linked.get("name") if linked else None} if value else None
            out[field] = value
        out.update(customer_identifier=CUSTOMER, reseller_identifier=RESELLER, automation_rules=[])
        if kind == "loadbalancer":
            out["state"] = states.state_object("Deployed")
        else:
            out["state"] = states.state_object(states.current(doc, self.engine.delays))
        return out

    def list(self, kind, query):
        items = [d for d in self.store.all(kind) if not self.engine.gone(d)]
        raw = first(query, "filters")
        if raw:
            for key, values in parse_qs(raw, keep_blank_values=True).items():
                items = [d for d in items if str(d.get(key) if d.get(key) is not None else "") == values[-1]]
        return wrapped_page([{"identifier": d["identifier"], "name": d.get("name")} for d in items], query)

    # ---- writing -------------------------------------------------------------------------------
    def _validate(self, kind, doc):
        errors = {}
        for field in REQUIRED[kind]:
            if doc.get(field) in (None, ""):
                errors[field] = "This field is required."
        if doc.get("name") is not None and not isinstance(doc.get("name"), str):
            errors["name"] = "Must be a string."
        if doc.get("mode") is not None and doc.get("mode") not in ("tcp", "http"):
            errors["mode"] = "Must be one of tcp, http."
        if "port" in FIELDS[kind] and doc.get("port") is not None and not _port(doc["port"]):
            errors["port"] = "Must be an integer between 1 and 65535."
        if kind == "backend" and doc.get("server_timeout") is not None and not (
                _int(doc["server_timeout"]) and doc["server_timeout"] >= 0):
            errors["server_timeout"] = "Must be a non-negative integer."
        if kind == "frontend" and doc.get("client_timeout") is not None and not isinstance(doc["client_timeout"], str):
            errors["client_timeout"] = "Must be a string."
        if kind == "bind":
            if doc.get("address") not in (None, "") and parse_ip(doc["address"]) is None:
                errors["address"] = "Must be a valid IP address."
            if doc.get("ssl") is not None and not isinstance(doc["ssl"], bool):
                errors["ssl"] = "Must be a boolean."
        if kind == "server":
            if doc.get("ip") not in (None, "") and parse_ip(doc["ip"]) is None:
                errors["ip"] = "Must be a valid IP address."
            if doc.get("check") is not None and doc["check"] not in ("enabled", "disabled"):
                errors["check"] = "Must be one of enabled, disabled."
        for field, target in LINKS[kind].items():
            value = doc.get(field)
            if value in (None, "") or field in errors:
                continue
            if not isinstance(value, str) or self.live(target, value) is None:
                errors[field] = "No %s with identifier %s." % (target, value)
        if kind == "frontend" and doc.get("default_backend") and "default_backend" not in errors:
            backend = self.live("backend", doc["default_backend"])
            if backend.get("load_balancer") != doc.get("load_balancer"):
                errors["default_backend"] = "The backend belongs to another load balancer."
        if errors:
            raise invalid(**errors)

    @staticmethod
    def _links_as_ids(kind, body):
        body = dict(body)
        for field in LINKS[kind]:
            if isinstance(body.get(field), dict):   # tolerate {identifier, name} objects too
                body[field] = body[field].get("identifier")
        return body

    def create(self, kind, body):
        if not isinstance(body, dict):
            raise ApiError(400, "The request body must be a JSON object.")
        body = self._links_as_ids(kind, body)
        doc = {"identifier": new_id(), "name": body.get("name")}
        for field in FIELDS[kind]:
            doc[field] = body.get(field)
        self._validate(kind, doc)
        if kind != "loadbalancer":
            states.begin(doc, "create", self.engine.faults.deploy_outcome(doc["identifier"], doc["name"]))
        self.store.put(kind, doc)
        return self.render(kind, doc)

    def update(self, kind, ident, body):
        if not isinstance(body, dict):
            raise ApiError(400, "The request body must be a JSON object.")
        doc = self.must(kind, ident)
        body = self._links_as_ids(kind, body)
        merged = dict(doc)   # PUT merges: keys left out keep their value
        for field in ("name",) + FIELDS[kind]:
            if field in body:
                merged[field] = body[field]
        self._validate(kind, merged)
        if kind != "loadbalancer":
            # Every update, and a bare {"state": "0"} (redeploy), starts a new deployment.
            states.begin(merged, "update", self.engine.faults.deploy_outcome(ident, merged["name"]))
        self.store.put(kind, merged)
        return self.render(kind, merged)

    def children(self, kind, ident):
        """Live objects that still point at this one; deleting it would leave them dangling."""
        found = []
        for other, links in LINKS.items():
            for field, target in links.items():
                if target == kind:
                    found.extend(d for d in self.store.all(other) if d.get(field) == ident and not self.engine.deleting(d))
        return found

    def delete(self, kind, ident):
        doc = self.must(kind, ident)
        if self.engine.deleting(doc):
            return {}   # deleting already: a repeated DELETE is harmless (the CCM sends them)
        blocking = self.children(kind, ident)
        if blocking:
            raise ApiError(409, "%s %s is still used by %d object(s): %s" % (
                kind, ident, len(blocking), ", ".join(sorted(d.get("name") or d["identifier"] for d in blocking))))
        self.engine.schedule_removal(doc)
        return {}

    def handle(self, method, kind, ident, query, body):
        if ident is None:
            if method == "GET":
                return self.list(kind, query)
            if method == "POST":
                return self.create(kind, body)
        else:
            if method == "GET":
                return self.render(kind, self.must(kind, ident))
            if method == "PUT":
                return self.update(kind, ident, body)
            if method == "DELETE":
                return self.delete(kind, ident)
        raise ApiError(405, "Method %s is not allowed here." % method)
