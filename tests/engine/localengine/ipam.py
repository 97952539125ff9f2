"""IPAM prefixes and addresses, and the VLAN lookup the reservation flow needs (ENGINE_API.md 6)."""
import ipaddress
import random

from .common import ApiError, bare_page, first, invalid, parse_ip, wrapped_page
from .store import new_id

LOCATION = {"identifier": "52b5f6b2fd3a4e5d8f4b7a9c3e1d0f11", "code": "LOC", "name": "Local", "country": "AT",
            "lat": "48.2", "lon": "16.37", "city_code": "VIE"}
SUMMARY = ("identifier", "name", "description_customer", "role_text", "rdns_name")


def address_summary(doc):
    return dict((k, doc.get(k)) for k in SUMMARY)


class Ipam(object):
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store

    # ---- VLANs and prefixes (created by seeding) ------------------------------------------------
    def add_vlan(self, name, identifier=None):
        doc = {"identifier": identifier or new_id(), "name": name, "description_customer": "",
               "description_internal": "", "role_text": "Default", "status": "Active", "vm_provisioning": False,
               "locations": [LOCATION]}
        return self.store.put("vlan", doc)

    def add_prefix(self, cidr, vlan, identifier=None, create_empty=True, description="", prefix_type=1):
        net = ipaddress.ip_network(cidr, strict=False)
        doc = {"identifier": identifier or new_id(), "name": str(net), "description_customer": description,
               "description_internal": "", "version": net.version, "netmask": net.prefixlen, "role_text": "Default",
               "status": "Active", "type": prefix_type, "router_redundancy": False, "locations": [LOCATION],
               "vlans": [{"identifier": vlan["identifier"], "name": vlan["name"], "description_customer": ""}]}
        self.store.put("prefix", doc)
        hosts = [net.network_address]
        if net.num_addresses > 2:
            hosts.append(net.network_address + 1)   # gateway
        if net.version == 4 and net.num_addresses > 2:
            hosts.append(net.broadcast_address)
        if not create_empty:
            hosts = list(net) if net.num_addresses <= 1024 else hosts
        roles = {0: "Network", 1: "Gateway"}
        for offset, host in enumerate(hosts):
            role = roles.get(int(host) - int(net.network_address), "Broadcast" if host == net.broadcast_address and
                             net.version == 4 else "Default")
            self._new_address(doc, str(host), role=role, status="Active")
        return doc

    def prefix_view(self, doc):
        return dict((k, v) for k, v in doc.items() if not k.startswith("_"))

    # ---- addresses -----------------------------------------------------------------------------
    def _new_address(self, prefix, name, description="", role="Default", status="Inactive", rdns="", internal=""):
        doc = {"identifier": new_id(), "name": name, "description_customer": description, "role_text": role,
               "rdns_name": rdns, "description_internal": internal, "version": prefix["version"], "status": status,
               "vlan": prefix["vlans"][0]["identifier"] if prefix.get("vlans") else "", "prefix": prefix["identifier"]}
        return self.store.put("address", doc)

    def addresses(self):
        return [a for a in self.store.all("address") if not self.engine.gone(a)]

    def address_view(self, doc, fresh=False):
        out = dict((k, v) for k, v in doc.items() if not k.startswith("_"))
        if not fresh and out.get("rdns_name") and not out["rdns_name"].endswith("."):
            out["rdns_name"] += "."   # the Engine answers FQDNs with a trailing dot once processed
        return out

    def create_address(self, body):
        if not isinstance(body, dict):
            raise ApiError(400, "The request body must be a JSON object.")
        prefix = self.store.get(body.get("prefix") or "", "prefix")
        if prefix is None:
            raise invalid(prefix="No prefix with identifier %s." % body.get("prefix"))
        ip = parse_ip(body.get("name") or "")
        if ip is None:
            raise invalid(name="Must be a valid IP address.")
        net = ipaddress.ip_network(prefix["name"])
        if ip.version != net.version or ip not in net:
            raise invalid(name="The address %s is not part of prefix %s." % (ip, net))
        if any(parse_ip(a["name"]) == ip for a in self.addresses()):
            raise invalid(name="The address %s is already in use." % ip)
        doc = self._new_address(prefix, str(ip), description=body.get("description_customer") or "",
                                role=body.get("role") or "Default", rdns=body.get("rdns_name") or "")
        return address_summary(doc)

    def update_address(self, ident, body):
        doc = self._address(ident)
        for key, target in (("name", "name"), ("description_customer", "description_customer"),
                            ("role", "role_text"), ("rdns_name", "rdns_name")):
            if isinstance(body, dict) and key in body and (body[key] or key == "rdns_name"):
                doc[target] = body[key]
        self.store.put("address", doc)
        return address_summary(doc)

    def _address(self, ident):
        doc = self.store.get(ident, "address")
        if doc is None or self.engine.gone(doc):
            raise ApiError(404, "address %s not found" % ident)
        return doc

    def delete_address(self, ident):
        doc = self._address(ident)
        if doc.get("_reserved"):
            raise ApiError(409, "Reserved addresses cannot be deleted manually; they expire.")
        if not self.engine.deleting(doc):
            self.engine.schedule_removal(doc)
        return {}

    def filtered(self, query):
        items = self.addresses()
        for key in ("prefix", "vlan", "version", "role_text", "status"):
            value = first(query, key)
            if value:
                items = [a for a in items if str(a.get(key)) == value]
        search = first(query, "search")
        if search:
            items = [a for a in items if search in a["name"]]   # substring, as the Engine does
        return wrapped_page([address_summary(a) for a in items], query)

    def reserve(self, body):
        if not isinstance(body, dict):
            raise ApiError(400, "The request body must be a JSON object.")
        vlan = body.get("vlan_identifier")
        prefixes = [p for p in self.store.all("prefix") if any(v["identifier"] == vlan for v in p.get("vlans", []))]
        if body.get("prefix_identifier"):
            prefixes = [p for p in prefixes if p["identifier"] == body["prefix_identifier"]]
        if body.get("ip_version"):
            prefixes = [p for p in prefixes if p["version"] == int(body["ip_version"])]
        if not prefixes:
            raise invalid(vlan_identifier="No matching prefix on VLAN %s." % vlan)
        taken = set(parse_ip(a["name"]) for a in self.addresses())
        count = int(body.get("count") or 1)
        out = []
        for prefix in prefixes:
            net = ipaddress.ip_network(prefix["name"])
            free = [ip for ip in (net.hosts() if net.num_addresses <= 65536 else []) if ip not in taken]
            random.shuffle(free)
            for ip in free[:count - len(out)]:
                doc = self._new_address(prefix, str(ip), status="In progress", internal="reserved")
                doc["_reserved"] = True
                self.store.put("address", doc)
                out.append({"identifier": doc["identifier"], "text": doc["name"], "prefix": prefix["identifier"]})
            if len(out) == count:
                break
        if len(out) < count:
            raise invalid(count="Not enough free addresses.")
        return bare_page(out, {"page": ["1"], "limit": [str(count)]})

    # ---- routing -------------------------------------------------------------------------------
    def handle(self, method, route, ident, query, body):
        if route == "prefix":
            if method == "GET" and ident is None:
                search = first(query, "search") or ""
                items = [{"identifier": p["identifier"], "name": p["name"],
                          "description_customer": p.get("description_customer", "")}
                         for p in self.store.all("prefix") if search in p["name"]]
                return bare_page(items, query)
            if method == "GET":
                doc = self.store.get(ident, "prefix")
                if doc is None:
                    raise ApiError(404, "prefix %s not found" % ident)
                return self.prefix_view(doc)
        elif route == "address":
            if ident is None and method == "GET":
                return self.filtered(query)
            if ident is None and method == "POST":
                return self.create_address(body)
            if method == "GET":
                return self.address_view(self._address(ident))
            if method == "PUT":
                return self.update_address(ident, body)
            if method == "DELETE":
                return self.delete_address(ident)
        elif route == "filtered" and method == "GET":
            return self.filtered(query)
        elif route == "reserve" and method == "POST":
            return self.reserve(body)
        elif route == "vlan" and method == "GET":
            doc = self.store.get(ident or "", "vlan")
            if doc is None:
                raise ApiError(404, "vlan %s not found" % ident)
            return doc
        raise ApiError(405, "Method %s is not allowed here." % method)
