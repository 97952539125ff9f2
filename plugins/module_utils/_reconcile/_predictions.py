# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Check mode across the tasks of a play: what earlier check-mode tasks predicted, seen by later ones.

In a real run a task sees what the tasks before it did, because they did it. In check mode nothing
is done, so a task would see the Engine as it was before the play: a frontend whose binds an earlier
task removed still "has" them, an address an earlier task allocated is still free. The collection's
action plugins (``plugin_utils/_check_predictions.py``) therefore keep, per host and per Engine, the
predictions of the play's check-mode tasks so far and hand them to each module (option
``check_mode_predictions``, internal). The module then observes through ``PredictedEngine``: the real
client for every read, with the predictions laid over each answer, one overlay per endpoint kind:

* LBaaS lists and objects: an object predicted deleted is gone (404), one predicted created is
  listed under its parent with its placeholder id and read back as deployed, a predicted change
  shows its new fields;
* resources and tags: predicted objects carry their predicted tags, deleted ones are gone;
* IPAM addresses: a predicted allocation is an address object of its owner at its address (it
  replaces an unclaimed object there, as a claim would); a predicted release is an object being
  deleted (``Marked for deletion``), as the Engine shows one for minutes after the delete, so its
  address is not handed out again and no owner holds it.

Placeholders (``_plan.Placeholder``) are typed; they cross into text only here, in the recorded
predictions and in the identifiers a later task passes on, and are typed again where they come back.

Observation, planning and prediction then run unchanged, so a task predicts from the world its
predecessors predicted; ``record()`` adds the task's own plan to the predictions. Real runs never
get here: the wrapper is installed only in check mode, and it refuses every write. Nothing secret is
recorded: object fields, tags and addresses, keyed by the Engine URL without any userinfo.
"""

import copy
from urllib.parse import urlsplit

try:
    import netaddr
except ImportError:  # pragma: no cover - reported by the module base class
    netaddr = None

from .._engine._errors import NotFoundError, gone_as_none
from .._model._ipam import DELETING, canonical, description, looks_unclaimed
from .._model._ownership import tag_names
from .._model._kinds import link_id
from .._model._kind import kind_named
from ._plan import Placeholder, is_placeholder

OPTION = "check_mode_predictions"
ALLOCATE, RELEASE, ADOPT, DELETE, RDNS = "allocate", "release", "adopt", "delete", "update"
# How a predicted object reads back: a real run's earlier task waited for its deployment.
DEPLOYED = {"id": "3", "title": "Deployed", "type": 1}


def engine_key(api_url):
    """The Engine a record belongs to: scheme, host, port and path of ``api_url``, never its userinfo."""
    parts = urlsplit((api_url or "").strip())
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = "[%s]" % host
    port = ":%d" % parts.port if parts.port else ""
    return "%s://%s%s%s" % (parts.scheme.lower(), host, port, parts.path.rstrip("/"))


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


class Predictions:
    """One Engine's predictions (``record``: the JSON-able form the action plugin keeps) and the
    other Engines' records, passed through untouched."""

    def __init__(self, records, api_url):
        self.key = engine_key(api_url)
        records = records or []
        self.others = [copy.deepcopy(r) for r in records if r.get("api_url") != self.key]
        mine = [r for r in records if r.get("api_url") == self.key]
        mine = copy.deepcopy(mine[-1]) if mine else {}

        def entries(name):
            return mine.get(name) or []
        self.deleted = dict((d["id"], d["kind"]) for d in entries("deleted"))
        self.objects = dict((o["id"], o) for o in map(_typed, entries("objects")))
        self.allocated = dict((a["id"], a) for a in (dict(a, id=Placeholder.parse(a["id"])) for a in entries("allocated")))
        self.released = dict((r["id"], r) for r in entries("released"))
        self.tags = dict((t["id"], list(t["tags"])) for t in entries("tags"))
        self.rdns = dict((r["id"], r["rdns_name"]) for r in entries("rdns"))   # existing addresses' new rDNS names

    def empty(self):
        return not (self.deleted or self.objects or self.allocated or self.released or self.tags or self.rdns)

    def dump(self):
        """Every Engine's record, this one's updated (left out when it predicts nothing)."""
        out = list(self.others)
        if not self.empty():
            out.append({
                "api_url": self.key,
                "deleted": [{"id": i, "kind": k} for i, k in sorted(self.deleted.items())],
                "objects": [self.objects[i] for i in sorted(self.objects)],
                "allocated": [self.allocated[i] for i in sorted(self.allocated)],
                "released": [self.released[i] for i in sorted(self.released)],
                "tags": [{"id": i, "tags": sorted(t)} for i, t in sorted(self.tags.items())],
                "rdns": [{"id": i, "rdns_name": n} for i, n in sorted(self.rdns.items())],
            })
        return out

    # ---- recording a task's plan -----------------------------------------------------------------
    def record(self, plan, after):
        """Adds what ``plan`` does (``after``: the world it predicts, ``{id: flat object}``)."""
        renamed = {}
        for action in plan.objects():   # bookkeeping (a marker) is no object a later task reads
            if action.kind.recorded_as == "dns":
                continue   # records are not carried across tasks (the DNS modules read the zone as it is)
            if action.kind.recorded_as == "addresses":
                self._record_address(action)
            elif action.effect == DELETE:
                self._record_delete(Placeholder.parse(action.id), action.kind.name)
            else:
                self._record_object(_typed(_kept(after.get(action.id) or action.obj)), renamed)
        for obj in self.objects.values():
            for field in kind_named(obj["kind"]).references():
                if obj.get(field) in renamed:
                    obj[field] = renamed[obj[field]]

    def _record_object(self, obj, renamed):
        ident = obj["id"]
        if is_placeholder(ident) and ident in self.objects and not _same_place(self.objects[ident], obj):
            # The same name under another parent (two load balancers' frontend 80.web): a key of its own.
            number = 2
            while ident.numbered(number) in self.objects:
                number += 1
            renamed[ident] = obj["id"] = ident.numbered(number)
        self.objects[obj["id"]] = obj

    def _record_delete(self, ident, kind):
        self.objects.pop(ident, None)
        if not is_placeholder(ident):   # a predicted create deleted again is simply not there
            self.deleted[ident] = kind

    def _record_address(self, action):
        obj = action.obj
        ident = Placeholder.parse(action.id)
        if action.op == ALLOCATE:
            self.allocated[ident] = {"id": ident, "address": obj["address"], "prefix_id": obj["prefix_id"],
                                     "prefix": obj["prefix"], "family": obj["family"], "owner": obj["owner"],
                                     "tags": sorted(action.tags), "rdns_name": obj.get("rdns_name") or ""}
        elif action.op == RELEASE:
            if ident in self.allocated:
                del self.allocated[ident]
            else:
                self.released[ident] = {"id": ident, "address": obj["address"], "prefix_id": obj["prefix_id"]}
        elif action.op == ADOPT:
            self.tags[ident] = sorted(set(self.tags.get(ident, [])) | set(action.tags))
        elif action.op == RDNS:   # ip_address's rdns_name, changed in place
            name = action.changes["rdns_name"][1]
            if ident in self.allocated:
                self.allocated[ident]["rdns_name"] = name
            else:
                self.rdns[ident] = name


def _same_place(a, b):
    """Whether two recorded objects are one: the same kind and the same identity within their parent."""
    return a["kind"] == b["kind"] and kind_named(a["kind"]).identity(a) == kind_named(b["kind"]).identity(b)


def record(client, outcome):
    """Adds a check-mode run's plan to the predictions its client carries; nothing for a real run."""
    if isinstance(client, PredictedEngine):
        client.predictions.record(outcome.plan, outcome.after)


def _not_found(what, ident):
    return NotFoundError("%s %s is gone after an earlier check-mode task (predicted)" % (what, ident), status=404,
                         method="GET", path="(predicted) %s/%s" % (what, ident))


class PredictedEngine:
    """A read-only view of the Engine with the predictions laid over every answer.

    Each overlay below belongs to one kind of observation; everything else passes to the real client.
    Writes are refused: this view exists only in check mode.
    """

    def __init__(self, client, predictions):
        self._client = client
        self.predictions = predictions

    def __getattr__(self, name):
        return getattr(self._client, name)

    def request(self, method, path, **kwargs):
        if method != "GET":
            raise RuntimeError("check mode must not write (%s %s)" % (method, path))
        return self._client.request(method, path, **kwargs)

    def _refuse(self, *args, **kwargs):
        raise RuntimeError("check mode must not write")

    lbaas_create = lbaas_update = lbaas_redeploy = lbaas_delete = _refuse
    tag_add = tag_remove = tag_entity_delete = _refuse
    address_create = address_update = address_delete = address_reserve_random = _refuse

    # ---- LBaaS objects ---------------------------------------------------------------------------
    def lbaas_list(self, kind, **filters):
        p = self.predictions
        given = dict((k, Placeholder.parse(v)) for k, v in filters.items() if v is not None)
        # A predicted parent has only predicted children; its placeholder never goes to the Engine.
        listing = [] if any(is_placeholder(v) for v in given.values()) else self._client.lbaas_list(kind, **filters)
        out = []
        for item in listing:
            ident = item["identifier"]
            if ident in p.deleted:
                continue
            if ident in p.objects:
                if not _matches(p.objects[ident], given):
                    continue
                item = dict(item, name=p.objects[ident]["name"])
            out.append(item)
        out.extend({"identifier": i, "name": o["name"]} for i, o in sorted(p.objects.items())
                   if is_placeholder(i) and o["kind"] == kind and _matches(o, given))
        return out

    def lbaas_get(self, kind, ident):
        p = self.predictions
        ident = Placeholder.parse(ident)   # a later task may name a predicted object by its placeholder text
        if ident in p.deleted:
            raise _not_found(kind, ident)
        obj = p.objects.get(ident)
        if is_placeholder(ident):
            if obj is None or obj["kind"] != kind:
                raise _not_found(kind, ident)
            raw = {"identifier": ident, "state": dict(DEPLOYED)}
        else:
            raw = dict(self._client.lbaas_get(kind, ident))
        if obj is not None:
            spec = kind_named(kind)
            raw["name"] = obj["name"]
            for field in spec.references() + list(spec.fields):
                raw[field] = obj.get(field)
        return raw

    def lbaas_get_many(self, kind, idents):
        """As the client's: in order, leaving out what is gone (here: predicted deleted, too)."""
        self._client.lbaas_path(kind)   # an unknown kind fails before any read, as the client's does
        got = self._client.map(gone_as_none(lambda ident: self.lbaas_get(kind, ident)), idents)
        return [obj for obj in got if obj is not None]

    # ---- resources and tags ----------------------------------------------------------------------
    def resources_by_tag(self, tag):
        p = self.predictions
        out = [r for r in self._client.resources_by_tag(tag) if r["identifier"] not in p.deleted]
        seen = set(r["identifier"] for r in out)
        found = [(i, o["name"]) for i, o in sorted(p.objects.items()) if tag in o.get("tags", [])]
        found += [(i, a["address"]) for i, a in sorted(p.allocated.items()) if tag in a["tags"]]
        found += [(i, None) for i, tags in sorted(p.tags.items()) if tag in tags]
        for ident, name in found:
            if ident not in seen:
                seen.add(ident)
                out.append({"identifier": ident, "name": name})
        return out

    def resource_get(self, ident):
        p = self.predictions
        ident = Placeholder.parse(ident)
        if ident in p.deleted:
            raise _not_found("resource", ident)
        obj, allocated = p.objects.get(ident), p.allocated.get(ident)
        if is_placeholder(ident):
            if obj is not None:
                return {"identifier": ident, "name": obj["name"], "tags": [{"name": t} for t in obj["tags"]],
                        "resource_type": {"identifier": kind_named(obj["kind"]).resource_type}}
            if allocated is not None:
                return {"identifier": ident, "name": allocated["address"], "resource_type": {"identifier": None},
                        "tags": [{"name": t} for t in allocated["tags"]]}
            raise _not_found("resource", ident)
        resource = self._client.resource_get(ident)
        extra = set((obj or {}).get("tags", [])) | set(p.tags.get(ident, []))
        if extra - set(tag_names(resource)):
            resource = dict(resource, tags=[{"name": t} for t in sorted(set(tag_names(resource)) | extra)])
        return resource

    def resource_get_listed(self, idents):
        """As the client's (None for what is gone), through this view's ``resource_get``: the client's own
        would read past the predictions."""
        return self._client.map(gone_as_none(self.resource_get), idents)

    def resource_tags(self, ident):
        return tag_names(self.resource_get(ident))

    # ---- IPAM addresses --------------------------------------------------------------------------
    def address_list(self, prefix=None, version=None, search=None, status=None):
        p = self.predictions
        listing = self._client.address_list(prefix=prefix, version=version, search=search, status=status)

        def wanted(entry):
            family = "v%d" % int(version) if version not in (None, "") else None
            return (prefix in (None, "", entry["prefix_id"]) and (search or "") in entry["address"]
                    and family in (None, entry.get("family", family)))
        if status not in (None, ""):
            # A released object reads as being deleted, nothing else; a predicted allocation is in no such list.
            out = [s for s in listing if s["identifier"] not in p.released]
            if status == DELETING:
                seen = set(s["identifier"] for s in out)
                out += [{"identifier": i, "name": r["address"]} for i, r in sorted(p.released.items())
                        if i not in seen and wanted(r)]
            return out
        out = list(listing)
        for ident, entry in sorted(p.allocated.items()):
            if not wanted(entry):
                continue
            # A claim takes the unclaimed object at the address over: it then holds our allocation.
            out = [s for s in out if not (_address_of(s) == entry["address"] and looks_unclaimed(s))]
            out.append({"identifier": ident, "name": entry["address"], "description_customer": description(entry["owner"]),
                        "role_text": "Default", "rdns_name": entry.get("rdns_name") or ""})
        return _with_rdns(out, p.rdns)

    def address_get(self, ident):
        p = self.predictions
        ident = Placeholder.parse(ident)
        entry = p.allocated.get(ident)
        if entry is not None:
            return {"identifier": ident, "name": entry["address"], "prefix": entry["prefix_id"], "status": "Active",
                    "description_customer": description(entry["owner"]), "role_text": "Default",
                    "rdns_name": entry.get("rdns_name") or "",
                    "version": int(entry["family"][1:])}
        if is_placeholder(ident):
            raise _not_found("address", ident)
        obj = self._client.address_get(ident)
        if ident in p.released:
            obj = dict(obj, status=DELETING)
        if ident in p.rdns:
            obj = dict(obj, rdns_name=p.rdns[ident])
        return obj


def _matches(obj, given):
    """Whether a predicted object passes a listing's filters (link fields compared as identifiers)."""
    return all(link_id(obj.get(field)) == value for field, value in given.items())


def _with_rdns(summaries, rdns):
    """Address summaries with the rDNS names earlier tasks set in place (``{identifier: name}``)."""
    return [dict(s, rdns_name=rdns[s["identifier"]]) if s.get("identifier") in rdns else s for s in summaries]


def _address_of(summary):
    try:
        return canonical(summary.get("name"))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None   # not an address: it cannot be the one allocated
