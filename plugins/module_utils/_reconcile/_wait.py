# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Waiting for the Engine's asynchronous deployments (docs/engine-api-facts.md, "Deployment states", "Asynchronous writes")."""

import time

from .._engine._errors import NotFoundError
from .._model._failure import Failure
from .._model._kinds import state_class, state_of
from .._model._kind import kind_named


class Target:
    """An object to wait for: until it is deployed (``expect='ok'``) or gone (``expect='gone'``).
    ``kind``: a ``_kind.Kind`` or its name."""

    def __init__(self, kind, ident, name, expect="ok"):
        self.spec = kind_named(kind) if isinstance(kind, str) else kind
        self.kind = self.spec.name
        self.id = ident
        self.name = name
        self.expect = expect

    def label(self):
        return "%s '%s' (%s)" % (self.kind, self.name, self.id)


class Waiter:
    """Polls with capped exponential backoff until every target is done or ``timeout`` is spent.

    A target in DeploymentError gets one redeploy request (PUT state "0", the way the Engine
    recovers failed objects); failing again fails the task naming the object, rather than looping
    delete/create the way the cloud controller once did.
    """

    def __init__(self, client, timeout, initial=0.5, factor=1.5, cap=10.0, sleep=time.sleep, clock=time.monotonic):
        self.client = client
        self.timeout = timeout
        self.initial = initial
        self.factor = factor
        self.cap = cap
        self.sleep = sleep
        self.clock = clock
        self.redeployed = set()
        self.polls = 0
        self.seen = {}   # id -> the Engine's answer to the last poll (None: gone), for the state after the run

    def _poll(self, target):
        try:
            obj = target.spec.read(self.client, target.id)
        except NotFoundError:
            obj = None
        self.seen[target.id] = obj
        return obj

    def _done(self, target, obj):
        if target.expect == "gone":
            return obj is None
        if obj is None:
            raise Failure("%s disappeared while waiting for it to be deployed" % target.label())
        state = state_of(obj)
        cls = state_class(state)
        if cls == "ok":
            return True
        if cls == "error":
            if target.id in self.redeployed:
                reason = engine_reason(obj)
                raise Failure("%s failed to deploy (%s) again after a redeploy request: %s"
                              % (target.label(), state["title"], reason or "the Engine gives no reason; its fields: %s"
                                 % _fields(target.spec, obj)),
                              failed_object=dict(type=target.kind, id=target.id, name=target.name, state=state["title"],
                                                 reason=reason))
            self.redeploy(target, target.spec.from_engine(obj))
        return False

    def redeploy(self, target, obj):
        """Asks for a new deployment the way the cloud controller does (updateFailedResources): a PUT of the
        whole object, which carries ``"state": "0"``. ``obj`` is the flat object as last read."""
        self.redeployed.add(target.id)
        target.spec.redeploy(self.client, target.id, obj)

    def wait(self, targets):
        pending = list(targets)
        deadline = self.clock() + self.timeout
        delay = self.initial
        while pending:
            self.polls += 1
            objs = self.client.map(self._poll, pending)
            pending = [t for t, obj in zip(pending, objs) if not self._done(t, obj)]
            if not pending:
                return
            remaining = deadline - self.clock()
            if remaining <= 0:
                waiting = ", ".join(t.spec.still_waiting(t.label(), self.seen.get(t.id)) for t in pending)
                raise Failure("timed out after %ds waiting for %s" % (self.timeout, waiting),
                              pending_objects=[dict(type=t.kind, id=t.id, name=t.name, waiting_for=t.expect) for t in pending])
            self.sleep(min(delay, remaining))
            delay = min(delay * self.factor, self.cap)


# Where an Engine answer may explain a failed deployment: the state's own text beside its title, or a
# message on the object. The documented state is only {id, title, type} (docs/engine-api-facts.md), so any
# of these is shown when present and the object's fields otherwise.
REASON_KEYS = ("reason", "message", "messages", "error", "description", "details")


def engine_reason(obj):
    """The Engine's own explanation in an answer, as text, or None."""
    state = obj.get("state") if isinstance(obj.get("state"), dict) else {}
    found = []
    for source in (state, obj):
        for key in REASON_KEYS:
            value = source.get(key)
            if isinstance(value, dict):
                value = value.get("message") or value.get("reason")
            if isinstance(value, list):
                value = "; ".join(str(v) for v in value if v)
            if value and str(value) not in found:
                found.append(str(value))
    return "; ".join(found) or None


def _fields(kind, obj):
    flat = kind.from_engine(obj)
    return ", ".join("%s=%s" % (f, flat[f]) for f in kind.fields if flat.get(f) is not None) or "none"
