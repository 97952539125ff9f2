"""The Engine API behind the HTTP layer: path routing, one transaction per request, and the
asynchronous deletion every object type shares (docs/engine-api-facts.md, Asynchronous writes and IPAM)."""
import json
import re
import time
from urllib.parse import unquote

from .addresses import Addresses
from .clouddns import CloudDns
from .core import Core
from .errors import ApiError, not_allowed
from .faults import Faults
from .ipam import Ipam
from .lbaas import Lbaas
from .lbaas_types import PATHS
from .options import validated
from .store import Store
from .tags import Tags

KIND_OF_PATH = dict((path, kind) for kind, path in PATHS.items())
ID = r"(?:/([^/]+))?"   # the identifier follows the ".json" of the collection
ROUTES = [
    (re.compile(r"^/api/LBaaS/v1/(%s)\.json%s$" % ("|".join(KIND_OF_PATH), ID)), "lbaas"),
    (re.compile(r"^/api/core/v1/resource\.json%s$" % ID), "resource"),
    (re.compile(r"^/api/core/v1/resource\.json/([^/]+)/tags/(.+)$"), "tag"),
    (re.compile(r"^/api/core/v1/tags\.json%s$" % ID), "tags"),
    (re.compile(r"^/api/ipam/v1/prefix\.json%s$" % ID), "prefix"),
    (re.compile(r"^/api/ipam/v1/address\.json%s$" % ID), "address"),
    (re.compile(r"^/api/ipam/v1/address/filtered\.json$"), "filtered"),
    (re.compile(r"^/api/ipam/v1/address/reserve/ip/count\.json$"), "reserve"),
    (re.compile(r"^/api/vlan/v1/vlan\.json%s$" % ID), "vlan"),
    # CloudDNS: the collection also with a trailing slash (go-anxcloud's generic client lists and creates
    # at ".../zone.json/"); a zone's records and changeset below its name
    (re.compile(r"^/api/clouddns/v1/zone\.json/?()()()$"), "clouddns"),
    (re.compile(r"^/api/clouddns/v1/zone\.json/([^/]+)()()$"), "clouddns"),
    (re.compile(r"^/api/clouddns/v1/zone\.json/([^/]+)/(records|changeset)(?:/([^/]+))?$"), "clouddns"),
]


class Engine:
    def __init__(self, state=None, deploy_delay=0.0, update_delay=0.0, delete_delay=0.0, faults=None, options=None,
                 dns_deploy_delay=0.0):
        self.store = Store(state)
        self.faults = Faults(faults)
        self.start_options = validated(options or {})   # OptionError names a bad one
        self.options = dict(self.start_options)          # PUT /_local/options changes these
        self.delays = {"create": deploy_delay, "update": update_delay}
        self.delete_delay = delete_delay
        self.lbaas = Lbaas(self)
        self.tags = Tags(self)
        self.core = Core(self)
        self.ipam = Ipam(self)
        self.addresses = Addresses(self)
        self.dns_deploy_delay = dns_deploy_delay
        self.clouddns = CloudDns(self)
        self.haproxy = None   # HAProxyMode with --haproxy (haproxy.py): real traffic, states follow HAProxy
        self.dns = None       # DnsMode with --dns (knot.py): deployed zone revisions served by knot

    # ---- asynchronous deletion: readable (and listed) for --delete-delay seconds, then 404 -------
    @staticmethod
    def deleting(doc):
        return doc.get("_deleted_at") is not None

    def schedule_removal(self, kind, doc):
        if self.delete_delay <= 0:
            self.store.remove(doc["identifier"])
            return
        now = time.time()
        doc["_deleted_at"] = now
        doc["_gone_at"] = min(doc.get("_gone_at") or float("inf"), now + self.delete_delay)
        self.store.put(kind, doc)

    # ---- requests ------------------------------------------------------------------------------
    def handle(self, method, path, query, raw_body):
        """The JSON answer (status 200) to one authenticated Engine API request, or ApiError."""
        has_body = bool(raw_body.strip())
        body = None
        if has_body:
            try:
                body = json.loads(raw_body.decode("utf-8"))
            except ValueError:
                raise ApiError(400, "The request body is not valid JSON.")
        for pattern, route in ROUTES:
            match = pattern.match(path)
            if match:
                # percent-decoded per segment, so a tag name may hold an encoded "/"; "+" stays "+"
                args = [unquote(g) if g is not None else None for g in match.groups()]
                with self.store.transaction():
                    self.store.purge(time.time())
                    return self._dispatch(route, method, args, query, body, has_body)
        raise ApiError(404, "No such endpoint: %s" % path)

    def _dispatch(self, route, method, args, query, body, has_body):
        if route == "clouddns":
            return self.clouddns.handle(method, args[0] or None, args[1] or None, args[2] or None, query, body)
        if route == "lbaas":
            return self.lbaas.handle(method, KIND_OF_PATH[args[0]], args[1], query, body)
        if route == "tags":
            return self.tags.handle(method, args[0], query, body)
        if route in ("resource", "tag"):
            return self.core.handle(method, args[0], args[1] if route == "tag" else None, query, body, has_body)
        if route == "prefix":
            return self.ipam.handle_prefix(method, args[0], query, body)
        if route == "vlan":
            return self.ipam.handle_vlan(method, args[0])
        if route == "address":
            return self.addresses.handle(method, args[0], query, body)
        if route == "filtered" and method == "GET":
            return self.addresses.list(query)
        if route == "reserve" and method == "POST":
            return self.addresses.reserve(body)
        raise not_allowed(method)

    def close(self):
        self.store.close()
