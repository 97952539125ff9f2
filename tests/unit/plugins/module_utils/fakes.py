"""The one in-memory stand-in for EngineClient, for unit tests of the code above the client only
(observing, planning, waiting, applying). Everything that talks HTTP is tested against the local Engine.

It holds LBaaS objects, IPAM prefixes and address objects, and tags (on resources and as the account's tag
entities). Every call is recorded in ``calls`` as ``(what, about, which)``; tests script what the Engine
would do over time with ``scripts`` (states of successive GETs), ``delete_errors`` and ``gone``, and a test
that needs an Engine misbehaving in one particular way subclasses it."""
import itertools

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import NotFoundError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._listings import FullListings

from ....engine_states import STATES, state

# the Engine's resource types of the LBaaS kinds (resource_get answers carry them)
RESOURCE_TYPES = {"backend": "33164a3066a04a52be43c607f0c5dd8c", "frontend": "da9d14b9d95840c08213de67f9cee6e2",
                  "bind": "bd24def982aa478fb3352cb5f49aab47", "server": "01f321a4875446409d7d8469503a905f"}
ADDRESS_SUMMARY = ("identifier", "name", "description_customer", "role_text", "rdns_name")

__all__ = ["FakeClient", "RESOURCE_TYPES", "STATES", "state"]


def gone(method, ident):
    return NotFoundError("not found", status=404, method=method, path="/x/" + str(ident))


class _Ran:
    def __init__(self, fn, items):
        self.out, self.error = [], None
        try:
            self.out = [fn(i) for i in items]
        except Exception as exc:   # raised by results(), as the pool would
            self.error = exc

    def results(self):
        if self.error is not None:
            raise self.error
        return list(self.out)


class FakeClient:
    """``tag_match``: how ``resources_by_tag`` matches tag names, ``"substring"`` (the loosest an Engine
    could be: callers must confirm exact names) or ``"exact"``."""

    def __init__(self, tag_match="substring"):
        self.objects = {}      # id -> LBaaS engine object
        self.kinds = {}        # id -> its kind
        self.tags = {}         # id -> tag names, in the order they were added
        self.prefixes = {}     # id -> {"identifier", "name" (the CIDR)}
        self.addresses = {}    # id -> address object (with "prefix" and "status")
        self.gone = set()      # ids whose resource GET answers 404 (deleted since a listing)
        self.calls = []        # (method, kind, id)
        self.bodies = []       # (kind, id, body) of every PUT
        self.scripts = {}      # id -> list of state titles returned by successive GETs
        self.delete_errors = {}  # id -> exceptions raised by successive DELETEs (then it succeeds)
        self.entities = {}     # tag name -> identifier: account-level tag entities (made on first attach)
        self.tag_match = tag_match
        self.full_listings = FullListings()   # its listings hold identifier and name: every object is read
        self._ids = ("%032x" % i for i in itertools.count(1))

    # ---- building the account ------------------------------------------------------------------
    def add(self, kind, name, state="Deployed", ident=None, tags=(), **fields):
        """An LBaaS object (fields as the Engine answers them); returns its identifier."""
        ident = ident or next(self._ids)
        self.objects[ident] = dict(fields, identifier=ident, name=name, state=dict(STATES[state]))
        self.kinds[ident] = kind
        if tags:
            self.tags[ident] = list(tags)
        return ident

    def add_binds(self, binds, load_balancer):
        """Binds as the Engine answers them (each with ``identifier``, ``name`` and ``frontend``), with their
        frontends on ``load_balancer`` ({"identifier", "name"})."""
        for frontend in sorted(set(b["frontend"] for b in binds)):
            self.add("frontend", "http", ident=frontend, load_balancer=dict(load_balancer))
        for b in binds:
            self.add("bind", b["name"], ident=b["identifier"], **dict((k, v) for k, v in b.items() if k != "name"))
        return self

    def add_prefix(self, cidr, ident=None):
        ident = ident or next(self._ids)
        self.prefixes[ident] = {"identifier": ident, "name": cidr}
        return ident

    def add_address(self, ip, prefix=None, ident=None, description="", status="Active", role="Default", tags=()):
        """An IPAM address object in ``prefix`` (default: the only prefix added); returns its identifier."""
        ident = ident or next(self._ids)
        if prefix is None and len(self.prefixes) == 1:
            prefix = next(iter(self.prefixes))
        self.addresses[ident] = {"identifier": ident, "name": ip, "description_customer": description,
                                 "role_text": role, "rdns_name": "", "prefix": prefix, "status": status}
        if tags:
            self.tags[ident] = list(tags)
        return ident

    def listed(self, ident):
        """Whether the fake holds ``ident`` (as an object, an address, a prefix or a tagged resource)."""
        return ident not in self.gone and (ident in self.objects or ident in self.tags or ident in self.addresses
                                           or ident in self.prefixes)

    def writes(self):
        return [c for c in self.calls if c[0] not in ("GET", "LIST")]

    def map(self, fn, items):
        return [fn(i) for i in items]

    def start(self, fn, items):
        """The client's ``start``: here the items run at once, one after another, and ``results()`` answers
        what they returned then (what was read ahead, as a pool thread would have read it)."""
        return _Ran(fn, items)

    @staticmethod
    def lbaas_path(kind):
        return "/api/LBaaS/v1/%s.json" % kind

    # ---- LBaaS objects -------------------------------------------------------------------------
    def lbaas_list(self, kind, **filters):
        self.calls.append(("LIST", kind, tuple(sorted(filters.items()))))
        return [{"identifier": i, "name": o["name"]} for i, o in sorted(self.objects.items())
                if self.kinds[i] == kind and all(o.get(f) == v for f, v in filters.items() if v is not None)]

    def lbaas_get(self, kind, ident):
        self.calls.append(("GET", kind, ident))
        if ident not in self.objects or self.kinds[ident] != kind:
            raise gone("GET", ident)
        obj = self.objects[ident]
        script = self.scripts.get(ident)
        if script:
            obj["state"] = dict(STATES[script.pop(0)])
        return dict(obj)

    def lbaas_get_many(self, kind, idents):
        return [self.lbaas_get(kind, i) for i in idents]

    def lbaas_create(self, kind, body):
        self.calls.append(("POST", kind, body.get("name")))
        fields = dict((k, v) for k, v in body.items() if k != "name")
        ident = self.add(kind, body["name"], state="NewlyCreated", **fields)
        self.scripts[ident] = ["Deployed"]   # deployed by the time anyone looks again
        return dict(self.objects[ident])

    def lbaas_update(self, kind, ident, body, redeploy=False):
        self.calls.append(("PUT", kind, ident))
        self.bodies.append((kind, ident, dict(body)))
        self.objects[ident].update(body)
        return dict(self.objects[ident])

    def lbaas_delete(self, kind, ident):
        self.calls.append(("DELETE", kind, ident))
        errors = self.delete_errors.get(ident)
        if errors:
            raise errors.pop(0)
        self.objects.pop(ident, None)

    # ---- resources and their tags --------------------------------------------------------------
    def resource_get(self, ident):
        self.calls.append(("GET", "resource", ident))
        if not self.listed(ident):
            raise gone("GET", ident)
        return {"identifier": ident, "tags": [{"name": t, "identifier": t} for t in self.tags.get(ident, ())],
                "resource_type": {"identifier": RESOURCE_TYPES.get(self.kinds.get(ident))}}

    def resource_get_listed(self, idents):
        return [self.resource_get(i) if self.listed(i) else None for i in idents]

    def resource_tags(self, ident):
        return [t["name"] for t in self.resource_get(ident)["tags"]]

    def resources_by_tag(self, tag):
        self.calls.append(("GET", "tagged", tag))
        exact = self.tag_match == "exact"
        return [{"identifier": i} for i, tags in sorted(self.tags.items())
                if (tag in tags if exact else any(tag in t for t in tags))]

    def tag_add(self, ident, tag):
        self.calls.append(("TAG", tag, ident))
        tags = self.tags.setdefault(ident, [])
        if tag not in tags:
            tags.append(tag)
        self.entities.setdefault(tag, "%032x" % (10 ** 6 + len(self.entities)))

    def tag_remove(self, ident, tag):
        self.calls.append(("UNTAG", tag, ident))
        if tag in self.tags.get(ident, ()):
            self.tags[ident].remove(tag)

    def tag_entities(self, query=""):
        self.calls.append(("GET", "tag entities", query))
        return [{"name": n, "identifier": i} for n, i in sorted(self.entities.items()) if query in n]

    def tag_entity_get(self, ident):
        self.calls.append(("GET", "tag entity", ident))
        name = [n for n, i in self.entities.items() if i == ident][0]
        return {"name": name, "identifier": ident,
                "organisation_assignments": [{"customer": {"identifier": "c"}, "service": {"identifier": "svc"}}]}

    def tag_entity_delete(self, ident, service_identifier):
        self.calls.append(("DELETE TAG", ident, service_identifier))
        for name in [n for n, i in self.entities.items() if i == ident]:
            del self.entities[name]

    # ---- IPAM ----------------------------------------------------------------------------------
    def prefix_list(self, search=None):
        self.calls.append(("LIST", "prefix", search))
        return [dict(p) for p in self.prefixes.values() if (search or "") in p["name"]]

    def address_list(self, prefix=None, version=None, search=None, status=None):
        """Summaries, as the Engine lists them (no status: ``status`` filters on the object's)."""
        self.calls.append(("LIST", "address", "status=" + status if status else search))
        return [dict((k, a[k]) for k in ADDRESS_SUMMARY) for a in self.addresses.values()
                if prefix in (None, a["prefix"]) and (search or "") in a["name"] and status in (None, a["status"])]

    def address_get(self, ident):
        self.calls.append(("GET", "address", ident))
        if ident not in self.addresses or ident in self.gone:
            raise gone("GET", ident)
        return dict(self.addresses[ident])

    def address_create(self, prefix_id, ip, description=""):
        self.calls.append(("POST", "address", ip))
        ident = self.add_address(ip, prefix=prefix_id, description=description)
        return {"identifier": ident, "name": ip}

    def address_delete(self, ident):
        self.calls.append(("DELETE", "address", ident))
        self.addresses.pop(ident)

    def address_ips(self):
        """The IPs of all address objects, sorted (one per object)."""
        return sorted(a["name"] for a in self.addresses.values())
