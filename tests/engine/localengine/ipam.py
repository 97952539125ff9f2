"""IPAM prefixes, the VLANs and locations they belong to (docs/engine-api-facts.md, IPAM). Addresses are in
addresses.py.

A new prefix is ``Pending`` for --deploy-delay seconds, then ``Active`` (``Failed`` or pending forever
under a deploy fault matching its CIDR or identifier); a deleted one is ``Marked for deletion`` for
--delete-delay seconds and takes its addresses with it. Created prefixes are carved from fixed pools:
IPv4 from the loopback range 127.128.0.0/9 (so binds on them can carry traffic), IPv6 from the ULA
range fd00:ff00::/32 (data only).
"""
import hashlib
import ipaddress
import time

from .errors import ApiError, crud, invalid, not_allowed, not_found, require_object
from .pages import bare_page, first
from .store import new_id
from .validation import is_bool, is_int, is_text

DEFAULT_LOCATION = {"identifier": "52b5f6b2fd3a4e5d8f4b7a9c3e1d0f11", "code": "LOC", "name": "Local",
                    "country": "AT", "lat": "48.2082", "lon": "16.3738", "city_code": "VIE"}
POOLS = {4: ipaddress.ip_network("127.128.0.0/9"), 6: ipaddress.ip_network("fd00:ff00::/32")}
MAX_FULL_PREFIX = 4096   # create_empty: false creates one object per address; bounded to stay small
SUMMARY = ("identifier", "name", "description_customer")


def public(doc):
    return dict((k, v) for k, v in doc.items() if not k.startswith("_"))


class Ipam:
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store

    # ---- locations and VLANs -------------------------------------------------------------------
    def location(self, ident):
        if ident == DEFAULT_LOCATION["identifier"]:
            return dict(DEFAULT_LOCATION)
        doc = self.store.get(ident, "location")
        return public(doc) if doc else None

    def ensure_location(self, spec):
        """A location from a seed: None (the default), a code, or a mapping with code and optional
        identifier, name, country, city_code, lat, lon. Identifiers derive from the code when not given."""
        spec = {"code": spec} if isinstance(spec, str) else dict(spec or DEFAULT_LOCATION)
        if spec["code"] == DEFAULT_LOCATION["code"] and spec.get("identifier") in (None, DEFAULT_LOCATION["identifier"]):
            return dict(DEFAULT_LOCATION)
        for doc in self.store.all("location"):
            if doc["identifier"] == spec.get("identifier") or (not spec.get("identifier") and doc["code"] == spec["code"]):
                return public(doc)
        doc = dict(DEFAULT_LOCATION, name=spec["code"], city_code=spec["code"][:3])
        doc.update(spec)
        doc.setdefault("identifier", hashlib.md5(("location:" + spec["code"]).encode()).hexdigest())
        return public(self.store.put("location", doc))

    def add_vlan(self, name, location, identifier=None, description="", vm_provisioning=False):
        now = time.time()
        doc = {"identifier": identifier or new_id(), "name": name, "description_customer": description,
               "description_internal": "", "role_text": "Default", "status": "Active",
               "vm_provisioning": vm_provisioning, "locations": [location], "_created": now, "_updated": now}
        return self.store.put("vlan", doc)

    # ---- prefixes ------------------------------------------------------------------------------
    def add_prefix(self, cidr, vlan, location, identifier=None, create_empty=True, description="", prefix_type=0,
                   router_redundancy=False, ready_at=0, outcome="ok"):
        net = ipaddress.ip_network(cidr)
        if not create_empty and net.num_addresses > MAX_FULL_PREFIX:
            raise invalid({"create_empty": "false is supported for at most %d addresses here." % MAX_FULL_PREFIX})
        now = time.time()
        doc = {"identifier": identifier or new_id(), "name": str(net), "description_customer": description,
               "description_internal": "", "version": net.version, "netmask": net.prefixlen, "role_text": "Default",
               "status": "Active", "type": prefix_type, "router_redundancy": router_redundancy,
               "locations": [location],
               "vlans": [{"identifier": vlan["identifier"], "name": vlan["name"],
                          "description_customer": vlan["description_customer"]}],
               "_created": now, "_updated": now, "_ready_at": ready_at, "_outcome": outcome}
        self.store.put("prefix", doc)
        self.engine.addresses.populate(doc, net, create_empty)
        return doc

    def prefix_status(self, doc):
        if self.engine.deleting(doc):
            return "Marked for deletion"
        if doc["_outcome"] == "stuck" or time.time() < doc["_ready_at"]:
            return "Pending"
        return "Failed" if doc["_outcome"] == "error" else "Active"

    def prefix_view(self, doc):
        return dict(public(doc), status=self.prefix_status(doc))

    def prefix(self, ident):
        doc = self.store.get(ident, "prefix")
        if doc is None:
            raise not_found("prefix", ident)
        return doc

    def _allocate(self, version, netmask):
        taken = [ipaddress.ip_network(p["name"]) for p in self.store.all("prefix") if p["version"] == version]
        for net in POOLS[version].subnets(new_prefix=netmask):
            if not any(net.overlaps(other) for other in taken):
                return net
        raise ApiError(409, "No free /%d left in the local pool %s." % (netmask, POOLS[version]))

    def create_prefix(self, body):
        body = require_object(body)
        errors = {}
        location = self.location(body.get("location")) if is_text(body.get("location")) else None
        if location is None:
            errors["location"] = "Required: the identifier of a location."
        version = body.get("version", 4)
        if not is_int(version) or version not in POOLS:
            errors["version"] = "Must be 4 or 6."
            version = 4
        netmask = body.get("netmask")
        low, high = POOLS[version].prefixlen, POOLS[version].max_prefixlen
        if not is_int(netmask) or not low <= netmask <= high:
            errors["netmask"] = "Required: an integer from %d to %d." % (low, high)
        if body.get("type", 0) not in (0, 1) or not is_int(body.get("type", 0)):
            errors["type"] = "Must be 0 (public) or 1 (private)."
        for flag in ("create_empty", "new_vlan", "router_redundancy", "vm_provisioning"):
            if flag in body and not is_bool(body[flag]):
                errors[flag] = "Must be true or false."
        for text in ("description_customer", "description_vlan_customer", "organization"):
            if text in body and not is_text(body[text]):
                errors[text] = "Must be a string."
        vlan = None
        if body.get("vlan") and not body.get("new_vlan"):
            vlan = self.store.get(body["vlan"], "vlan") if is_text(body["vlan"]) else None
            if vlan is None:
                errors["vlan"] = "No VLAN with identifier %s." % body["vlan"]
        if errors:
            raise invalid(errors)
        net = self._allocate(version, netmask)
        if vlan is None:
            vlan_id = new_id()
            vlan = self.add_vlan("vlan-" + vlan_id[:8], location, identifier=vlan_id,
                                 description=body.get("description_vlan_customer", ""),
                                 vm_provisioning=body.get("vm_provisioning", False))
        ident = new_id()
        outcome = self.engine.faults.deploy_outcome(ident, str(net))
        doc = self.add_prefix(str(net), vlan, location, identifier=ident, create_empty=body.get("create_empty", True),
                              description=body.get("description_customer", ""), prefix_type=body.get("type", 0),
                              router_redundancy=body.get("router_redundancy", False),
                              ready_at=time.time() + self.engine.delays["create"], outcome=outcome)
        return dict((k, doc[k]) for k in SUMMARY)

    def update_prefix(self, ident, body):
        """Only description_customer can change (as in Terraform); the name is the CIDR."""
        body = require_object(body)
        doc = self.prefix(ident)
        if body.get("name") not in (None, "", doc["name"]):
            raise invalid({"name": "The CIDR of a prefix cannot change."})
        if "description_customer" in body:
            if not is_text(body["description_customer"]):
                raise invalid({"description_customer": "Must be a string."})
            doc.update(description_customer=body["description_customer"], _updated=time.time())
            self.store.put("prefix", doc)
        return dict((k, doc[k]) for k in SUMMARY)

    def delete_prefix(self, ident):
        doc = self.prefix(ident)
        if self.engine.deleting(doc):
            return {}
        if self.prefix_status(doc) == "Pending":
            raise ApiError(409, "Prefix %s is not yet ready to be deleted." % ident)
        for address in self.store.all("address"):
            if address["prefix"] == ident and not self.engine.deleting(address):
                self.engine.schedule_removal("address", address)
        self.engine.schedule_removal("prefix", doc)
        return {}

    def list_prefixes(self, query):
        """Top-level ``data`` with page keys; ``search`` is a substring of the CIDR."""
        search = (first(query, "search") or "").lower()
        items = [dict((k, p[k]) for k in SUMMARY) for p in self.store.all("prefix") if search in p["name"]]
        return bare_page(items, query)

    def handle_prefix(self, method, ident, query, body):
        return crud(method, ident, query, body, self.list_prefixes, self.create_prefix,
                    lambda i: self.prefix_view(self.prefix(i)), self.update_prefix, self.delete_prefix)

    def handle_vlan(self, method, ident):
        if method != "GET" or ident is None:
            raise not_allowed(method)
        doc = self.store.get(ident, "vlan")
        if doc is None:
            raise not_found("vlan", ident)
        return public(doc)
