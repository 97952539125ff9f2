"""LBaaS v1: list, get, create, update, delete of LoadBalancer, Frontend, Backend, Bind, Server, ACL
and Rule (docs/engine-api-facts.md, LBaaS objects)."""
import time
from urllib.parse import parse_qs

from . import states
from .account import CUSTOMER, RESELLER
from .errors import ApiError, crud, invalid, not_found, require_object
from .lbaas_types import FIELDS, LINKS, REQUIRED, SWITCHES, check_values
from .validation import is_switch
from .pages import first, wrapped_page
from .store import new_id


def _filter_text(value):
    """A stored value as it appears in a filter query string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _switch(value):
    """A stored enable as the Engine answers it: a bool, on when never set."""
    return True if value is None else bool(value)


class Lbaas:
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store

    # ---- reading -------------------------------------------------------------------------------
    def must(self, kind, ident):
        doc = self.store.get(ident, kind)
        if doc is None:
            raise not_found(kind, ident)
        return doc

    def render(self, kind, doc):
        out = {"identifier": doc["identifier"], "name": doc.get("name")}
        for field in FIELDS[kind]:
            value = doc.get(field)
            if field in LINKS[kind] and value is not None:
                linked = self.store.get(value)
                value = {"identifier": value, "name": linked.get("name") if linked else None}
            out[field] = value
        if kind in SWITCHES:   # a bool, on when never set (a state file of an older Engine may hold 0/1 or nothing)
            out[SWITCHES[kind]] = _switch(doc.get(SWITCHES[kind]))
        title = states.current(doc, self.engine.delays)
        if self.engine.haproxy:   # finished by the clock, but pending until HAProxy runs it
            title = self.engine.haproxy.shown_state(kind, doc, title)
        out.update(customer_identifier=CUSTOMER, reseller_identifier=RESELLER, automation_rules=[],
                   state=states.state_object(title))
        return out

    def list(self, kind, query):
        """{identifier, name} per item, or the whole objects where ``attributes=all`` is asked for and the
        option full_listings honours it (README.md, "Full listings"). ``filters`` is one parameter holding an
        encoded inner query string; each of its keys must be a field of the kind and compares for equality."""
        full = self._full(query)
        items = self.store.all(kind)
        filters = parse_qs(first(query, "filters") or "", keep_blank_values=True)
        unknown = sorted(set(filters) - set(FIELDS[kind]) - {"name"})
        if unknown:
            raise invalid(dict((key, "Unknown filter for %s." % kind) for key in unknown))
        for key, values in filters.items():
            items = [doc for doc in items if _filter_text(doc.get(key)) == values[-1]]
        if full:
            return wrapped_page([self._entry(kind, doc) for doc in items], query)
        return wrapped_page([{"identifier": d["identifier"], "name": d.get("name")} for d in items], query)

    def _full(self, query):
        """Whether a listing answers whole objects: ``attributes`` asked for and honoured. Refused (400 naming it)
        under full_listings=refuse, as an Engine that knows no such parameter would; ignored under ignore. Under
        honour a value other than ``all`` is a 400 too (go-anxsdk sends only that one)."""
        asked = first(query, "attributes")
        mode = self.engine.options["full_listings"]
        if asked is None or mode == "ignore":
            return False
        if mode == "refuse":
            raise ApiError(400, "Unknown query parameter: attributes.", {"attributes": "Unknown parameter."})
        if asked != "all":
            raise ApiError(400, "attributes must be all.", {"attributes": "Must be all."})
        return True

    def _entry(self, kind, doc):
        """A full listing's entry: the object as a GET answers it, less the fields a fault says the listing
        leaves out of it (``listing_omits``, for tests of a client that must then read the object itself)."""
        out = self.render(kind, doc)
        for field in self.engine.faults.listing_omits(doc["identifier"], doc.get("name")):
            out.pop(field, None)
        return out

    # ---- validation ----------------------------------------------------------------------------
    def validate(self, kind, doc):
        errors = check_values(kind, doc)
        for field, target in LINKS[kind].items():
            if doc.get(field) is None or field in errors:
                continue
            linked = self.store.get(doc[field], target)
            if linked is None:
                errors[field] = "No %s with identifier %s." % (target, doc[field])
            elif self.engine.deleting(linked):
                errors[field] = "The %s %s is being deleted." % (target, doc[field])
        if kind == "frontend" and doc.get("default_backend") and "default_backend" not in errors:
            if self.store.get(doc["default_backend"])["load_balancer"] != doc.get("load_balancer"):
                errors["default_backend"] = "The backend belongs to another load balancer."
        if kind == "backend" and "load_balancer" not in errors:
            for frontend in self.store.all("frontend"):
                if frontend.get("default_backend") == doc["identifier"] and \
                        frontend["load_balancer"] != doc.get("load_balancer"):
                    errors["load_balancer"] = "Frontend %s on another load balancer uses this backend as " \
                                              "default backend." % frontend["identifier"]
        if kind == "rule" and not set(errors) & {"parent_type", "frontend", "backend", "condition_test"}:
            parent = doc["parent_type"]
            if not self.acls_named(parent, doc[parent], doc["condition_test"]):
                errors["condition_test"] = "No ACL named %r on %s %s: a rule names an ACL of its own parent." % (
                    doc["condition_test"], parent, doc[parent])
        if errors:
            raise invalid(errors)

    def acls_named(self, parent_type, parent, name, but=None):
        """The ACLs (not being deleted, other than ``but``) of one parent that carry ``name``."""
        return [acl for acl in self.store.all("acl") if acl["parent_type"] == parent_type and acl.get(parent_type) == parent
                and acl["name"] == name and acl["identifier"] != but and not self.engine.deleting(acl)]

    def _orphaned_rules(self, acl, new=None):
        """Rules that would name no ACL once ``acl`` is deleted or becomes ``new`` (renamed or moved); an
        other ACL of the parent with the same name keeps them valid."""
        parent_type = acl["parent_type"]
        if new is not None and all(new.get(f) == acl.get(f) for f in ("name", "parent_type", parent_type)):
            return []
        if self.acls_named(parent_type, acl.get(parent_type), acl["name"], but=acl["identifier"]):
            return []
        return [rule for rule in self.store.all("rule") if rule["parent_type"] == parent_type
                and rule.get(parent_type) == acl.get(parent_type) and rule["condition_test"] == acl["name"]
                and not self.engine.deleting(rule)]

    def _refuse_orphans(self, acl, new=None):
        rules = self._orphaned_rules(acl, new)
        if rules:
            raise ApiError(409, "ACL %s (%s) is named by rule %s (condition_test); change or delete those first." % (
                acl["identifier"], acl["name"], ", ".join(r["identifier"] for r in rules)))

    @staticmethod
    def _request(kind, body):
        """The body's known fields; an empty link is "not set". Other keys (read-only fields a client
        sends back, like customer_identifier) are ignored."""
        body = require_object(body)
        if "state" in body and body["state"] not in states.IDS:
            raise invalid({"state": "Must be one of the state ids %s." % ", ".join(sorted(states.IDS))})
        fields = dict((f, body[f]) for f in ("name",) + tuple(FIELDS[kind]) if f in body)
        for field in LINKS[kind]:
            if fields.get(field) == "":
                fields[field] = None
        switch = SWITCHES.get(kind)
        if switch and is_switch(fields.get(switch)):
            fields[switch] = bool(fields[switch])   # 0/1 or true/false, stored as the bool the Engine answers
        return fields

    # ---- writing -------------------------------------------------------------------------------
    def insert(self, kind, fields, identifier=None, seeded=False):
        """Validates and stores a new object; seeded objects are deployed already."""
        now = time.time()
        doc = {"identifier": identifier or new_id(), "name": fields.get("name"), "_created": now, "_updated": now}
        for field in FIELDS[kind]:
            doc[field] = fields.get(field)
        if kind in SWITCHES and doc[SWITCHES[kind]] is None:
            doc[SWITCHES[kind]] = True   # created without enable: it carries traffic
        self.validate(kind, doc)
        if seeded:
            states.seeded(doc)
        else:
            states.begin(doc, "create", self.engine.faults.deploy_outcome(doc["identifier"], doc["name"]), now)
        return self.store.put(kind, doc)

    def create(self, kind, body):
        return self.render(kind, self.insert(kind, self._request(kind, body)))

    def _replaced(self, kind, doc, fields):
        """--put replace: the body is the whole object. Required fields it lacks are a 422 naming
        each; optional ones it leaves out read back as after a create without them (null)."""
        missing = dict((f, "Required: a PUT replaces the whole object, send every field (--put replace).")
                       for f in REQUIRED[kind] if fields.get(f) in (None, ""))
        if missing:
            raise invalid(missing)
        new = dict((key, value) for key, value in doc.items() if key.startswith("_"))
        new.update(identifier=doc["identifier"], name=fields["name"])
        for field in FIELDS[kind]:
            new[field] = fields.get(field)
        return new

    def update(self, kind, ident, body):
        """PUT replaces (--put replace) or merges (merge). What starts a deployment is --deploy-on:
        state0 (only a body with "state": "0"; other changes are stored but not deployed, marked
        ``_undeployed``) or change (also any change). LoadBalancer bodies of the generic client cannot
        carry a state (go-anxcloud's loadbalancer_types.go), so their changes always deploy. Without a deployment the
        state stays as it was, DeploymentError included."""
        doc = self.must(kind, ident)
        fields = self._request(kind, body)
        if body.get("identifier") not in (None, ident):
            raise invalid({"identifier": "Does not match the identifier in the path."})
        if self.engine.deleting(doc):
            raise ApiError(409, "%s %s is being deleted." % (kind, ident))
        options = self.engine.options
        new = self._replaced(kind, doc, fields) if options["put"] == "replace" else dict(doc, **fields)
        switch = SWITCHES.get(kind)
        if switch and fields.get(switch) is None:
            # a PUT without enable (--put-enable): turns the object on again (reset), or leaves it as it was (keep)
            new[switch] = True if options["put_enable"] == "reset" else _switch(doc.get(switch))
        self.validate(kind, new)
        if kind == "acl":
            self._refuse_orphans(doc, new)
        changed = new != doc
        deploy = body.get("state") == states.REDEPLOY or (changed and (
            options["deploy_on"] == "change" or kind == "loadbalancer"))
        if deploy:
            new.pop("_undeployed", None)
            new["_updated"] = time.time()
            states.begin(new, "update", self.engine.faults.deploy_outcome(ident, new["name"]), new["_updated"])
        elif changed:
            new.update(_undeployed=True, _updated=time.time())
        if deploy or changed:
            self.store.put(kind, new)
        return self.render(kind, new)

    def children(self, kind, ident):
        """Objects not being deleted that still point at this one."""
        found = []
        for other, links in LINKS.items():
            fields = [field for field, target in links.items() if target == kind]
            found.extend(doc for doc in (self.store.all(other) if fields else [])
                         if any(doc.get(f) == ident for f in fields) and not self.engine.deleting(doc))
        return found

    def delete(self, kind, ident):
        doc = self.must(kind, ident)
        if self.engine.deleting(doc):
            return {}   # a repeated DELETE while deleting is harmless (the CCM sends them)
        blocking = ["%s %s" % (self.store.kind_of(d["identifier"]), d["identifier"]) for d in self.children(kind, ident)]
        if blocking:
            raise ApiError(409, "%s %s is still used by %s; delete those first." % (kind, ident, ", ".join(blocking)))
        if kind == "acl":
            self._refuse_orphans(doc)
        self.engine.schedule_removal(kind, doc)
        return {}

    def handle(self, method, kind, ident, query, body):
        return crud(method, ident, query, body, lambda q: self.list(kind, q), lambda b: self.create(kind, b),
                    lambda i: self.render(kind, self.must(kind, i)), lambda i, b: self.update(kind, i, b),
                    lambda i: self.delete(kind, i))
