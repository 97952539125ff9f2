# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Check mode across tasks for LBaaS objects (every kind recorded as ``objects``, the default of a ``Kind``).

An object predicted deleted is gone (404, and no longer listed or tagged); one predicted created is listed
under its parent with its placeholder id and reads back as deployed (a real run's earlier task waited for its
deployment); a predicted change shows its new fields; predicted tags are on the object's core resource.
The mechanism (recording, the view that refuses writes) is ``_reconcile._predictions``.
"""

from .._engine._errors import gone_as_none
from .._model._kind import kind_named
from .._model._kinds import link_id
from .._reconcile._plan import Placeholder, is_placeholder
from .._reconcile._predictions import Overlay, not_found

DELETE = "delete"
# How a predicted object reads back: a real run's earlier task waited for its deployment.
DEPLOYED = {"id": "3", "title": "Deployed", "type": 1}


def _kept(obj):
    """What a prediction keeps of a flat object: identity, parent and fields, tags, load balancer."""
    kind = kind_named(obj["kind"])
    out = {"kind": kind.name, "id": obj["id"], "name": obj.get("name"), "tags": sorted(obj.get("tags") or [])}
    for field in kind.references() + list(kind.fields):
        out[field] = obj.get(field)
    if obj.get("lb"):
        out["lb"] = obj["lb"]
    return out


def _typed(obj):
    """A recorded object with its placeholders typed again (they travel across tasks as text)."""
    kind = kind_named(obj["kind"])
    for field in ["id"] + kind.references():
        if field in obj:
            obj[field] = Placeholder.parse(obj[field])
    return obj


def _same_place(a, b):
    """Whether two recorded objects are one: the same kind and the same identity within their parent."""
    return a["kind"] == b["kind"] and kind_named(a["kind"]).identity(a) == kind_named(b["kind"]).identity(b)


def _laid_over(kind, raw, obj):
    """An Engine answer (a GET's, or a listing's entry) of the object ``obj`` recorded for ``kind`` as predicted:
    its name, parent and fields; a full listing's entry stays whole, so it still stands for the object's GET."""
    spec = kind_named(kind)
    out = dict(raw, name=obj["name"])
    for field in spec.references() + list(spec.fields):
        out[spec.engine_key(field)] = obj.get(field)   # as the Engine answers it (``enabled`` as ``enable``)
    return out


def _matches(obj, given):
    """Whether a predicted object passes a listing's filters (link fields compared as identifiers)."""
    return all(link_id(obj.get(field)) == value for field, value in given.items())


class LbaasOverlay(Overlay):
    section = "objects"
    reads = ("lbaas_list", "lbaas_list_within", "lbaas_get", "lbaas_get_many")

    def __init__(self, recorded):
        super().__init__(recorded)
        self.deleted = dict((d["id"], d["kind"]) for d in recorded.get("deleted") or [])
        self.objects = dict((o["id"], o) for o in map(_typed, recorded.get("objects") or []))
        self.renamed = {}

    def dump(self):
        if not (self.deleted or self.objects):
            return {}
        return {"deleted": [{"id": i, "kind": k} for i, k in sorted(self.deleted.items())],
                "objects": [self.objects[i] for i in sorted(self.objects)]}

    # ---- recording ---------------------------------------------------------------------------------
    def record(self, action, after):
        if action.effect == DELETE:
            ident = Placeholder.parse(action.id)
            self.objects.pop(ident, None)
            if not is_placeholder(ident):   # a predicted create deleted again is simply not there
                self.deleted[ident] = action.kind.name
            return
        obj = _typed(_kept(after.get(action.id) or action.obj))
        ident = obj["id"]
        if is_placeholder(ident) and ident in self.objects and not _same_place(self.objects[ident], obj):
            # The same name under another parent (two load balancers' frontend 80.web): a key of its own.
            number = 2
            while ident.numbered(number) in self.objects:
                number += 1
            self.renamed[ident] = obj["id"] = ident.numbered(number)
        self.objects[obj["id"]] = obj

    def recorded(self):
        """Children recorded under a placeholder that got a key of its own follow it."""
        for obj in self.objects.values():
            for field in kind_named(obj["kind"]).references():
                if obj.get(field) in self.renamed:
                    obj[field] = self.renamed[obj[field]]
        self.renamed = {}

    # ---- reads -------------------------------------------------------------------------------------
    def lbaas_list(self, kind, **filters):
        given = dict((k, Placeholder.parse(v)) for k, v in filters.items() if v is not None)
        # A predicted parent has only predicted children; its placeholder never goes to the Engine.
        listing = [] if any(is_placeholder(v) for v in given.values()) else self.client.lbaas_list(kind, **filters)
        out = []
        for item in listing:
            ident = item["identifier"]
            if ident in self.deleted:
                continue
            if ident in self.objects:
                if not _matches(self.objects[ident], given):
                    continue
                item = _laid_over(kind, item, self.objects[ident])
            out.append(item)
        # whole, as their GET answers them here: a full listing needs no read of them
        out.extend(_laid_over(kind, {"identifier": i, "state": dict(DEPLOYED)}, o) for i, o in sorted(self.objects.items())
                   if is_placeholder(i) and o["kind"] == kind and _matches(o, given))
        return out

    def lbaas_list_within(self, kind, pages, **filters):
        """The client's, while nothing is predicted (then ``lbaas_list`` would answer the client's listing as it is);
        else None: the caller lists as ``lbaas_list`` (per parent), where predicted objects are laid over by the
        filters that place them (a predicted parent's children never go to the Engine)."""
        if self.objects or self.deleted:
            return None
        return self.client.lbaas_list_within(kind, pages, **filters)

    def lbaas_get(self, kind, ident):
        ident = Placeholder.parse(ident)   # a later task may name a predicted object by its placeholder text
        if ident in self.deleted:
            raise not_found(kind, ident)
        obj = self.objects.get(ident)
        if is_placeholder(ident):
            if obj is None or obj["kind"] != kind:
                raise not_found(kind, ident)
            raw = {"identifier": ident, "state": dict(DEPLOYED)}
        else:
            raw = dict(self.client.lbaas_get(kind, ident))
        return raw if obj is None else _laid_over(kind, raw, obj)

    def lbaas_get_many(self, kind, idents):
        """As the client's: in order, leaving out what is gone (here: predicted deleted, too)."""
        self.client.lbaas_path(kind)   # an unknown kind fails before any read, as the client's does
        got = self.client.map(gone_as_none(lambda ident: self.lbaas_get(kind, ident)), idents)
        return [obj for obj in got if obj is not None]

    # ---- core resources and tags ---------------------------------------------------------------------
    def gone(self, ident):
        return ident in self.deleted

    def tagged(self, tag):
        return [(i, o["name"]) for i, o in sorted(self.objects.items()) if tag in o.get("tags", [])]

    def resource(self, ident):
        obj = self.objects.get(ident)
        if obj is None:
            return None
        return {"identifier": ident, "name": obj["name"], "tags": [{"name": t} for t in obj["tags"]],
                "resource_type": {"identifier": kind_named(obj["kind"]).resource_type}}

    def tags_of(self, ident):
        obj = self.objects.get(ident)
        return obj.get("tags", []) if obj else ()
