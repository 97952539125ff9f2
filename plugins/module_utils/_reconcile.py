# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

"""observe -> plan -> (check mode: predict | apply -> wait -> observe and plan again).

A plan is data: ordered actions, each with its object, the fields that differ and a reason.
Check mode predicts the outcome from the plan; a real run executes the same plan, so the two can
never disagree. Every module of the collection runs through ``Reconciler.run``.
"""

import copy
import time

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine_errors import (
    ConflictError, EngineConnectionError, ServerError)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._objects import DELETE_ORDER, DEPENDENCY_ORDER, KINDS
from ansible_collections.anxcloud.lbaas.plugins.module_utils._wait import Target, Waiter

CREATE, UPDATE, DELETE, REDEPLOY, TAG = "create", "update", "delete", "redeploy", "tag"
PREDICTED_STATE = {CREATE: "NewlyCreated", UPDATE: "Updating", REDEPLOY: "Updating"}


def placeholder(kind, name, where=None):
    """The readable identifier check mode shows for an object that does not exist yet; ``where``
    (a load balancer) keeps the same name on two load balancers apart."""
    return "(new %s %s%s)" % (kind, name, " on %s" % where if where else "")


def is_placeholder(value):
    return isinstance(value, str) and value.startswith("(new ")


class Action(object):
    """One step of a plan. ``obj`` is the flat object: desired for create, observed otherwise."""

    def __init__(self, op, kind, obj, changes=None, reason="", tags=()):
        self.op = op
        self.kind = KINDS[kind] if isinstance(kind, str) else kind
        self.obj = obj
        self.changes = changes or {}
        self.reason = reason
        self.tags = list(tags)

    @property
    def id(self):
        return self.obj["id"]

    def to_dict(self):
        return {
            "action": self.op,
            "type": self.kind.name,
            "name": self.obj.get("name"),
            "id": self.id,
            "changes": dict((f, {"before": b, "after": a}) for f, (b, a) in sorted(self.changes.items())),
            "tags": list(self.tags),
            "reason": self.reason,
        }

    def __repr__(self):
        return "<%s %s %s>" % (self.op, self.kind.name, self.obj.get("name"))


class Plan(list):
    """Ordered actions; ``waits`` are existing objects still deploying that a run waits for."""

    def __init__(self, actions=(), waits=()):
        super(Plan, self).__init__(actions)
        self.waits = list(waits)

    def to_list(self):
        return [a.to_dict() for a in self]

    def ordered(self):
        """Deletes first, children before parents; then creates/updates, parents before children."""
        rank = dict((k, i) for i, k in enumerate(DELETE_ORDER))
        deps = dict((k, i) for i, k in enumerate(DEPENDENCY_ORDER))
        deletes = sorted((a for a in self if a.op == DELETE), key=lambda a: rank[a.kind.name])
        rest = sorted((a for a in self if a.op != DELETE), key=lambda a: deps[a.kind.name])
        return Plan(deletes + rest, self.waits)

    def predict(self, world):
        """The objects (``{id: flat object}``) as they will be after the plan ran."""
        out = copy.deepcopy(world)
        for action in self:
            if action.op == DELETE:
                out.pop(action.id, None)
                continue
            obj = out.setdefault(action.id, copy.deepcopy(action.obj))
            for field, (_before, after) in action.changes.items():
                obj[field] = after
            if action.op in PREDICTED_STATE:
                obj["state"] = {"id": None, "title": PREDICTED_STATE[action.op], "type": None}
            obj.setdefault("tags", [])
            obj["tags"] = sorted(set(obj["tags"]) | set(action.tags))
        return out


# Delete failures worth another pass: the Engine may refuse a delete while a child's removal is
# still being processed (409), or fail transiently after the client's own retries.
RETRY_DELETE = (ConflictError, ServerError, EngineConnectionError)


class Applier(object):
    """Executes a plan against the Engine. Same-kind steps of one wave run concurrently.

    Deletes run in bounded, paced passes (RECONCILIATION.md F2, fixed): the deletes that failed
    with a retryable error get another pass after a growing pause, at most ``delete_passes``
    passes, then the run fails naming what is left. Any other error, a 429 above all, ends the run
    at once. (The cloud controller's "stop when a pass made no progress" is replaced by the bound
    and the pause: a lone delete refused while its children go away deserves a second try.)
    """

    def __init__(self, client, waiter, delete_passes=3, delete_pause=1.0, sleep=time.sleep):
        self.client = client
        self.waiter = waiter
        self.delete_passes = delete_passes
        self.delete_pause = delete_pause
        self.sleep = sleep
        self.ids = {}           # placeholder -> identifier of the object created for it
        self.objects = {}       # identifier -> Engine response of the last write

    def _resolve(self, kind, obj):
        body = dict(obj)
        for field in [kind.parent] + list(kind.links):
            if field and is_placeholder(body.get(field)):
                body[field] = self.ids[body[field]]
        return body

    def _one(self, action):
        kind = action.kind
        client = self.client
        if action.op == CREATE:
            body = kind.to_engine(self._resolve(kind, action.obj))
            created = client.lbaas_create(kind.name, body)
            ident = created["identifier"]
            self.ids[action.id] = ident
            self.objects[ident] = created
            for tag in action.tags:
                client.tag_add(ident, tag)
            return Target(kind.name, ident, action.obj["name"])
        if action.op == UPDATE:
            body = self._resolve(kind, dict((f, a) for f, (_b, a) in action.changes.items() if f != "tags"))
            if body:
                self.objects[action.id] = client.lbaas_update(kind.name, action.id, body)
            for tag in action.tags:
                client.tag_add(action.id, tag)
            return Target(kind.name, action.id, action.obj["name"])
        if action.op == TAG:
            for tag in action.tags:
                client.tag_add(action.id, tag)
            return None
        if action.op == REDEPLOY:
            self.waiter.redeploy(Target(kind.name, action.id, action.obj["name"]))
            return Target(kind.name, action.id, action.obj["name"])
        if action.op == DELETE:
            client.lbaas_delete(kind.name, action.id)
            return Target(kind.name, action.id, action.obj["name"], expect="gone")
        raise ValueError("unknown action %s" % action.op)

    def _attempt(self, action):
        try:
            return self._one(action), None
        except RETRY_DELETE as exc:
            return None, exc

    def _deletes(self, wave):
        targets = []
        for number in range(1, self.delete_passes + 1):
            results = self.client.map(self._attempt, wave)
            targets.extend(t for t, _exc in results if t is not None)
            failed = [(a, exc) for a, (_t, exc) in zip(wave, results) if exc is not None]
            if not failed:
                return targets
            if number == self.delete_passes:
                raise Failure("could not delete %s after %d pass(es): %s" % (
                    ", ".join("%s '%s' (%s)" % (a.kind.name, a.obj.get("name"), a.id) for a, _exc in failed), number,
                    "; ".join(str(exc) for _a, exc in failed)),
                    failed_objects=[dict(type=a.kind.name, id=a.id, name=a.obj.get("name"), error=str(exc))
                                    for a, exc in failed])
            self.sleep(self.delete_pause * number)
            wave = [a for a, _exc in failed]
        return targets   # pragma: no cover - the loop returns or raises

    def apply(self, plan):
        """Runs the actions wave by wave (a wave: consecutive actions of one op and kind)."""
        targets = []
        wave = []
        for action in list(plan) + [None]:
            if wave and (action is None or (action.op, action.kind) != (wave[0].op, wave[0].kind)):
                run = self._deletes if wave[0].op == DELETE else lambda w: self.client.map(self._one, w)
                targets.extend(t for t in run(wave) if t is not None)
                wave = []
            if action is not None:
                wave.append(action)
        return targets


class Outcome(object):
    def __init__(self, plan, before, after, changed, rounds):
        self.plan = plan            # the first plan: what this task decided to do and why
        self.before = before        # {id: flat object} as observed first
        self.after = after          # predicted (check mode, no wait) or observed again (after a wait)
        self.changed = changed
        self.rounds = rounds


class Reconciler(object):
    """observe -> plan -> predict (check mode) | apply -> wait -> observe -> plan ... until converged.

    ``observe()`` returns a state object with a ``world`` attribute (``{id: flat object}``);
    ``planner(state)`` returns a ``Plan``. After every wait the plan is computed again from fresh
    state, so objects that changed meanwhile are handled in the same run (bounded by ``max_rounds``).
    ``before_apply(state, plan)`` runs once before the first write of a real run (the service
    module takes its leases there); when it answers True the world may have changed meanwhile, so
    the run observes and plans again before writing.
    """

    def __init__(self, client, check_mode, wait=True, wait_timeout=600, max_rounds=3, waiter=None, before_apply=None):
        self.client = client
        self.before_apply = before_apply
        self.check_mode = check_mode
        self.wait = wait
        self.max_rounds = max_rounds
        self.waiter = waiter or Waiter(client, wait_timeout)

    def run(self, observe, planner):
        state = observe()
        plan = planner(state).ordered()
        first_plan, before = plan, state.world
        if self.check_mode:
            return Outcome(first_plan, before, plan.predict(before), bool(plan), 0)
        if not plan and not plan.waits:
            return Outcome(first_plan, before, before, False, 0)   # in sync: no second observation
        if plan and self.before_apply is not None and self.before_apply(state, plan):
            state = observe()
            plan = planner(state).ordered()
            first_plan, before = plan, state.world
            if not plan and not plan.waits:
                return Outcome(first_plan, before, before, False, 0)
        rounds = 0
        predicted = before
        while True:
            applier = Applier(self.client, self.waiter)
            targets = applier.apply(plan)
            predicted = plan.predict(predicted)
            if not self.wait:
                return Outcome(first_plan, before, self._as_written(predicted, applier), bool(first_plan), rounds)
            self.waiter.wait(targets + [Target(*t) for t in plan.waits])
            rounds += 1
            state = observe()
            if not plan:
                break
            plan = planner(state).ordered()
            if not plan:
                break
            if rounds >= self.max_rounds:
                raise Failure("the objects did not converge after %d rounds; still planned: %s"
                              % (rounds, ", ".join(repr(a) for a in plan)), plan=plan.to_list())
        return Outcome(first_plan, before, state.world, bool(first_plan), rounds)

    @staticmethod
    def _as_written(predicted, applier):
        """Without a wait there is no second observation: report what the Engine answered to our writes."""
        out = {}
        for ref, obj in predicted.items():
            ident = applier.ids.get(ref, ref)
            if ident in applier.objects:
                written = KINDS[obj["kind"]].from_engine(applier.objects[ident])
                written["tags"] = obj.get("tags", [])
                obj = written
            out[ident] = obj
        return out
