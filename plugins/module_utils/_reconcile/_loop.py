# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""observe -> plan -> (check mode: predict | apply -> wait -> observe and plan again).

A plan is data: ordered actions, each with its object, the fields that differ and a reason.
Check mode predicts the outcome from the plan; a real run executes the same plan, so the two can
never disagree. Every module of the collection runs through ``Reconciler.run``.
"""

import copy
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import (
    ConflictError, EngineConnectionError, EngineError, NotFoundError, RateLimitedError, ServerError)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import DELETE_ORDER, DEPENDENCY_ORDER, KINDS
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Target, Waiter

CREATE, UPDATE, DELETE, REDEPLOY, TAG = "create", "update", "delete", "redeploy", "tag"
# Deletes by level: rules (they name ACLs), then the other children (ACLs, binds, servers) together, then
# frontends (they point at backends), then backends.
DELETE_LEVELS = (("rule",), ("acl", "bind", "server"), ("frontend",), ("backend",))
PREDICTED_STATE = {CREATE: "NewlyCreated", UPDATE: "Updating", REDEPLOY: "Updating"}


def placeholder(kind, name, where=None):
    """The readable identifier check mode shows for an object that does not exist yet; ``where``
    (a load balancer) keeps the same name on two load balancers apart."""
    return "(new %s %s%s)" % (kind, name, " on %s" % where if where else "")


def is_placeholder(value):
    return isinstance(value, str) and value.startswith("(new ")


class Action:
    """One step of a plan. ``obj`` is the flat object: desired for create, observed otherwise."""

    def __init__(self, op, kind, obj, changes=None, reason="", tags=(), lb=None):
        self.op = op
        self.kind = KINDS[kind] if isinstance(kind, str) else kind
        self.obj = obj
        self.changes = changes or {}
        self.reason = reason
        self.tags = list(tags)
        self.lb = lb              # the load balancer the object is on ({id, name}), when known
        self.premise = None       # the object whose ownership this write relies on (its own tag or its parent's)
        self.after = None         # another action that must have run first (a move creates before it deletes)

    @property
    def id(self):
        return self.obj["id"]

    def to_dict(self):
        return {
            "load_balancer": (self.lb or {}).get("name"),
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
        super().__init__(actions)
        self.waits = list(waits)

    def to_list(self):
        return [a.to_dict() for a in self]

    def ordered(self):
        """Deletes first, children before parents; then creates/updates, parents before children; last
        the deletes that must wait for a create (a move: the new object exists before the old one goes)."""
        rank = dict((k, i) for i, k in enumerate(DELETE_ORDER))
        deps = dict((k, i) for i, k in enumerate(DEPENDENCY_ORDER))
        deletes = sorted((a for a in self if a.op == DELETE and a.after is None), key=lambda a: rank[a.kind.name])
        rest = sorted((a for a in self if a.op != DELETE), key=lambda a: deps[a.kind.name])
        late = sorted((a for a in self if a.op == DELETE and a.after is not None), key=lambda a: rank[a.kind.name])
        return Plan(deletes + rest + late, self.waits)

    def summary(self, lbs=()):
        """Terraform's plan line per load balancer: "lb1: 3 to add, 1 to change, 0 to destroy".
        Tag adoptions and redeploys are changes; ``lbs`` lists load balancers to show even when untouched."""
        counts = {}
        order = [lb.get("name") for lb in lbs]
        for action in self:
            name = (action.lb or {}).get("name")
            if name not in order:
                order.append(name)
            slot = counts.setdefault(name, [0, 0, 0])
            slot[{CREATE: 0, DELETE: 2}.get(action.op, 1)] += 1
        return "; ".join("%s: %d to add, %d to change, %d to destroy" % ((name or "-",) + tuple(counts.get(name, (0, 0, 0))))
                         for name in order)

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
            obj["planned"] = action.op
            obj.setdefault("tags", [])
            obj["tags"] = sorted(set(obj["tags"]) | set(action.tags))
        return out


# Delete failures worth another pass: the Engine may refuse a delete while a child's removal is
# still being processed (409), or fail in a way that leaves the outcome open (5xx, a lost answer).
RETRY_DELETE = (ConflictError, ServerError, EngineConnectionError)


def may_have_landed(exc):
    """Whether a failed write may have reached the Engine: then only a new observation can tell."""
    flag = getattr(exc, "may_have_landed", None)
    if flag is not None:
        return bool(flag)
    return isinstance(exc, (ServerError, EngineConnectionError))


class Interrupted(Exception):
    """A round of writes stopped on an outcome only a new observation can settle: a write that may
    have landed, or a create whose tag write failed. Never retried blindly: the run observes again
    and plans from what the Engine then holds (an untagged object of ours is adopted, not duplicated)."""

    def __init__(self, failures):
        self.failures = failures   # [(action, exception)]
        super().__init__("; ".join("%s %s '%s': %s" % (a.op, a.kind.name, a.obj.get("name"), e)
                                   for a, e in failures))


class Applier:
    """Executes a plan against the Engine, each write as soon as what it depends on exists.

    Writes are those of go-anxcloud's generic client: POST of the new object, PUT of the whole object
    (the client adds ``"state": "0"``, which is also how a redeploy is asked for), DELETE. A write that
    fails in a way that may have landed ends the round (``Interrupted``) once the writes already
    under way are done; a definite refusal (400, 403, 422, 429 ...) fails the run.

    Order: the deletes first, children before parents (binds and servers together, then frontends,
    then backends); then every create, update, adoption and redeploy, each one started as soon as
    the object it links to exists (a server when its backend's create returned, not when every
    frontend or bind did); last the deletes that wait for a create (a move). Tag writes go one at a
    time in their own lane (the cloud controller's ENGSUP-5902 lock), so creates and reads go on
    while they queue; the round ends only when the lane is empty.

    Deletes run in bounded, paced passes (the cloud controller's destroy loop retries at once, without bound): a delete that failed with a
    retryable error is looked at again after a growing pause (gone or being deleted: done), and only
    then sent again, at most ``delete_passes`` passes; then the run fails naming what is left.
    """

    confirms_by_wait = True   # its wait reads every written object back: Reconciler.confirmed_world

    def __init__(self, client, waiter, delete_passes=3, delete_pause=1.0, sleep=time.sleep):
        self.client = client
        self.waiter = waiter
        self.delete_passes = delete_passes
        self.delete_pause = delete_pause
        self.sleep = sleep
        self.ids = {}           # placeholder -> identifier of the object created for it
        self.objects = {}       # identifier -> Engine response of the last write
        self._lane = None       # the tag lane: one thread, tag writes in the order they were asked for
        self._tagging = []      # (action, future) of the tag writes asked for

    def _resolve(self, kind, obj):
        body = dict(obj)
        for field in [kind.parent] + list(kind.links):
            if field and is_placeholder(body.get(field)):
                if body[field] not in self.ids:
                    raise Interrupted([])   # its parent's create did not complete: next round
                body[field] = self.ids[body[field]]
        return body

    def _tag(self, action, ident):
        """Queues the action's tag writes in the tag lane; the outcome is collected by ``_settle_tags``."""
        if not action.tags:
            return
        if self._lane is None:
            self._lane = ThreadPoolExecutor(max_workers=1)

        def write():
            for tag in action.tags:
                self.client.tag_add(ident, tag)
        self._tagging.append((action, self._lane.submit(write)))

    def _settle_tags(self):
        """Waits for the tag lane; a failed tag write of a created object interrupts the round (the next
        observation adopts the object by containment or exact name); a 429 ends the run."""
        failures = []
        for action, future in self._tagging:
            exc = future.exception()
            if exc is None:
                continue
            if isinstance(exc, RateLimitedError) or not isinstance(exc, EngineError):
                raise exc
            failures.append((action, exc))
        self._tagging = []
        if self._lane is not None:
            self._lane.shutdown(wait=True)
            self._lane = None
        if failures:
            raise Interrupted(failures)

    def _one(self, action):
        kind = action.kind
        client = self.client
        target = Target(kind.name, action.id, action.obj["name"])
        if action.op == CREATE:
            body = kind.to_engine(self._resolve(kind, action.obj))
            created = client.lbaas_create(kind.name, body)
            ident = created["identifier"]
            self.ids[action.id] = ident
            self.objects[ident] = created
            self._tag(action, ident)
            return Target(kind.name, ident, action.obj["name"])
        if action.op == UPDATE:
            changes = self._resolve(kind, dict((f, a) for f, (_b, a) in action.changes.items()))
            self.objects[action.id] = client.lbaas_update(kind.name, action.id, kind.update_body(action.obj, changes))
            self._tag(action, action.id)
            return target
        if action.op == TAG:
            # An adopted object is waited for like a created one: it may be in DeploymentError or still deploying.
            self._tag(action, action.id)
            return target
        if action.op == REDEPLOY:
            self.waiter.redeploy(target, action.obj)
            return target
        if action.op == DELETE:
            client.lbaas_delete(kind.name, action.id)
            return Target(kind.name, action.id, action.obj["name"], expect="gone")
        raise ValueError("unknown action %s" % action.op)

    def _attempt(self, action):
        """(target, None), or (None, error) for a failure a later step settles; any other error, a 429
        above all, propagates at once and ends the run."""
        try:
            return self._one(action), None
        except Interrupted as exc:
            return None, exc
        except EngineError as exc:
            if isinstance(exc, RateLimitedError):
                raise
            if isinstance(exc, RETRY_DELETE) if action.op == DELETE else may_have_landed(exc):
                return None, exc
            raise

    def _by_dependency(self, actions):
        """Runs creates, updates, adoptions and redeploys, each as soon as the create of every
        placeholder it names has returned; open outcomes interrupt the round once all that could run ran."""
        made_by = dict((a.id, a) for a in actions if a.op == CREATE)
        waiting = {}      # action -> how many creates it still waits for
        after = {}        # create -> actions waiting for it
        for action in actions:
            needs = set(made_by[v] for v in _placeholders(action) if v in made_by and made_by[v] is not action)
            waiting[action] = len(needs)
            for need in needs:
                after.setdefault(need, []).append(action)
        results = {}
        lock = threading.Lock()

        def run(action):
            target, exc = self._attempt(action)
            results[action] = (target, exc)
            ready = []
            if exc is None:
                with lock:
                    for child in after.get(action, []):
                        waiting[child] -= 1
                        if waiting[child] == 0:
                            ready.append(child)
            # The dependents start now, on the client's shared pool (a nested map).
            self.client.map(run, ready)

        self.client.map(run, [a for a in actions if waiting[a] == 0])
        targets = [results[a][0] for a in actions if a in results and results[a][0] is not None]
        failures = [(a, results[a][1]) for a in actions if a in results and results[a][1] is not None]
        # A child never started because its parent's create did not complete says nothing of its own.
        told = [(a, exc) for a, exc in failures if not (isinstance(exc, Interrupted) and not exc.failures)]
        skipped = [a for a in actions if a not in results]
        if failures or skipped:
            raise Interrupted(told or failures)
        return targets

    def _still_there(self, action):
        """After a delete failed: is the object still there and not being deleted already?"""
        try:
            obj = self.client.lbaas_get(action.kind.name, action.id)
        except NotFoundError:
            return False
        return obj is not None

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
            # A delete whose answer was lost may have landed: a new look decides, not a blind resend.
            wave = [a for a, _exc in failed if self._still_there(a)]
            if not wave:
                return targets
        return targets   # pragma: no cover - the loop returns or raises

    def _delete_levels(self, deletes):
        """Deletes by level: binds and servers, then frontends, then backends (children before parents)."""
        targets = []
        for level in DELETE_LEVELS:
            wave = [a for a in deletes if a.kind.name in level]
            if wave:
                targets.extend(t for t in self._deletes(wave) if t is not None)
        return targets

    def apply(self, plan, wait=None):
        """Runs the plan (see the class); ``wait(targets)``, when given, is called once every write but
        the queued tag writes has returned, so the wait's polls overlap the tag lane."""
        early = [a for a in plan if a.op == DELETE and a.after is None]
        rest = [a for a in plan if a.op != DELETE]
        late = [a for a in plan if a.op == DELETE and a.after is not None]
        try:
            targets = self._delete_levels(early)
            targets += self._by_dependency(rest)
            targets += self._delete_levels(late)
            if wait is not None:
                wait(targets)
        except BaseException:
            self._drain()
            raise
        self._settle_tags()
        return targets

    def _drain(self):
        """Lets the tag writes already asked for end before the error travels on (nothing is left
        writing in the background); their own failures are beside the point then."""
        for _action, future in self._tagging:
            future.exception()
        self._tagging = []
        if self._lane is not None:
            self._lane.shutdown(wait=True)
            self._lane = None


def _placeholders(action):
    """The placeholders an action's body will name: its parent and links, and changed links."""
    found = []
    kind = action.kind
    for field in [kind.parent] + list(kind.links):
        if field and is_placeholder(action.obj.get(field)):
            found.append(action.obj[field])
        if field and field in action.changes and is_placeholder(action.changes[field][1]):
            found.append(action.changes[field][1])
    return found


class Outcome:
    def __init__(self, plan, before, after, changed, rounds, interruptions=()):
        self.plan = plan            # the first plan: what this task decided to do and why
        self.before = before        # {id: flat object} as observed first
        self.after = after          # predicted (check mode, no wait) or observed again (after a wait)
        self.changed = changed
        self.rounds = rounds
        self.interruptions = list(interruptions)   # texts of rounds that ended on an open outcome


class Reconciler:
    """observe -> plan -> predict (check mode) | apply -> wait -> (observe -> plan ...) until converged.

    ``observe()`` returns a state object with a ``world`` attribute (``{id: flat object}``);
    ``planner(state)`` returns a ``Plan``. A round that ends on an open outcome (``Interrupted``) is
    followed by a new observation, never by a blind retry (at most ``max_interruptions`` such rounds,
    bounded apart from the wait rounds). ``before_apply(state, plan)`` runs once
    before the first write of a real run (the service module takes its leases there); when it
    answers True the world may have changed meanwhile, so the run observes and plans again before
    writing.

    After the wait, the run observes and plans again only when it cannot know the outcome: the wait
    read every object it wrote (and every object it waited for) back from the Engine, so when each of
    them ended deployed (or gone) with exactly the fields the plan gave it, the state after the run is
    the state before with those reads in place, and a new observation would only repeat them
    (``confirmed_world``). It still observes again when a write's outcome is open (an interrupted
    round: a write that may have landed, a failed tag write), or when an object read back differs
    from the plan (the Engine stored something else; planning again settles it, bounded by
    ``max_rounds``). Objects the run did not write are as observed: the lease keeps other runs of
    the collection away meanwhile. An applier that does not say it ``confirms_by_wait`` (IPAM
    addresses, gc) gets the second observation as before.
    ``applier(client, waiter)`` makes the object that executes a plan (default ``Applier``, LBaaS
    objects); IPAM addresses and gc bring their own.
    """

    def __init__(self, client, check_mode, wait=True, wait_timeout=600, max_rounds=3, waiter=None, before_apply=None,
                 max_interruptions=4, applier=None):
        self.client = client
        self.max_interruptions = max_interruptions   # rounds of writes ended on open outcomes, bounded apart
        self.applier = applier or Applier
        self.before_apply = before_apply
        self.check_mode = check_mode
        self.wait = wait
        self.max_rounds = max_rounds
        self.waiter = waiter or Waiter(client, wait_timeout)
        self.observations = 0   # how many times this run looked at the Engine (a no-op and most writing runs: once)
        self._written_before = None   # the client's count of writes when the first round began

    def run(self, observe, planner):
        def look():
            self.observations += 1
            return observe()
        state = look()
        plan = planner(state).ordered()
        first_plan, before = plan, state.world
        if self.check_mode:
            return Outcome(first_plan, before, plan.predict(before), bool(plan), 0)
        if not plan and not plan.waits:
            return Outcome(first_plan, before, before, False, 0)   # in sync: no second observation
        if plan and self.before_apply is not None and self.before_apply(state, plan):
            state = look()
            plan = planner(state).ordered()
            first_plan, before = plan, state.world
            if not plan and not plan.waits:
                return Outcome(first_plan, before, before, False, 0)
        self._written_before = self._writes()
        try:
            return self._apply_rounds(look, planner, state, plan, first_plan, before)
        except (Failure, EngineError) as exc:
            if self.wrote:
                # Something was written before the failure: the task changed the Engine, and says what it was doing.
                exc.partial_result = dict(changed=True, plan=first_plan.to_list())
            raise

    def _writes(self):
        """The client's count of writes that landed or may have (a write the Engine refused changed nothing)."""
        landed = getattr(self.client, "writes_landed", None)
        return landed if isinstance(landed, int) else 0

    @property
    def wrote(self):
        """Whether a write of this run may have changed the Engine since its first round began (leases taken
        before it do not count)."""
        return self._written_before is not None and self._writes() > self._written_before

    def _apply_rounds(self, look, planner, state, plan, first_plan, before):
        rounds = 0
        interruptions = []
        while True:
            applier = self.applier(self.client, self.waiter)
            waits = [Target(*t) for t in plan.waits]
            confirms = getattr(applier, "confirms_by_wait", False)
            try:
                if confirms:   # the wait overlaps the tag lane
                    targets = applier.apply(plan, wait=(lambda done: self.waiter.wait(done + waits)) if self.wait else None)
                else:
                    targets = applier.apply(plan)
                    if self.wait:
                        self.waiter.wait(targets + waits)
            except Interrupted as exc:
                interruptions.append(str(exc))
                if len(interruptions) >= self.max_interruptions:
                    raise Failure("the run could not settle the Engine's answers after %d rounds: %s"
                                  % (len(interruptions), " | ".join(interruptions)), plan=first_plan.to_list())
                state = look()
                plan = planner(state).ordered()
                if not plan and not plan.waits:
                    break
                continue
            predicted = plan.predict(state.world)
            if not self.wait:
                return Outcome(first_plan, before, self._as_written(predicted, applier), bool(first_plan), rounds,
                               interruptions)
            rounds += 1
            after = self.confirmed_world(predicted, applier, targets + waits) if confirms else None
            if after is not None:
                return Outcome(first_plan, before, after, bool(first_plan), rounds, interruptions)
            state = look()
            if not plan:
                break
            plan = planner(state).ordered()
            if not plan:
                break
            if rounds >= self.max_rounds:
                raise Failure("the objects did not converge after %d rounds; still planned: %s"
                              % (rounds, ", ".join(repr(a) for a in plan)), plan=plan.to_list())
        return Outcome(first_plan, before, state.world, bool(first_plan), rounds, interruptions)

    def confirmed_world(self, predicted, applier, targets):
        """The state after the run from the wait's own reads, or None when they do not confirm the plan.

        Every target must have been read by its last poll: deployed with exactly the predicted fields
        (links of new parents resolved to their identifiers), or gone."""
        seen = self.waiter.seen
        out = {}
        for ref, obj in predicted.items():
            ident = applier.ids.get(ref, ref)
            if is_placeholder(ident):
                return None   # a create that never returned: only a new look can tell
            out[ident] = obj
        for target in targets:
            if target.id not in seen:
                return None
            read = seen[target.id]
            if target.expect == "gone":
                if read is not None:
                    return None
                out.pop(target.id, None)
                continue
            if read is None or target.id not in out:
                return None
            expected = out[target.id]
            flat = KINDS[target.kind].from_engine(read)
            kind = KINDS[target.kind]
            for field in [kind.parent] + list(kind.fields):
                want = expected.get(field)
                want = applier.ids.get(want, want) if is_placeholder(want) else want
                if field and flat.get(field) != want:
                    return None   # the Engine holds something else than planned: observe and plan again
            for key in ("lb", "tags", "listed"):
                if key in expected:
                    flat[key] = expected[key]
            flat["confirmed"] = True
            out[target.id] = flat
        for obj in out.values():
            obj.pop("planned", None)
            for field in [KINDS[obj["kind"]].parent] + list(KINDS[obj["kind"]].links):
                if field and is_placeholder(obj.get(field)):
                    obj[field] = applier.ids.get(obj[field], obj[field])
        return out

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
