# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""observe -> plan -> (check mode: predict | apply -> wait -> observe and plan again).

The plan (``_plan``) is data; check mode predicts the outcome from it, a real run executes the same
plan (``_apply``), so the two can never disagree. Every module of the collection runs through
``Reconciler.run``.

The applier and the waiter (``_apply``, ``_wait``) are imported when a real run has something to
write or wait for: a check-mode or in-sync run, the common case, never loads them (a module compiles
every file it imports from its zip on every run, so what it does not need still costs CPU).
"""

from .._engine._errors import EngineError
from .._model._failure import Failure
from .._model._kind import kind_named
from ._plan import is_placeholder


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
    the collection away meanwhile. A plan whose kinds' operations do not declare ``confirms_by_wait``
    (IPAM addresses, gc's markers) gets the second observation.
    ``applier(client, waiter)`` makes the ``Applier`` that executes a plan (default: every kind written
    with the Engine's generic object operations); IPAM addresses and gc pass their kinds' operations.
    """

    def __init__(self, client, check_mode, wait=True, wait_timeout=600, max_rounds=3, waiter=None, before_apply=None,
                 max_interruptions=4, applier=None):
        self.client = client
        self.max_interruptions = max_interruptions   # rounds of writes ended on open outcomes, bounded apart
        self.applier = applier   # None: _apply.Applier, imported when a plan is applied
        self.before_apply = before_apply
        self.check_mode = check_mode
        self.wait = wait
        self.max_rounds = max_rounds
        self._waiter = waiter
        self.wait_timeout = wait_timeout
        self.observations = 0   # how many times this run looked at the Engine (a no-op and most writing runs: once)
        self._written_before = None   # the client's count of writes when the first round began

    @property
    def waiter(self):
        """The ``_wait.Waiter`` of a real run's writes: made (and its module imported) when first needed."""
        if self._waiter is None:
            from ._wait import Waiter
            self._waiter = Waiter(self.client, self.wait_timeout)
        return self._waiter

    def run(self, observe, planner):
        def look():
            self.observations += 1
            return observe()
        state = look()
        plan = planner(state).ordered()
        first_plan, before = plan, state.world
        if self.check_mode:
            outcome = Outcome(first_plan, before, plan.predict(before), bool(plan), 0)
            # what later check-mode tasks of the play see (a no-op unless the client carries predictions);
            # imported here: a real run does not load the predictions
            from ._predictions import record
            record(self.client, outcome)
            return outcome
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
        from ._apply import Applier, Interrupted
        from ._wait import Target
        rounds = 0
        interruptions = []
        while True:
            applier = (self.applier or Applier)(self.client, self.waiter)
            waits = [Target(*t) for t in plan.waits]
            try:
                targets = applier.apply(plan, wait=(lambda done: self.waiter.wait(done + waits)) if self.wait else None)
            except Interrupted as exc:
                self._interrupted(interruptions, exc, first_plan)
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
            after = self.confirmed_world(predicted, applier, targets + waits) if applier.confirms_by_wait(plan) else None
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

    def _interrupted(self, interruptions, exc, first_plan):
        interruptions.append(str(exc))
        if len(interruptions) >= self.max_interruptions:
            raise Failure("the run could not settle the Engine's answers after %d rounds: %s"
                          % (len(interruptions), " | ".join(interruptions)), plan=first_plan.to_list())

    def confirmed_world(self, predicted, applier, targets):
        """The state after the run from the wait's own reads, or None when they do not confirm the plan.

        Every target must have been read by its last poll: deployed with exactly the predicted fields
        (links of new parents resolved to their identifiers), or gone."""
        out = {}
        for ref, obj in predicted.items():
            ident = applier.ids.get(ref, ref)
            if is_placeholder(ident):
                return None   # a create that never returned: only a new look can tell
            out[ident] = obj
        for target in targets:
            if not self._confirm(out, target, applier):
                return None
        for obj in out.values():
            obj.pop("planned", None)
            for field in kind_named(obj["kind"]).references():
                if is_placeholder(obj.get(field)):
                    obj[field] = applier.ids.get(obj[field], obj[field])
        return out

    def _confirm(self, out, target, applier):
        """Puts the wait's last read of ``target`` into ``out``; False when it differs from the plan."""
        seen = self.waiter.seen
        if target.id not in seen:
            return False
        read = seen[target.id]
        if target.expect == "gone":
            out.pop(target.id, None)
            return read is None
        if read is None or target.id not in out:
            return False
        expected = out[target.id]
        kind = target.spec
        flat = kind.from_engine(read)
        for field in kind.references() + list(kind.fields):
            want = expected.get(field)
            want = applier.ids.get(want, want) if is_placeholder(want) else want
            if flat.get(field) != want:
                return False   # the Engine holds something else than planned: observe and plan again
        for key in ("lb", "tags", "listed"):
            if key in expected:
                flat[key] = expected[key]
        flat["confirmed"] = True
        out[target.id] = flat
        return True

    @staticmethod
    def _as_written(predicted, applier):
        """Without a wait there is no second observation: report what the Engine answered to our writes."""
        out = {}
        for ref, obj in predicted.items():
            ident = applier.ids.get(ref, ref)
            if ident in applier.objects:
                written = kind_named(obj["kind"]).from_engine(applier.objects[ident])
                written["tags"] = obj.get("tags", [])
                obj = written
            out[ident] = obj
        return out
