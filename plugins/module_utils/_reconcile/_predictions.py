# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Check mode across the tasks of a play: what earlier check-mode tasks predicted, seen by later ones.

In a real run a task sees what the tasks before it did, because they did it. In check mode nothing
is done, so a task would see the Engine as it was before the play: a frontend whose binds an earlier
task removed still "has" them, an address an earlier task allocated is still free, an rrset an earlier
task created is still missing. The collection's action plugins (``plugin_utils/_check_predictions.py``)
therefore keep, per host and per Engine, the predictions of the play's check-mode tasks so far and hand
them to each module (option ``check_mode_predictions``, internal). The module then observes through
``PredictedEngine``: the real client for every read, with the predictions laid over each answer.

This is the mechanism only; it knows no kind. Each family of endpoints has an ``Overlay`` in its own
package (LBaaS objects in ``_lbaas/_predicted.py``, IPAM addresses in ``_addresses/_predicted.py``,
CloudDNS records in ``_dns/_predicted.py``): it records the actions of the kinds that name it
(``Kind.recorded_as`` is its ``section``) and answers the client's reads it names (``reads``, or raw GET
paths through ``answers``/``get``). The Engine's core resources and tags are shared by every family, so
this view answers them here from what each overlay contributes (``gone``, ``tagged``, ``resource``,
``tags_of``). A module installs the overlays of the families its observation reads
(``_predicting.predicting``); the record of a family it does not install passes through untouched.

Placeholders (``_plan.Placeholder``) are typed; they cross into text only in the recorded predictions and
in the identifiers a later task passes on, and are typed again where they come back.

Observation, planning and prediction then run unchanged, so a task predicts from the world its
predecessors predicted; ``record()`` adds the task's own plan to the predictions. Real runs never
get here: the wrapper is installed only in check mode, and it refuses every write (the client's
declared writes, ``EngineClient.WRITES``, and any raw request but a GET). Nothing secret is recorded:
object fields, tags, addresses and records, keyed by the Engine URL without any userinfo.
"""

import copy
from urllib.parse import urlsplit

from .._engine._client import WRITES
from .._engine._errors import NotFoundError, gone_as_none
from .._model._ownership import tag_names
from ._plan import Placeholder, is_placeholder

OPTION = "check_mode_predictions"
API_URL = "api_url"


def engine_key(api_url):
    """The Engine a record belongs to: scheme, host, port and path of ``api_url``, never its userinfo."""
    parts = urlsplit((api_url or "").strip())
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = "[%s]" % host
    port = ":%d" % parts.port if parts.port else ""
    return "%s://%s%s%s" % (parts.scheme.lower(), host, port, parts.path.rstrip("/"))


def not_found(what, ident):
    """The 404 a read of something predicted gone answers, as the Engine's own would read."""
    return NotFoundError("%s %s is gone after an earlier check-mode task (predicted)" % (what, ident), status=404,
                         method="GET", path="(predicted) %s/%s" % (what, ident))


class Overlay:
    """One family of endpoints' predictions: what its kinds' actions leave (``record``) and how that reads
    (its ``reads``, and its part of the core resources and tags). Subclasses set ``section`` (the key of its
    part of the record; the kinds it records name it in ``Kind.recorded_as``) and override what they need.

    ``client`` is the real client, ``view`` the ``PredictedEngine``: an overlay reads another family through
    the view (an address's binds are LBaaS objects, seen as predicted), its own endpoints through the client."""

    section = None
    reads = ()   # names of the client's read methods this overlay answers (same signature)

    def __init__(self, recorded):
        """``recorded``: this overlay's section as ``dump`` left it (JSON-able), {} when nothing was predicted."""
        self.client = self.view = None

    def attach(self, client, view):
        self.client, self.view = client, view

    def dump(self):
        """The section, JSON-able; empty (falsy) when it predicts nothing."""
        raise NotImplementedError

    def record(self, action, after):
        """Adds one action of a kind recorded here; ``after``: the plan's predicted world (``{id: flat object}``)."""
        raise NotImplementedError

    def recorded(self):
        """Called once a plan's actions are all recorded."""

    # ---- raw reads ---------------------------------------------------------------------------------
    def answers(self, path):
        """Whether a raw GET of ``path`` is this overlay's to answer (``get``)."""
        return False

    def get(self, path, **kwargs):   # pragma: no cover - only called when answers() says so
        raise NotImplementedError

    # ---- this family's part of the core resources and tags ------------------------------------------
    def gone(self, ident):
        """Whether resource ``ident`` is predicted deleted."""
        return False

    def tagged(self, tag):
        """``[(identifier, name)]`` of predicted resources carrying ``tag`` that the Engine may not list yet."""
        return []

    def resource(self, ident):
        """The core resource of a predicted object ``ident`` (a placeholder), or None when it is not this family's."""
        return None

    def tags_of(self, ident):
        """Tags predicted onto the existing resource ``ident``."""
        return ()


class Predictions:
    """One Engine's predictions, one part per installed overlay, and everything else passed through untouched:
    the other Engines' records and the parts of families this module does not install."""

    def __init__(self, records, api_url, overlays):
        self.key = engine_key(api_url)
        records = records or []
        self.others = [copy.deepcopy(r) for r in records if r.get(API_URL) != self.key]
        mine = [r for r in records if r.get(API_URL) == self.key]
        mine = copy.deepcopy(mine[-1]) if mine else {}
        self.overlays = []
        for overlay in overlays:
            if overlay.section in (None, API_URL) or any(o.section == overlay.section for o in self.overlays):
                raise ValueError("overlay %s: its section %r is missing or taken" % (overlay.__name__, overlay.section))
            self.overlays.append(overlay(mine.pop(overlay.section, None) or {}))
        mine.pop(API_URL, None)
        self.untouched = mine   # sections of families this module does not install

    def overlay(self, section):
        found = [o for o in self.overlays if o.section == section]
        if not found:
            raise RuntimeError("check mode cannot predict across tasks for %r: this module installs no overlay of it"
                               % section)
        return found[0]

    def dump(self):
        """Every Engine's record, this one's updated (left out when it predicts nothing)."""
        out = list(self.others)
        mine = dict(self.untouched)
        mine.update((o.section, o.dump()) for o in self.overlays)
        mine = dict((k, v) for k, v in mine.items() if v)
        if mine:
            out.append(dict(mine, api_url=self.key))
        return out

    def record(self, plan, after):
        """Adds what ``plan`` does, each action to the overlay its kind names (``after``: the world it predicts)."""
        used = []
        for action in plan.objects():   # bookkeeping (a marker) is no object a later task reads
            overlay = self.overlay(action.kind.recorded_as)
            overlay.record(action, after)
            if overlay not in used:
                used.append(overlay)
        for overlay in used:
            overlay.recorded()


def record(client, outcome):
    """Adds a check-mode run's plan to the predictions its client carries; nothing for a real run."""
    if isinstance(client, PredictedEngine):
        client.predictions.record(outcome.plan, outcome.after)


class PredictedEngine:
    """A read-only view of the Engine with the predictions laid over every answer.

    A read an installed overlay names goes to it; the core resources and tags are answered here from
    every overlay's contribution; everything else passes to the real client. Writes are refused: this
    view exists only in check mode."""

    def __init__(self, client, predictions):
        self._client = client
        self.predictions = predictions
        self._reads = {}
        for overlay in predictions.overlays:
            overlay.attach(client, self)
            for name in overlay.reads:
                if name in self._reads:
                    raise ValueError("two overlays answer %s" % name)
                self._reads[name] = getattr(overlay, name)

    def __getattr__(self, name):
        reads = self.__dict__.get("_reads") or {}
        if name in reads:
            return reads[name]
        if name in WRITES:
            return self._refuse
        if "_client" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self._client, name)

    def _refuse(self, *args, **kwargs):
        raise RuntimeError("check mode must not write")

    def request(self, method, path, **kwargs):
        if method != "GET":
            raise RuntimeError("check mode must not write (%s %s)" % (method, path))
        for overlay in self.predictions.overlays:
            if overlay.answers(path):
                return overlay.get(path, **kwargs)
        return self._client.request(method, path, **kwargs)

    # ---- core resources and tags: every family's contribution ------------------------------------
    def _gone(self, ident):
        return any(o.gone(ident) for o in self.predictions.overlays)

    def resources_by_tag(self, tag):
        out = [r for r in self._client.resources_by_tag(tag) if not self._gone(r["identifier"])]
        seen = set(r["identifier"] for r in out)
        for overlay in self.predictions.overlays:
            for ident, name in overlay.tagged(tag):
                if ident not in seen:
                    seen.add(ident)
                    out.append({"identifier": ident, "name": name})
        return out

    def resource_get(self, ident):
        ident = Placeholder.parse(ident)   # a later task may name a predicted object by its placeholder text
        if self._gone(ident):
            raise not_found("resource", ident)
        if is_placeholder(ident):
            for overlay in self.predictions.overlays:
                found = overlay.resource(ident)
                if found is not None:
                    return found
            raise not_found("resource", ident)
        resource = self._client.resource_get(ident)
        extra = set()
        for overlay in self.predictions.overlays:
            extra.update(overlay.tags_of(ident))
        if extra - set(tag_names(resource)):
            resource = dict(resource, tags=[{"name": t} for t in sorted(set(tag_names(resource)) | extra)])
        return resource

    def resource_get_listed(self, idents):
        """As the client's (None for what is gone), through this view's ``resource_get``: the client's own
        would read past the predictions."""
        return self._client.map(gone_as_none(self.resource_get), idents)

    def resource_tags(self, ident):
        return tag_names(self.resource_get(ident))
