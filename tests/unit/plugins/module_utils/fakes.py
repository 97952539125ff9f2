"""An in-memory stand-in for EngineClient, for unit tests of the code above the client only
(planning, waiting, applying). Everything that talks HTTP is tested against the local Engine."""
import itertools

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import NotFoundError

STATES = {
    "Updating": {"id": "0", "title": "Updating", "type": 1},
    "Updated": {"id": "1", "title": "Updated", "type": 1},
    "DeploymentError": {"id": "2", "title": "DeploymentError", "type": 0},
    "Deployed": {"id": "3", "title": "Deployed", "type": 1},
    "NewlyCreated": {"id": "4", "title": "NewlyCreated", "type": 2},
}


class FakeClient:
    def __init__(self):
        self.objects = {}      # id -> engine object
        self.tags = {}         # id -> set of tag names
        self.calls = []        # (method, kind, id)
        self.bodies = []       # (kind, id, body) of every PUT
        self.scripts = {}      # id -> list of state titles returned by successive GETs
        self.delete_errors = {}  # id -> exceptions raised by successive DELETEs (then it succeeds)
        self.entities = {}     # tag name -> identifier: account-level tag entities (made on first attach)
        self._ids = ("%032x" % i for i in itertools.count(1))

    def add(self, kind, name, state="Deployed", **fields):
        ident = next(self._ids)
        obj = dict(fields, identifier=ident, name=name, state=dict(STATES[state]))
        obj["_kind"] = kind
        self.objects[ident] = obj
        return ident

    def map(self, fn, items):
        return [fn(i) for i in items]

    def lbaas_get(self, kind, ident):
        self.calls.append(("GET", kind, ident))
        if ident not in self.objects:
            raise NotFoundError("not found", status=404, method="GET", path="/x")
        obj = self.objects[ident]
        script = self.scripts.get(ident)
        if script:
            obj["state"] = dict(STATES[script.pop(0)])
        return dict(obj)

    def lbaas_create(self, kind, body):
        self.calls.append(("POST", kind, body.get("name")))
        fields = dict((k, v) for k, v in body.items() if k != "name")
        ident = self.add(kind, body["name"], state="NewlyCreated", **fields)
        self.scripts[ident] = ["Deployed"]   # deployed by the time anyone looks again
        return dict(self.objects[ident])

    def lbaas_update(self, kind, ident, body):
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

    def tag_remove(self, ident, tag):
        self.calls.append(("UNTAG", tag, ident))
        self.tags.get(ident, set()).discard(tag)

    def resource_get(self, ident):
        self.calls.append(("GET", "resource", ident))
        return {"identifier": ident, "tags": [{"name": t, "identifier": t} for t in sorted(self.tags.get(ident, ()))]}

    def tag_add(self, ident, tag):
        self.calls.append(("TAG", tag, ident))
        self.tags.setdefault(ident, set()).add(tag)
        self.entities.setdefault(tag, "%032x" % (10 ** 6 + len(self.entities)))

    def resource_get_listed(self, idents):
        return [self.resource_get(i) if i in self.objects or i in self.tags else None for i in idents]

    def resource_tags(self, ident):
        return [t["name"] for t in self.resource_get(ident)["tags"]]

    def resources_by_tag(self, tag):
        """Matches substrings, the loosest an Engine could be: callers must confirm exact names."""
        self.calls.append(("GET", "tagged", tag))
        return [{"identifier": i} for i, tags in sorted(self.tags.items()) if any(tag in t for t in tags)]

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

    def writes(self):
        return [c for c in self.calls if c[0] != "GET"]
