"""Tag names and the account's tag entities (docs/engine-api-facts.md, Core resources and tags).

A tag is an account-level entity with its own identifier, assigned to services (LBaaS, IPAM, VLAN).
Attaching a name to a resource creates the entity on the fly (clients never create one first);
detaching never deletes it, so entities pile up unless a client deletes them through
``/api/core/v1/tags.json`` (as gac:pkg/core/tags/tags.go does: List, Get, Create, Delete).
"""
import re
import time

from .account import CUSTOMER, CUSTOMER_OBJECT
from .errors import ApiError, crud, invalid, not_allowed, not_found, require_object
from .pages import bare_page, first
from .store import new_id

# The Engine's service identifiers are unknown; these are invented (stable, 32 hex).
SERVICES = {"LBaaS": "5e7f1ce0000000000000000000000001", "IPAM": "5e7f1ce0000000000000000000000002",
            "VLAN": "5e7f1ce0000000000000000000000003"}
SERVICE_NAMES = dict((ident, name) for name, ident in SERVICES.items())
NAME_CHARS = "A-Z a-z 0-9 - _ . : = @ , +"
STRICT_NAME = re.compile(r"^[A-Za-z0-9_.:=@,+-]{1,128}$")
ORDERS = {"": "seq", "name": "name", "identifier": "identifier"}
MATCHES = {
    "exact": lambda name, wanted: name == wanted,
    "substring": lambda name, wanted: wanted in name,
    "prefix": lambda name, wanted: name.startswith(wanted),
    "casefold": lambda name, wanted: name.casefold() == wanted.casefold(),
}


def name_problem(name, mode):
    """Why ``name`` is not acceptable as a tag name under --tag-names ``mode``, or None."""
    if not isinstance(name, str) or not name:
        return "Required: a non-empty tag name."
    if mode == "strict" and not STRICT_NAME.match(name):
        return "Tag names are 1-128 characters of %s; got %r." % (NAME_CHARS, name)
    return None


def summary(entity):
    return {"identifier": entity["identifier"], "name": entity["name"]}


class Tags:
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store

    def option(self, name):
        return self.engine.options[name]

    # ---- used by resources (core.py) and the seed -----------------------------------------------
    def check_name(self, name):
        problem = name_problem(name, self.option("tag_names"))
        if problem:
            raise ApiError(422, "Invalid tag name: %s" % problem, {"name": problem})

    def ensure(self, name, service):
        """The entity named ``name``, created (or assigned to ``service``) when needed."""
        entity = self.store.tag_entity(name=name) or {
            "identifier": new_id(), "name": name, "services": [], "_created": time.time()}
        if SERVICES[service] not in entity["services"]:
            entity["services"].append(SERVICES[service])
            self.store.put_tag_entity(entity)
        return entity

    def attach(self, ident, name, service):
        """False if the resource already carries the tag."""
        self.ensure(name, service)
        return self.store.tag(ident, name)

    def summaries(self, names):
        found = [self.store.tag_entity(name=n) for n in names]
        return [summary(e) for e in found if e is not None]

    def matching(self, wanted):
        """The attached names a resource listing by ``tag_name=wanted`` matches (--tag-match)."""
        match = MATCHES[self.option("tag_match")]
        return sorted(n for n in self.store.attached_names() if match(n, wanted))

    # ---- /api/core/v1/tags.json ----------------------------------------------------------------
    def view(self, entity):
        return {"name": entity["name"], "identifier": entity["identifier"],
                "organisation_assignments": [{"customer": CUSTOMER_OBJECT,
                                              "service": {"name": SERVICE_NAMES[s], "identifier": s}}
                                             for s in entity["services"]]}

    def must(self, ident):
        entity = self.store.tag_entity(ident=ident)
        if entity is None:
            raise not_found("tag", ident)
        return entity

    def list(self, query):
        """Bare page of {name, identifier}: ``query`` a case-insensitive substring of the name,
        ``service_identifier`` and ``organization_identifier`` filters, ``order`` ("" creation order,
        name, identifier) and ``sort_descending`` (true/false)."""
        order, descending = first(query, "order") or "", (first(query, "sort_descending") or "false").lower()
        errors = {}
        if order not in ORDERS:
            errors["order"] = "Must be empty or one of: %s." % ", ".join(o for o in ORDERS if o)
        if descending not in ("true", "false"):
            errors["sort_descending"] = "Must be true or false."
        if errors:
            raise invalid(errors)
        text = (first(query, "query") or "").casefold()
        service = first(query, "service_identifier") or ""
        organization = first(query, "organization_identifier") or ""
        entities = [e for e in self.store.tag_entities() if text in e["name"].casefold()
                    and service in ("", *e["services"]) and organization in ("", CUSTOMER)]
        if ORDERS[order] != "seq":
            entities.sort(key=lambda e: e[ORDERS[order]])
        if descending == "true":
            entities.reverse()
        return bare_page([summary(e) for e in entities], query)

    def create(self, body):
        """{name, service_identifier, customer_identifier}; an existing name gains the service, or is
        a 422 when it has it already."""
        body = require_object(body)
        errors = {}
        problem = name_problem(body.get("name"), self.option("tag_names"))
        if problem:
            errors["name"] = problem
        if body.get("service_identifier") not in SERVICE_NAMES:
            errors["service_identifier"] = "Required: one of the service identifiers %s." % ", ".join(
                "%s (%s)" % item for item in sorted(SERVICE_NAMES.items()))
        if body.get("customer_identifier") not in (None, "", CUSTOMER):
            errors["customer_identifier"] = "Must be empty or your customer identifier %s." % CUSTOMER
        if errors:
            raise invalid(errors)
        existing = self.store.tag_entity(name=body["name"])
        if existing and body["service_identifier"] in existing["services"]:
            raise invalid({"name": "A tag named %s exists already for this service." % body["name"]})
        return summary(self.ensure(body["name"], SERVICE_NAMES[body["service_identifier"]]))

    def carriers(self, entity, service):
        """Resources of ``service`` carrying the entity's name."""
        kinds = self.engine.core.kinds_of_service(service)
        return [i for i in self.store.tagged(entity["name"]) if self.store.kind_of(i) in kinds]

    def delete(self, ident, query):
        """?service_identifier= (required) ends that assignment: the tag is detached from the service's
        resources (--tag-delete detach) or the request is a 409 while one carries it (refuse). The entity
        is gone with its last assignment."""
        entity = self.must(ident)
        service = first(query, "service_identifier") or ""
        if service not in entity["services"]:
            raise invalid({"service_identifier": "Required: a service the tag is assigned to (%s)." %
                                                 ", ".join(entity["services"])})
        carriers = self.carriers(entity, SERVICE_NAMES[service])
        if carriers and self.option("tag_delete") == "refuse":
            raise ApiError(409, "The tag %s is still attached to %d resource(s) (%s); detach it first." % (
                entity["name"], len(carriers), ", ".join(carriers[:5])))
        for resource in carriers:
            self.store.untag(resource, entity["name"])
        entity["services"].remove(service)
        if entity["services"]:
            self.store.put_tag_entity(entity)
        else:
            self.store.remove_tag_entity(ident)
        return {}

    def handle(self, method, ident, query, body):
        return crud(method, ident, query, body, self.list, self.create, lambda i: self.view(self.must(i)),
                    lambda i, b: _raise(not_allowed(method)), lambda i: self.delete(i, query))


def _raise(exc):
    raise exc
