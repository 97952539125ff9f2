# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Executing a plan: one ``Applier`` for every kind, each kind's writes through its ``Operations``.

Only a real run writes: check mode predicts from the plan (``_plan.Plan.predict``) and never applies it.
"""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from .._engine._errors import (
    ConflictError, EngineConnectionError, EngineError, NotFoundError, RateLimitedError, ServerError)
from .._model._failure import Failure
from .._model._kind import (
    AFTER_WAIT, AFTER_WRITES, CREATE, DELETE, REDEPLOY, TAG, UPDATE, Operations)
from ._plan import is_placeholder, placeholders_of
from ._wait import Target

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


class EngineOperations(Operations):
    """Objects written with go-anxcloud's generic client (LBaaS objects, and any kind of that API):
    POST of the new object, PUT of the whole object (the client adds ``"state": "0"``, which is also
    how a redeploy is asked for), DELETE. Each write deploys asynchronously, and the wait reads it back."""

    confirms_by_wait = True

    def __init__(self, client):
        self.client = client

    def create(self, applier, action, body):
        created = self.client.lbaas_create(action.kind.name, body)
        return created["identifier"], created

    def update(self, applier, action, body):
        return self.client.lbaas_update(action.kind.name, action.id, body)

    def tag(self, applier, action, ident):
        applier.queue_tags(action, ident)

    def redeploy(self, applier, action):
        applier.waiter.redeploy(self.target(action, action.id), action.obj)

    def delete(self, applier, action):
        self.client.lbaas_delete(action.kind.name, action.id)

    def delete_all(self, applier, actions):
        return applier.paced_deletes(actions)

    def still_there(self, action):
        """After a delete failed: is the object still there and not being deleted already?"""
        try:
            obj = self.client.lbaas_get(action.kind.name, action.id)
        except NotFoundError:
            return False
        return obj is not None

    def target(self, action, ident, expect="ok"):
        return Target(action.kind, ident, action.obj["name"], expect=expect)

    def settles_later(self, action, exc):
        return isinstance(exc, RETRY_DELETE) if action.effect == DELETE else may_have_landed(exc)


class Applier:
    """Executes a plan against the Engine, each write as soon as what it depends on exists.

    How a write is sent is the kind's ``Operations`` (``operations``: kind name -> operations; a kind
    not named there is written with ``EngineOperations``). A write that fails in a way that may have
    landed ends the round (``Interrupted``) once the writes already under way are done; a definite
    refusal (400, 403, 422, 429 ...) fails the run.

    Order: the deletes first, one ``delete_level`` at a time (binds and servers together, then
    frontends, then backends); then every create, update, adoption and redeploy, each one started as
    soon as the object it links to exists (a server when its backend's create returned, not when
    every frontend or bind did) and the writes it ``needs`` returned (a rule after the ACL it names by
    name); the writes of a ``sequential`` kind one after another in plan order;
    then the deletes that wait for a create (a move). Tag writes go one at a time in their own lane
    (the cloud controller's ENGSUP-5902 lock), so creates and reads go on while they queue; the round
    ends only when the lane is empty. What runs after the other writes, as its kind declares
    (``Kind.runs``, a record of what the plan achieved): an ``AFTER_WRITES`` action (a service's marker) is
    queued in the tag lane once every other write returned, behind the tag writes of its load balancer, and
    runs there, alongside the wait, only if those all succeeded (``_alongside``); an ``AFTER_WAIT`` action
    once the wait read everything back and the lane is empty.

    Deletes run in bounded, paced passes (the cloud controller's destroy loop retries at once, without
    bound): a delete that failed with a retryable error is looked at again after a growing pause (gone
    or being deleted: done), and only then sent again, at most ``delete_passes`` passes; then the run
    fails naming what is left.

    ``isolate(action)``, when given, splits the plan into groups applied one after another, each
    waited for on its own; a group that fails is recorded in ``failed`` (key -> message) and the next
    goes on (gc: owner by owner); a rate limit stops all.
    """

    def __init__(self, client, waiter, delete_passes=3, delete_pause=1.0, sleep=time.sleep, operations=None,
                 isolate=None, failed=None):
        self.client = client
        self.waiter = waiter
        self.delete_passes = delete_passes
        self.delete_pause = delete_pause
        self.sleep = sleep
        self.operations = dict(operations or {})
        self.isolate = isolate
        self.failed = failed if failed is not None else {}
        self.ids = {}           # placeholder -> identifier of the object created for it
        self.objects = {}       # identifier -> Engine response of the last write
        self._lane = None       # the tag lane: one thread, tag writes in the order they were asked for
        self._tagging = []      # (action, future) of the tag writes asked for

    def ops(self, kind):
        if kind.name not in self.operations:
            self.operations[kind.name] = EngineOperations(self.client)
        return self.operations[kind.name]

    def confirms_by_wait(self, plan):
        """The capability the loop asks for: whether the wait after ``plan`` reads back every object it
        writes, so that those reads are the state after the run (every kind's operations say so). An
        isolating applier does not: a group that failed is left as it was, which only a new look shows.
        Bookkeeping (``Kind.bookkeeping``) writes no object of that state: it is not asked."""
        return self.isolate is None and all(self.ops(a.kind).confirms_by_wait for a in plan.objects())

    # ---- writes ----------------------------------------------------------------------------------
    def _resolve(self, kind, obj):
        body = dict(obj)
        for field in kind.references():
            if is_placeholder(body.get(field)):
                if body[field] not in self.ids:
                    raise Interrupted([])   # its parent's create did not complete: next round
                body[field] = self.ids[body[field]]
        return body

    def queue_tags(self, action, ident):
        """Queues the action's tag writes in the tag lane; the outcome is collected by ``_settle_tags``."""
        if not action.tags:
            return

        def write():
            for tag in action.tags:
                self.client.tag_add(ident, tag)
        self._queue(action, write)

    def _queue(self, action, job):
        if self._lane is None:
            self._lane = ThreadPoolExecutor(max_workers=1)
        self._tagging.append((action, self._lane.submit(job)))

    def _alongside(self, actions):
        """The ``AFTER_WRITES`` actions, once every other write of the plan returned: each queued in the tag lane
        behind the tag writes asked for so far, and run there only if those of its load balancer succeeded (the
        lane runs one job at a time: they have all ended by then). So it overlaps the wait; an action whose load
        balancer's tag writes failed is not run (the round is interrupted, ``_settle_tags``)."""
        for action in actions:
            where = (action.lb or {}).get("id")
            before = [f for a, f in self._tagging if (a.lb or {}).get("id") == where]

            def run(action=action, before=before):
                if not any(f.exception() is not None for f in before):
                    self._one(action)
            self._queue(action, run)

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
        self._drain()
        if failures:
            raise Interrupted(failures)

    def _one(self, action):
        kind, ops, effect = action.kind, self.ops(action.kind), action.effect
        if effect == CREATE:
            ident, answer = ops.create(self, action, kind.to_engine(self._resolve(kind, action.obj)))
            self.ids[action.id] = ident
            if answer is not None:
                self.objects[ident] = answer
            ops.tag(self, action, ident)
            return ops.target(action, ident)
        if effect == UPDATE:
            changes = self._resolve(kind, dict((f, a) for f, (_b, a) in action.changes.items()))
            answer = ops.update(self, action, kind.update_body(action.obj, changes))
            if answer is not None:
                self.objects[action.id] = answer
            ops.tag(self, action, action.id)
        elif effect == TAG:
            # An adopted object is waited for like a created one: it may be in DeploymentError or still deploying.
            ops.tag(self, action, action.id)
        elif effect == REDEPLOY:
            ops.redeploy(self, action)
        elif effect == DELETE:
            ops.delete(self, action)
            return ops.target(action, action.id, expect="gone")
        else:
            raise ValueError("unknown action %s" % action.op)
        return ops.target(action, action.id)

    def _attempt(self, action):
        """(target, None), or (None, error) for a failure a later step settles; any other error, a 429
        above all, propagates at once and ends the run."""
        try:
            return self._one(action), None
        except Interrupted as exc:
            return None, exc
        except EngineError as exc:
            if not isinstance(exc, RateLimitedError) and self.ops(action.kind).settles_later(action, exc):
                return None, exc
            raise

    def _by_dependency(self, actions):
        """Runs creates, updates, adoptions and redeploys, each as soon as the create of every
        placeholder it names has returned; open outcomes interrupt the round once all that could run ran."""
        if not actions:
            return []
        waiting, after = _dependencies(actions)
        results = {}
        lock = threading.Lock()

        def run(action):
            results[action] = self._attempt(action)
            ready = []
            if results[action][1] is None:
                with lock:
                    for child in after.get(action, []):
                        waiting[child] -= 1
                        if waiting[child] == 0:
                            ready.append(child)
            # The dependents start now, on the client's shared pool (a nested map).
            self.client.map(run, ready)

        self.client.map(run, [a for a in actions if waiting[a] == 0])
        return _settled(actions, results)

    def _in_order(self, actions):
        """The writes of sequential kinds, one after another in plan order."""
        results = {}
        for action in actions:
            results[action] = self._attempt(action)
        return _settled(actions, results)

    # ---- deletes -----------------------------------------------------------------------------------
    def paced_deletes(self, wave):
        """One level's deletes in bounded, paced passes (see the class)."""
        targets = []
        ops = self.ops(wave[0].kind)
        for number in range(1, self.delete_passes + 1):
            results = self.client.map(self._attempt, wave)
            targets.extend(t for t, _exc in results if t is not None)
            failed = [(a, exc) for a, (_t, exc) in zip(wave, results) if exc is not None]
            if not failed:
                return targets
            if number == self.delete_passes:
                raise _undeleted(failed, number)
            self.sleep(self.delete_pause * number)
            # A delete whose answer was lost may have landed: a new look decides, not a blind resend.
            wave = [a for a, _exc in failed if ops.still_there(a)]
            if not wave:
                return targets
        return targets   # pragma: no cover - the loop returns or raises

    def _delete_levels(self, deletes):
        """Deletes by level, children before parents; a kind whose deletes come ``after_gone`` starts
        when what was deleted before it is gone."""
        targets = []
        for level in sorted(set(a.kind.delete_level for a in deletes)):
            wave = [a for a in deletes if a.kind.delete_level == level]
            by_ops = []
            for action in wave:
                ops = self.ops(action.kind)
                if ops not in by_ops:
                    by_ops.append(ops)
            for ops in by_ops:
                if ops.after_gone and targets:
                    self.waiter.wait(targets)
                    targets = []
                mine = [a for a in wave if self.ops(a.kind) is ops]
                targets.extend(t for t in ops.delete_all(self, mine) if t is not None)
        return targets

    # ---- a plan ------------------------------------------------------------------------------------
    def apply(self, plan, wait=None):
        """Runs the plan (see the class); ``wait(targets)``, when given, is called once every write but
        the queued tag writes (and the ``AFTER_WRITES`` actions queued behind them) has returned, so the
        wait's polls overlap the tag lane. The ``AFTER_WAIT`` actions run once the wait ended and the lane is empty."""
        if self.isolate is not None:
            return self._isolated(plan)
        return self.apply_group(plan, wait)

    def _writes(self, plan):
        batched, early, parallel, sequential, late = self._split(plan)
        return (self._delete_levels(early) + self._by_dependency(parallel) + self._in_order(sequential)
                + self._batches(batched) + self._delete_levels(late))

    def _split(self, plan):
        """(batched, deletes, creates and updates by dependency, those of sequential kinds, deletes after a create)."""
        groups = ([], [], [], [], [])
        for action in plan:
            ops = self.ops(action.kind)
            if ops.batched:
                slot = 0
            elif action.effect == DELETE:
                slot = 1 if action.after is None else 4
            else:
                slot = 3 if ops.sequential else 2
            groups[slot].append(action)
        return groups

    def _batches(self, actions):
        """The actions of ``batched`` kinds, each kind's (each operations') in one write."""
        targets = []
        for ops in list(dict.fromkeys(self.ops(a.kind) for a in actions)):
            targets += [t for t in ops.write_all(self, [a for a in actions if self.ops(a.kind) is ops]) if t is not None]
        return targets

    def _isolated(self, plan):
        """Group by group (``isolate``), each written and waited for on its own; see the class."""
        groups = []
        for action in plan:
            if self.isolate(action) not in groups:
                groups.append(self.isolate(action))
        for key in groups:
            group = [a for a in plan if self.isolate(a) == key]
            try:
                self.apply_group(group, self.waiter.wait)
            except RateLimitedError:
                raise
            except (Failure, EngineError, Interrupted) as exc:
                self.failed[key] = getattr(exc, "msg", None) or str(exc)
        return []

    def apply_group(self, actions, wait=None):
        """Writes ``actions`` (and waits, see ``apply``); on any error the tag writes asked for end first."""
        try:
            targets = self._writes([a for a in actions if not a.later])
            self._alongside([a for a in actions if a.later == AFTER_WRITES])
            if wait is not None:
                wait(targets)
        except BaseException:
            self._drain()
            raise
        self._settle_tags()
        last = [a for a in actions if a.later == AFTER_WAIT]
        if last:   # a record that must not be ahead of the wait; nothing waits for it in turn
            self._settled_writes(last)
        return targets

    def _settled_writes(self, actions):
        """``actions`` written, their tag writes ended (on any error too)."""
        try:
            self._writes(actions)
        except BaseException:
            self._drain()
            raise
        self._settle_tags()

    def _drain(self):
        """Lets the tag writes already asked for end before the error travels on (nothing is left
        writing in the background); their own failures are beside the point then."""
        for _action, future in self._tagging:
            future.exception()
        self._tagging = []
        if self._lane is not None:
            self._lane.shutdown(wait=True)
            self._lane = None


def _dependencies(actions):
    """``(waiting, after)``: per action how many creates of the plan it waits for, and per create the
    actions waiting for it."""
    made_by = dict((a.id, a) for a in actions if a.effect == CREATE)
    present = set(actions)
    waiting, after = {}, {}
    for action in actions:
        needs = set(made_by[v] for v in placeholders_of(action) if v in made_by and made_by[v] is not action)
        # what the plan says must come first (a rule after its ACL: it names it by name, not by a link)
        needs.update(n for n in getattr(action, "needs", ()) if n in present and n is not action)
        waiting[action] = len(needs)
        for need in needs:
            after.setdefault(need, []).append(action)
    return waiting, after


def _settled(actions, results):
    """The targets of a round's writes, or ``Interrupted`` naming its open outcomes."""
    targets = [results[a][0] for a in actions if a in results and results[a][0] is not None]
    failures = [(a, results[a][1]) for a in actions if a in results and results[a][1] is not None]
    # A child never started because its parent's create did not complete says nothing of its own.
    told = [(a, exc) for a, exc in failures if not (isinstance(exc, Interrupted) and not exc.failures)]
    skipped = [a for a in actions if a not in results]
    if failures or skipped:
        raise Interrupted(told or failures)
    return targets


def _undeleted(failed, passes):
    return Failure("could not delete %s after %d pass(es): %s" % (
        ", ".join("%s '%s' (%s)" % (a.kind.name, a.obj.get("name"), a.id) for a, _exc in failed), passes,
        "; ".join(str(exc) for _a, exc in failed)),
        failed_objects=[dict(type=a.kind.name, id=a.id, name=a.obj.get("name"), error=str(exc)) for a, exc in failed])
