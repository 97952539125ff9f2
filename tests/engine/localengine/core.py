"""Core resources and the tags on them (docs/engine-api-facts.md, Core resources and tags). Every LBaaS object, IPAM prefix and
address and VLAN is a resource with the same identifier; tag entities and names are in tags.py."""
import time

from .account import CUSTOMER_OBJECT, RESELLER_OBJECT
from .errors import ApiError, not_allowed, not_found
from .pages import bare_page, first

# kind -> (resource_type identifier, name, service_name). The Frontend, Backend, Bind, Server and VLAN
# identifiers are the Engine's (docs/engine-api-facts.md, LBaaS objects); the others are unknown and invented here.
RESOURCE_TYPES = {
    "loadbalancer": ("c0a1e4b5d2f34c6e8a9b1d3f5e7a9c0b", "LBaaS LoadBalancer", "LBaaS"),
    "frontend": ("da9d14b9d95840c08213de67f9cee6e2", "LBaaS Frontend", "LBaaS"),
    "backend": ("33164a3066a04a52be43c607f0c5dd8c", "LBaaS Backend", "LBaaS"),
    "bind": ("bd24def982aa478fb3352cb5f49aab47", "LBaaS Bind", "LBaaS"),
    "server": ("01f321a4875446409d7d8469503a905f", "LBaaS Server", "LBaaS"),
    "acl": ("ac1e4b5d2f34c6e8a9b1d3f5e7a9c0b1", "LBaaS ACL", "LBaaS"),
    "rule": ("e1e4b5d2f34c6e8a9b1d3f5e7a9c0b12", "LBaaS Rule", "LBaaS"),
    "prefix": ("9f1e4b5d2f34c6e8a9b1d3f5e7a9c0b3", "IPAM Prefix", "IPAM"),
    "address": ("ad1e4b5d2f34c6e8a9b1d3f5e7a9c0b4", "IPAM Address", "IPAM"),
    "vlan": ("cf8e4dac56894afaa3244f6911bb62be", "VLAN", "VLAN"),
}
KINDS = tuple(RESOURCE_TYPES)


def timestamp(epoch):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(epoch))


class Core:
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store
        self.tags = engine.tags

    @staticmethod
    def kinds_of_service(service):
        return [kind for kind, (_type, _name, name) in RESOURCE_TYPES.items() if name == service]

    def tag_list(self, ident):
        return self.tags.summaries(self.store.tags(ident))

    def _resource(self, ident):
        kind = self.store.kind_of(ident)
        if kind not in KINDS:
            raise not_found("resource", ident)
        return kind, self.store.get(ident)

    def get(self, ident):
        kind, doc = self._resource(ident)
        type_id, type_name, service = RESOURCE_TYPES[kind]
        return {
            "identifier": ident, "name": doc.get("name"),
            "resource_type": {"identifier": type_id, "name": type_name}, "service_name": service,
            "created_at": timestamp(doc.get("_created", 0)), "updated_at": timestamp(doc.get("_updated", 0)),
            "deleted_at": None, "reseller": RESELLER_OBJECT, "customer": CUSTOMER_OBJECT, "billing_contract": None,
            "managed_status": "unmanaged", "shared_by": None, "shared_at": None, "resource_pools": [],
            "attributes": None, "tags": self.tag_list(ident),
        }

    def list(self, query):
        """Bare page of {identifier, name}; 422 when nothing carries ``tag_name`` (the Engine's way of
        saying "none"), an empty page past the end of a non-empty result. --tag-match says how a name
        matches ``tag_name`` (exact by default)."""
        tag = first(query, "tag_name")
        if tag:
            ids = self.store.tagged(*self.tags.matching(tag))
            if not ids:
                raise ApiError(422, "No resources found with tag %s." % tag)
            docs = [self.store.get(i) for i in ids]
        else:
            docs = self.store.all(*KINDS)
        return bare_page([{"identifier": d["identifier"], "name": d.get("name")} for d in docs], query)

    def tag(self, method, ident, name, body, has_body):
        """POST attaches (200 with the resource's tags; a JSON null body is 400; two distinct 422s: an
        invalid name, validation key ``name``, and a tag already there, validation key ``tag``).
        DELETE detaches (200; 404 if the resource does not carry it) and leaves the tag entity."""
        kind, _doc = self._resource(ident)
        if method not in ("POST", "DELETE"):
            raise not_allowed(method)
        if method == "POST" and has_body and body is None:
            raise ApiError(400, "The request body must not be null.")
        if method == "POST":
            self.tags.check_name(name)
        if self.engine.faults.tag_conflict():
            raise ApiError(409, "Conflict while changing the tags of %s; try again." % ident)
        if method == "POST" and not self.tags.attach(ident, name, RESOURCE_TYPES[kind][2]):
            raise ApiError(422, "The resource already has the tag %s." % name,
                           {"tag": "Already attached to resource %s." % ident})
        if method == "DELETE" and not self.store.untag(ident, name):
            raise ApiError(404, "The resource has no tag %s." % name)
        return self.tag_list(ident)

    def handle(self, method, ident, tag, query, body, has_body):
        if tag is not None:
            return self.tag(method, ident, tag, body, has_body)
        if method != "GET":
            raise not_allowed(method)
        return self.get(ident) if ident is not None else self.list(query)
