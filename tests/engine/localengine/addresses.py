"""IPAM addresses and random reservations (docs/engine-api-facts.md, IPAM).

Names are stored in the compressed, lowercase form (``FD00:10:0::0005`` becomes ``fd00:10::5``) and
are unique across all prefixes. POST/PUT answers echo ``rdns_name`` as sent; reads show it as an FQDN
with a trailing dot once the change is processed (--deploy-delay seconds after it). Reserved addresses
read ``In progress`` / ``reserved``, cannot be deleted (409) and vanish when their period ends.
"""
import ipaddress
import time

from .account import CUSTOMER
from .errors import ApiError, crud, invalid, not_found, require_object
from .pages import bare_page, first, wrapped_page
from .store import new_id
from .validation import is_int, is_text, parse_ip

SUMMARY = ("identifier", "name", "description_customer", "role_text", "rdns_name")
FULL = SUMMARY + ("description_internal", "version", "status", "vlan", "prefix")
FILTERS = ("prefix", "vlan", "version", "role_text", "status")
DEFAULT_RESERVATION_PERIOD = 1800
MAX_RESERVATION = 100


class Addresses:
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store

    # ---- objects -------------------------------------------------------------------------------
    def add(self, prefix, name, description="", role="Default", status="Inactive", rdns="", internal="",
            reserved_until=None):
        now = time.time()
        doc = {"identifier": new_id(), "name": name, "description_customer": description, "role_text": role,
               "rdns_name": rdns, "description_internal": internal, "version": prefix["version"], "status": status,
               "vlan": prefix["vlans"][0]["identifier"], "prefix": prefix["identifier"],
               "_location": prefix["locations"][0]["identifier"], "_created": now, "_updated": now}
        if reserved_until is not None:
            doc.update(_reserved=True, _gone_at=reserved_until)
        return self.store.put("address", doc)

    def populate(self, prefix, net, create_empty):
        """A new prefix's address objects: network, gateway (+1) and, for IPv4, broadcast; every
        address when ``create_empty`` is false."""
        base = int(net.network_address)
        special = {base: "Network"}
        if net.num_addresses > 2:
            special[base + 1] = "Gateway"
            if net.version == 4:
                special[int(net.broadcast_address)] = "Broadcast"
        offsets = range(net.num_addresses) if not create_empty else sorted(k - base for k in special)
        for offset in offsets:
            ip = net.network_address + offset
            role = special.get(int(ip))
            self.add(prefix, str(ip), role=role or "Default", status="Active" if role else "Inactive")

    def status(self, doc):
        if self.engine.deleting(doc):
            return "Marked for deletion"
        return "In progress" if doc.get("_reserved") else doc["status"]

    def rdns(self, doc):
        """The FQDN with its trailing dot once the last change is processed."""
        name = doc["rdns_name"]
        processed = time.time() >= doc["_updated"] + self.engine.delays["create"]
        return name + "." if name and processed and not name.endswith(".") else name

    def view(self, doc, keys=FULL):
        out = dict((k, doc.get(k)) for k in keys)
        out["rdns_name"] = self.rdns(doc)
        if "status" in keys:
            out["status"] = self.status(doc)
        return out

    @staticmethod
    def echo(doc):
        """POST/PUT answers: the summary with rdns_name exactly as sent."""
        return dict((k, doc[k]) for k in SUMMARY)

    def must(self, ident):
        doc = self.store.get(ident, "address")
        if doc is None:
            raise not_found("address", ident)
        return doc

    # ---- lists ---------------------------------------------------------------------------------
    def list(self, query):
        """Summaries in the wrapped page. Filters: prefix, vlan, version, role_text, status, location,
        organization_identifier, and search (a case-insensitive substring of the address)."""
        items = self.store.all("address")
        for key in FILTERS:
            value = first(query, key)
            if value:
                items = [a for a in items if str(self.view(a)[key]) == value]
        location = first(query, "location")
        if location:
            items = [a for a in items if a["_location"] == location]
        organization = first(query, "organization_identifier")
        if organization and organization != CUSTOMER:
            items = []
        search = (first(query, "search") or "").lower()
        items = [a for a in items if search in a["name"]]
        return wrapped_page([self.view(a, SUMMARY) for a in items], query)

    # ---- writing -------------------------------------------------------------------------------
    def _check_name(self, prefix, value, errors, ident=None):
        """The compressed address, or None with errors["name"] set."""
        ip = parse_ip(value)
        if ip is None:
            errors["name"] = "Must be a valid IPv4 or IPv6 address."
            return None
        net = ipaddress.ip_network(prefix["name"])
        if ip.version != net.version or ip not in net:
            errors["name"] = "The address %s is not part of prefix %s." % (ip, net)
            return None
        if any(a["name"] == str(ip) and a["identifier"] != ident for a in self.store.all("address")):
            errors["name"] = "The address %s is already in use." % ip
            return None
        return str(ip)

    @staticmethod
    def _check_texts(body, errors):
        for key in ("description_customer", "role", "rdns_name", "organization"):
            if key in body and not is_text(body[key]):
                errors[key] = "Must be a string."

    def create(self, body):
        """Create a specific address: ``prefix`` and ``name`` (the IP) required; request key ``role``
        is answered as ``role_text``."""
        body = require_object(body)
        errors = {}
        self._check_texts(body, errors)
        prefix = self.store.get(body["prefix"], "prefix") if is_text(body.get("prefix")) else None
        if prefix is None or self.engine.deleting(prefix):
            errors["prefix"] = "No prefix with identifier %s." % body.get("prefix")
            name = None
        else:
            name = self._check_name(prefix, body.get("name"), errors)
        if errors:
            raise invalid(errors)
        return self.echo(self.add(prefix, name, description=body.get("description_customer", ""),
                                  role=body.get("role") or "Default", rdns=body.get("rdns_name", "")))

    def update(self, ident, body):
        """Merges name, description_customer, role (an empty one counts as not sent) and rdns_name."""
        body = require_object(body)
        doc = self.must(ident)
        if self.engine.deleting(doc):
            raise ApiError(409, "Address %s is being deleted." % ident)
        errors = {}
        self._check_texts(body, errors)
        if body.get("name") not in (None, "", doc["name"]):
            doc["name"] = self._check_name(self.store.get(doc["prefix"]), body["name"], errors, ident)
        if errors:
            raise invalid(errors)
        for key, target in (("description_customer", "description_customer"), ("rdns_name", "rdns_name"),
                            ("role", "role_text")):
            if body.get(key) not in (None, "") or (key != "role" and key in body):
                doc[target] = body[key]
        doc["_updated"] = time.time()
        return self.echo(self.store.put("address", doc))

    def delete(self, ident):
        doc = self.must(ident)
        if doc.get("_reserved"):
            raise ApiError(409, "Address %s is reserved; reservations cannot be deleted, they expire." % ident)
        if not self.engine.deleting(doc):
            self.engine.schedule_removal("address", doc)
        return {}

    # ---- random reservation --------------------------------------------------------------------
    def _free(self, net, taken, count):
        """Up to ``count`` random free addresses, skipping network, gateway and (IPv4) broadcast."""
        low = int(net.network_address) + 2
        high = int(net.broadcast_address) - (1 if net.version == 4 else 0)
        size = high - low + 1
        if size <= 0:
            return []
        faults = self.engine.faults
        if size <= 65536:
            free = [n for n in range(low, high + 1) if n not in taken]
            picked = faults.choice(free, min(count, len(free)))
        else:   # a huge (IPv6) prefix: random probes, collisions are rare
            picked = set()
            for _attempt in range(count * 100):
                n = low + faults.randrange(size)
                if n not in taken:
                    picked.add(n)
                if len(picked) == count:
                    break
        return [ipaddress.ip_address(n) for n in picked]

    def reserve(self, body):
        """Reserve ``count`` random free addresses of a VLAN's prefixes; a bare page of
        {identifier, text, prefix}. 409 while a matching prefix is still Pending."""
        body = require_object(body)
        errors = {}
        vlan = self.store.get(body["vlan_identifier"], "vlan") if is_text(body.get("vlan_identifier")) else None
        if vlan is None:
            errors["vlan_identifier"] = "No VLAN with identifier %s." % body.get("vlan_identifier")
        elif body.get("location_identifier") not in [loc["identifier"] for loc in vlan["locations"]]:
            errors["location_identifier"] = "Must be the location of the VLAN."
        count = body.get("count")
        if not is_int(count) or not 1 <= count <= MAX_RESERVATION:
            errors["count"] = "Must be an integer from 1 to %d." % MAX_RESERVATION
        version = body.get("ip_version")
        if version is not None and version not in (4, 6):
            errors["ip_version"] = "Must be 4 or 6."
        period = body.get("reservation_period", DEFAULT_RESERVATION_PERIOD)
        if isinstance(period, bool) or not isinstance(period, (int, float)) or period <= 0:
            errors["reservation_period"] = "Must be a number of seconds > 0."
        if errors:
            raise invalid(errors)
        ipam = self.engine.ipam
        prefixes = [p for p in self.store.all("prefix")
                    if any(v["identifier"] == vlan["identifier"] for v in p["vlans"]) and not self.engine.deleting(p)
                    and body.get("prefix_identifier") in (None, "", p["identifier"])
                    and version in (None, p["version"])]
        if not prefixes:
            raise invalid({"prefix_identifier" if body.get("prefix_identifier") else "vlan_identifier":
                           "No matching prefix on VLAN %s." % vlan["identifier"]})
        if any(ipam.prefix_status(p) != "Active" for p in prefixes):
            raise ApiError(409, "The VLAN or prefix might not be ready yet.")
        taken = set(int(ipaddress.ip_address(a["name"])) for a in self.store.all("address"))
        until = time.time() + period
        out = []
        for prefix in prefixes:
            for ip in self._free(ipaddress.ip_network(prefix["name"]), taken, count - len(out)):
                doc = self.add(prefix, str(ip), internal="reserved", reserved_until=until)
                out.append({"identifier": doc["identifier"], "text": doc["name"], "prefix": prefix["identifier"]})
            if len(out) == count:
                break
        if len(out) < count:
            raise invalid({"count": "Only %d free addresses left." % len(out)})
        return bare_page(out, {"page": ["1"], "limit": [str(count)]})

    def handle(self, method, ident, query, body):
        return crud(method, ident, query, body, self.list, self.create, lambda i: self.view(self.must(i)),
                    self.update, self.delete)
