"""Core resources and tags (ENGINE_API.md section 5). Every stored object is a resource with the
same identifier; tags are created on the fly when first attached."""
import hashlib

from .common import ApiError, bare_page
from .lbaas import CUSTOMER, RESELLER, RESOURCE_TYPES

OTHER_TYPES = {
    "prefix": ("b1c9a1f4e2d84f0c9f6e1a2b3c4d5e6f", "IPAM Prefix"),        # not known: invented
    "address": ("c2d0b2a5f3e94a1d8a7f2b3c4d5e6f70", "IPAM Address"),      # not known: invented
    "vlan": ("cf8e4dac56894afaa3244f6911bb62be", "VLAN"),
}
TYPES = dict(RESOURCE_TYPES, **OTHER_TYPES)
SERVICES = {"loadbalancer": "LBaaS", "frontend": "LBaaS", "backend": "LBaaS", "bind": "LBaaS", "server": "LBaaS",
            "prefix": "IPAM", "address": "IPAM", "vlan": "VLAN"}


def tag_identifier(name):
    return hashlib.md5(name.encode("utf-8")).hexdigest()


def tag_list(names):
    return [{"identifier": tag_identifier(n), "name": n} for n in names]


class Core(object):
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store

    def _resource(self, ident):
        kind = self.store.kind_of(ident)
        doc = self.store.get(ident) if kind else None
        if doc is None or self.engine.gone(doc):
            raise ApiError(404, "resource %s not found" % ident)
        return kind, doc

    def get(self, ident):
        kind, doc = self._resource(ident)
        type_id, type_name = TYPES[kind]
        customer = {"customer_id": "C0DE", "demo": False, "identifier": CUSTOMER, "name": "Local Engine",
                    "name_slug": "local-engine", "reseller": RESELLER}
        return {
            "identifier": ident, "name": doc.get("name"),
            "resource_type": {"identifier": type_id, "name": type_name}, "service_name": SERVICES[kind],
            "created_at": doc.get("_created", "2026-01-01 00:00:00"), "updated_at": doc.get("_created", "2026-01-01 00:00:00"),
            "deleted_at": None, "reseller": {"identifier": RESELLER, "name": "Local Reseller"}, "customer": customer,
            "billing_contract": None, "managed_status": "unmanaged", "shared_by": None, "shared_at": None,
            "resource_pools": [], "attributes": None, "tags": tag_list(self.store.tags(ident)),
        }

    def list(self, query):
        names = query.get("tag_name")
        if names:
            ids = [i for i in self.store.tagged(names[0]) if not self.engine.gone(self.store.get(i))]
            if not ids:
                # The Engine's way of saying "nothing carries this tag" (clients treat it as empty).
                raise ApiError(422, "No resources found with tag %s." % names[0])
        else:
            ids = [i for i in self.store.ids() if not self.engine.gone(self.store.get(i))]
        items = [{"identifier": i, "name": self.store.get(i).get("name")} for i in ids]
        return bare_page(items, query)

    def tag(self, method, ident, name, body, raw_body):
        self._resource(ident)
        if method == "POST":
            if raw_body.strip() == b"null":
                raise ApiError(400, "The request body must not be null.")
            if self.engine.faults.tag_conflict():
                raise ApiError(409, "Conflict while tagging; try again.")
            if not self.store.tag(ident, name):
                raise ApiError(422, "The resource already has the tag %s." % name)
        elif method == "DELETE":
            if not self.store.untag(ident, name):
                raise ApiError(404, "The resource has no tag %s." % name)
        else:
            raise ApiError(405, "Method %s is not allowed here." % method)
        return tag_list(self.store.tags(ident))
