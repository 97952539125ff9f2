# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one run protocol: a run is made of parts, joined in one plan, under one guard, with one result.

A ``Part`` is a family of things a run manages for its owner: the LBaaS objects on its load balancers, the pool
addresses, the DNS names, the marker. Each observes, contributes the actions of its declared kinds to the run's
plan, and says how those kinds are written. ``Run`` joins them: it observes every part (``RunState``), plans them
in order into one ``Plan`` (ordered by the kinds' declared dependencies across families: a name's records after
the binds that carry its addresses, and deleted before them; the marker last), and hands that to the one
``Reconciler``: check mode predicts, a real run takes the guard (the leases) before its first write, applies the
plan with one ``Applier`` whose operations are the parts' own, waits once, and releases the guard at the end, so
every write of every part lies inside the lease. The parts render one summary line and one diff.

Every module runs through ``Run``: the per-object modules (one part), ``ip_address``, ``dns_record``, ``service``
and ``gc`` (several). This is the only place that makes a ``Reconciler``.

The seam where laziness pays: the write code (the applier, the waiter, each part's operations) is imported only
when a plan has something to write (``_applier``, ``Part.operations``); a check-mode or in-sync run never loads it.
"""

from .._engine._errors import EngineError
from .._model._failure import Failure
from ._loop import Reconciler
from ._plan import Plan


class Part:
    """One family of what a run manages. Subclasses implement ``observe`` and ``plan``; the rest is optional.

    ``observe(earlier)`` returns a state with a ``world`` (``{id: flat object}``); ``earlier`` is the list of
    the states of the parts observed before this one in the same observation (the marker reads the load
    balancers' tags the objects' part read). ``plan(state, planned)`` returns a ``Plan`` of the part's actions;
    ``planned`` holds the actions the parts before it planned (the marker marks only a run that writes).
    ``operations(client)`` maps the kind names the part writes to their ``Operations`` (imported there, only
    when a plan is applied); a kind not named is written with the Engine's generic object operations.
    ``summary(plan, done)`` returns the part's segments of the run's summary line for ``plan`` (its own actions
    among them)."""

    key = "part"

    def observe(self, earlier):
        raise NotImplementedError

    def plan(self, state, planned):
        raise NotImplementedError

    def operations(self, client):
        return {}

    def summary(self, plan, done):
        return []

    def end(self):
        """Called once the run ended, well or not (a part that sent reads in the background settles them)."""


class RunState:
    """One observation of a run: each part's state (``of(part)``), and their worlds joined (``world``)."""

    def __init__(self, parts, states):
        self.states = dict(zip([id(p) for p in parts], states))
        self.world = {}
        for state in states:
            if state is not None:
                self.world.update(state.world)

    def of(self, part):
        return self.states.get(id(part))


class Guard:
    """What keeps other runs away while this one writes (the service's and gc's leases). ``before_apply`` runs
    once before the first write of a real run (True: another run wrote meanwhile, observe and plan again);
    ``end`` after a run that ended well, ``abandon`` after one that failed (it must not raise)."""

    def before_apply(self, state, plan):
        return False

    def end(self, outcome):
        pass

    def abandon(self):
        pass


class Run:
    """``parts`` observed, planned, predicted or applied together (see the module). ``plan_type`` joins the parts'
    plans (``Plan.joined``: gc's plan carries its decisions); ``isolate`` and ``failed`` are the applier's (gc applies
    owner by owner); ``check(plan)``, when given, sees every joined plan before it is returned."""

    def __init__(self, client, check_mode, parts, wait=True, wait_timeout=600, guard=None, plan_type=Plan,
                 isolate=None, failed=None, check=None, max_rounds=3):
        self.client = client
        self.check_mode = check_mode
        self.parts = list(parts)
        self.guard = guard or Guard()
        self.plan_type = plan_type
        self.isolate = isolate
        self.failed = failed
        self.check = check
        self.applied = False      # whether an applier was made: a real run that had something to write
        self.reconciler = Reconciler(client, check_mode, wait=wait, wait_timeout=wait_timeout, max_rounds=max_rounds,
                                     before_apply=self.guard.before_apply, applier=self._applier)
        self.outcome = None

    @property
    def wrote(self):
        return self.reconciler.wrote

    def run(self):
        """The outcome (``_loop.Outcome``); the guard released either way."""
        try:
            try:
                outcome = self.reconciler.run(self.observe, self.plan)
            except BaseException:
                self.guard.abandon()
                raise
            try:
                self.guard.end(outcome)
            except (Failure, EngineError) as exc:
                # the plan was applied: what failed after it does not make the run unchanged
                exc.partial_result = dict(changed=outcome.changed, plan=outcome.plan.to_list())
                raise
        finally:
            for part in self.parts:
                part.end()
        self.outcome = outcome
        return outcome

    def observe(self):
        states = []
        for part in self.parts:
            states.append(part.observe(states))
        return RunState(self.parts, states)

    def plan(self, state):
        plans = []
        for part in self.parts:
            plans.append(part.plan(state.of(part), [a for plan in plans for a in plan]))
        plan = self.plan_type.joined(plans)
        if self.check is not None:
            self.check(plan)
        return plan

    def summary(self, plan, done):
        """One line: each part's segments, in the order of the parts."""
        return "; ".join(s for part in self.parts for s in part.summary(plan, done))

    def _applier(self, client, waiter):
        """The applier of a real run that writes: the one seam where the write code is imported."""
        from ._apply import Applier
        self.applied = True
        operations = {}
        for part in self.parts:
            operations.update(part.operations(client))
        return Applier(client, waiter, operations=operations, isolate=self.isolate, failed=self.failed)


class Steps(Part):
    """A part made of two functions: ``observe()`` (a state with a ``world``) and ``plan(state)`` (a ``Plan``), for
    a module that manages one family (the per-object modules); ``operations(client)``, when given, as ``Part``'s."""

    def __init__(self, observe, plan, operations=None, key="objects"):
        self._observe, self._plan, self._operations = observe, plan, operations
        self.key = key

    def observe(self, earlier):
        return self._observe()

    def plan(self, state, planned):
        return self._plan(state)

    def operations(self, client):
        return self._operations(client) if self._operations is not None else {}
