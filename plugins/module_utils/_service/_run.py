# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One service, reconciled on every load balancer that holds or should hold its objects.

The orchestration behind the ``service`` module (and, later, the roles and ``gc``): validate the
declaration before any request; observe every declared load balancer and every one the owner tag is
found on; plan each load balancer on its own (a load balancer no longer named gets everything of ours
deleted there, children first); confirm the exact tags of what the plan would write to on the strength
of the tag listing; detect conflicts; take the leases; apply through the shared Reconciler; report the
plan, a per-load-balancer summary and a diff keyed by load balancer.
"""

from .._engine._errors import EngineError
from .._lbaas._planner import refused_backend_deletes
from .._model._failure import Failure
from .._model._names import check_holder, check_name_part, check_tag_prefix
from .._model._ownership import owner_tag
from .._reconcile._loop import Reconciler
from .._reconcile._plan import CREATE, DELETE, Plan
from ._declaration import build, warnings
from ._desired import Desired
from ._guard import MarkerWrites, ServiceGuard
from ._marker import MARKER
from ._managed import PARENT_NAMES
from ._observe import ServiceObserver
from ._plan import LbPlanner
from ._tree import diff as service_diff, status, tree

CONFIRM_ROUNDS = 4   # each round can only take ownership away, so a handful settles any plan


class _Scope:
    """The state as the guard sees it: every load balancer this run may write to (the declared ones and
    those it cleans), so a run never deletes on a load balancer another run holds the lease of."""

    def __init__(self, state):
        self.lbs = [lb for lb in state.all_lbs if lb["id"] is not None]
        self.lb_tags = state.lb_tags


def _without_deleted(observed, deleted, tag):
    """What a run deleted may still be listed while the Engine removes it, and without its tags (then the owner
    tag listing leaves it out): such an object is no untagged object named like ours, and no warning may
    say it was left alone. One that still carries our tag stays (deleting it again is harmless)."""
    if deleted:
        observed.untagged_named = [o for o in observed.untagged_named if o["id"] not in deleted]
        for kind in PARENT_NAMES:
            observed.by_kind[kind] = [o for o in observed.by_kind[kind] if o["id"] not in deleted or tag in o.get("tags", ())]
    return observed


class ServiceRun:
    """One run of a ``ServiceDeclaration``: validate, then ``Reconciler.run(observe, plan)`` (check mode predicts,
    a real run applies under the lease and waits), then the result. A declaration ``anywhere`` (gc's
    ``ServiceDeclaration.removal``) names no load balancer and is absent: the run finds the owner's objects wherever
    its tag is and plans their removal (gc calls ``prepare``, ``observe`` and ``plan`` only)."""

    def __init__(self, client, declaration, check_mode, warn):
        self.client = client
        self.declaration = declaration   # a ServiceDeclaration (_declaration)
        self.check_mode = check_mode
        self.warn = warn
        self.anywhere = declaration.anywhere
        self.result = {"changed": False, "conflicts": [], "allow_sources_bypasses": []}
        self.renumber_warned = False
        self.bypasses_warned = set()
        self.reconciler = None

    def validate(self):
        d = self.declaration
        if self.anywhere and (d.load_balancers or d.state != "absent"):
            raise ValueError("a run without declared load balancers only removes")   # a caller's bug, not a user's
        if not d.load_balancers and not self.anywhere:
            raise Failure("load_balancers must name at least one load balancer")
        for index, ref in enumerate(d.load_balancers):
            if not ref or not str(ref).strip():
                raise Failure("load_balancers[%d] must not be empty" % index)
        check_name_part(d.name, "name")   # a part of every object name, and the owner tag
        check_tag_prefix(d.tag_prefix)
        if d.lease_holder is not None:
            check_holder(d.lease_holder)
        if d.lease_timeout < 1:
            raise Failure("lease_timeout must be at least 1 second, got %d" % d.lease_timeout)
        desired = build(d.objects())   # validates the whole declaration before any request
        for warning in warnings(d.objects()):
            self.warn(warning)
        return Desired() if d.state == "absent" else desired

    def prepare(self, lb_listing=None):
        """Everything before the first observation. ``lb_listing`` (gc: one listing for all owners) stands
        in for the run's own listing of load balancers, which it then skips."""
        d = self.declaration
        self.desired = self.validate()
        self.tag = owner_tag(d.name, d.tag_prefix)
        self.observer = ServiceObserver(self.client, self.desired, self.tag, d.tag_prefix)
        if lb_listing is not None and not d.load_balancers:
            self.observer.lb_listing = lb_listing
            self.lbs = []
        else:
            gone = [] if d.state == "absent" else None   # nothing of the service can be left on a load balancer that is gone
            self.lbs = self.observer.resolve(d.load_balancers, gone)
            for index, ref in gone or ():
                self.warn("load_balancers[%d]: no load balancer named '%s' exists; nothing to remove there" % (index, ref))
        self.guard = ServiceGuard(self.client, d, self.desired, warn=self.warn)
        self.result["declaration_hash"] = self.guard.digest
        self.observer.vouched_by(self.guard.service, self.guard.digest)   # the declaration hashed once
        self.state = None

    def run(self, diff=False):
        d = self.declaration
        self.prepare()
        self.reconciler = Reconciler(self.client, self.check_mode, wait=d.wait, wait_timeout=d.wait_timeout,
                                     before_apply=lambda state, plan: self.guard.before_apply(_Scope(state), plan),
                                     applier=self._applier)
        try:
            outcome = self.reconciler.run(self.observe, self.plan)
        except BaseException:
            self.guard.abandon()   # the markers written before the failure taken back, the leases released (_guard)
            raise
        try:
            self.guard.finish()   # the markers were written with the plan: the leases released (_guard)
        except (Failure, EngineError) as exc:
            # the plan was applied: a marker that failed after it does not make the run unchanged
            exc.partial_result = dict(changed=outcome.changed, plan=outcome.plan.to_list())
            raise
        shown = self.first_lbs
        predicted = outcome.plan.predict(outcome.before)
        self.result.update(
            changed=outcome.changed,
            plan=outcome.plan.to_list(),
            summary=outcome.plan.summary(shown, done=not self.check_mode),
            objects=tree(outcome.after, shown, with_ids=True, prefix=d.tag_prefix),
            status=status(outcome.after, self.lbs),
        )
        if outcome.interruptions:
            self.result["interruptions"] = outcome.interruptions
        if diff:
            self.result["diff"] = service_diff(outcome.before, predicted, shown, d.name, self.tag,
                                               self.result["summary"], prefix=d.tag_prefix)
        return self.result

    def _applier(self, client, waiter):
        """The applier of a real run: the objects' generic operations, the marker's own (``MarkerWrites``).
        Imported here: a check-mode or in-sync run does not load the applier (``_reconcile._loop``)."""
        from .._reconcile._apply import Applier
        return Applier(client, waiter, operations={MARKER: MarkerWrites(self.guard)})

    def _marked(self, state, plan):
        """``plan`` with the service's marker writes (``ServiceGuard.marker_actions``), which run after its other
        writes, alongside the wait: when it writes objects, or when a round of this run wrote and ended before its markers ran (an
        interrupted round whose next plan has nothing left to write). A run that writes nothing writes no
        marker; gc (``anywhere``) removes markers itself."""
        wrote = self.reconciler is not None and self.reconciler.wrote
        if self.anywhere or not (plan.objects() or (self.guard.unwritten and wrote)):
            return plan
        marks = [(self.lbs, self.declaration.state == "absent")]
        if state.extra_lbs:
            marks.append((list(state.extra_lbs), True))   # the service is gone from there: so is its marker
        return Plan(list(plan) + self.guard.marker_actions(marks), plan.waits)

    def observe(self):
        state = self.observer.observe(self.lbs)
        if self.state is None:
            self.first_lbs = state.all_lbs   # what the first plan touched: the diff's keys
            # before any write, so the same in check mode: what else carries the owner tag (the role's release)
            self.result["tagged_other"] = state.tagged_other
        self.state = state
        return state

    def plan(self, state):
        self.guard.inspect(_Scope(state), self.check_mode)
        for _round in range(CONFIRM_ROUNDS):
            planners, plan = self._plan_once(state)
            # Premises, and what a write targets (a child ours by containment may carry a foreign owner tag).
            targets = [o for a in plan for o in (a.premise, None if a.op == CREATE else a.obj)]
            unconfirmed = list(dict((o["id"], o) for o in targets if o is not None and not o.get("confirmed")).values())
            if not unconfirmed:
                break
            # The tag listing is not known to match exactly: read the tags of what we would write to.
            refused = self.observer.confirm(unconfirmed)
            for obj in refused:
                self.warn("%s '%s' (%s) was listed for tag %s but does not carry it exactly; not touched"
                          % (obj["kind"], obj["name"], obj["id"], self.tag))
        else:
            raise Failure("ownership of the objects to change could not be confirmed after %d rounds" % CONFIRM_ROUNDS)
        for planner in planners:
            for warning in planner.out.warnings:
                self.warn(warning)
        self._taken(planners)
        self._renumbered(plan)
        self._conflicts(state, planners)
        self._blocked(planners)
        self._bypassed(planners)
        return self._marked(state, plan)

    def _bypassed(self, planners):
        """Rules and ACLs of others under a frontend with an allow-list that admit what the list refuses
        (_bypasses): listed in the result, and each a warning (once per run), or, with allow_sources_bypass=fail,
        a failure before any write, in check mode too. Found in what observation and planning read: no request."""
        found = [b for planner in planners for b in planner.out.bypasses]
        self.result["allow_sources_bypasses"] = found
        if not found:
            return
        fix = ("this service never writes another owner's rule or ACL: have whoever made it remove it or give it an "
               "index above the service's reject rules")
        if self.declaration.allow_sources_bypass == "fail":
            raise Failure("service %s: allow_sources do not hold, so nothing was written (allow_sources_bypass=fail): %s; %s"
                          % (self.declaration.name, "; ".join(b["msg"] for b in found), fix), allow_sources_bypasses=found)
        for bypass in found:
            if bypass["id"] not in self.bypasses_warned:
                self.bypasses_warned.add(bypass["id"])
                self.warn("service %s: allow_sources do not hold: %s; %s (allow_sources_bypass=fail stops the run "
                          "before any write instead)" % (self.declaration.name, bypass["msg"], fix))

    def _taken(self, planners):
        """A desired name held by a foreign object (one carrying an owner tag of another owner or prefix), or
        a parent to delete holding a foreign child: fail before any write, in check mode too."""
        taken = [t for planner in planners for t in planner.out.taken]
        if not taken:
            return
        why = "; ".join("%s '%s' on load balancer %s: %s %s '%s' (%s) carrying %s" % (
            t["type"], t["name"], t["load_balancer"], t["how"], t["holder"], t["holder_name"], t["holder_id"],
            ", ".join(t["owner_tags"])) for t in taken)
        fixes = []
        if any(t["holder_id"] == t["id"] for t in taken):
            fixes.append("for a taken name give this service a name_suffix (its objects are then named "
                         "<port>.%s.<name_suffix>)" % self.declaration.name)
        if any(t["holder_id"] != t["id"] for t in taken):
            fixes.append("remove the foreign object through its owner first")
        raise Failure("service %s (owner tag %s) would take over objects of another owner: %s. Objects carrying another "
                      "owner tag are never adopted, changed or deleted by this service; %s"
                      % (self.declaration.name, self.tag, why, "; ".join(fixes)), taken=taken)

    def _renumbered(self, plan):
        """A port without a name is named by its number: a new number replaces its objects (``<p1>.S`` deleted,
        ``<p2>.S`` created, an interruption), where a named port's would be updated in place. Say so."""
        suffix = self.desired.suffix
        unnamed = dict((str(port["port"]), i) for i, port in enumerate(self.declaration.ports) if not port.get("name"))

        def numbers(op):
            heads = set(a.obj.get("name", "").partition(".")[0] for a in plan
                        if a.op == op and a.kind.name in PARENT_NAMES and self.desired.names_a_parent(a.obj.get("name")))
            return sorted((h for h in heads if h.isdigit()), key=int)

        created = [n for n in numbers(CREATE) if n in unnamed]
        deleted = [n for n in numbers(DELETE) if n not in unnamed]
        if created and deleted and not self.renumber_warned:
            self.renumber_warned = True
            self.warn("ports[%s] without a name: objects are named by the port number, so the objects of port %s "
                      "(%s) are deleted and those of port %s (%s) created, not updated in place; give the port a name "
                      "(ports[].name) to keep its objects when its number changes"
                      % (", ".join(str(unnamed[n]) for n in created), ", ".join(deleted),
                         ", ".join("%s.%s" % (n, suffix) for n in deleted), ", ".join(created),
                         ", ".join("%s.%s" % (n, suffix) for n in created)))

    def _blocked(self, planners):
        """A backend of ours that a frontend not ours points at cannot be deleted (the Engine answers
        409, on every run): fail before any write, in check mode too, naming that frontend, as the
        per-object modules do. Such a frontend is another owner's, or one of our naming whose tag
        write never landed; either way not ours to change."""
        blocked = []
        for planner in planners:
            gone = dict((a.id, a.obj) for a in planner.out.actions if a.op == DELETE and a.kind.name == "backend")
            if not gone or planner.obs.lb["id"] is None:
                continue
            for frontend in self.observer.frontends_using(planner.obs, set(gone), planner.out.parents):
                backend = gone[frontend["default_backend"]]
                blocked.append(dict(load_balancer=planner.obs.lb["name"], backend=backend["name"], backend_id=backend["id"],
                                    frontend=frontend["name"], frontend_id=frontend["id"]))
        if blocked:
            raise refused_backend_deletes(blocked, self.tag)

    def _plan_once(self, state):
        planners, actions, waits = [], [], []
        for lb in state.all_lbs:
            desired = self.desired if lb in self.lbs else Desired()   # no longer named: everything goes
            observed = _without_deleted(state.observed[lb["id"]], getattr(self.client, "deleted", None), self.tag)
            planner = LbPlanner(desired, observed, self.tag, self.declaration.tag_prefix)
            out = planner.plan()
            planners.append(planner)
            actions.extend(out.actions)
            waits.extend(out.waits)
        return planners, Plan(actions, waits)

    def _conflicts(self, state, planners):
        conflicts = []
        for planner in planners:
            obs = planner.obs
            if planner.out.binds_to_check and obs.lb in self.lbs:
                if obs.foreign_binds is None:
                    obs.foreign_binds = self.observer.foreign_binds(
                        obs.lb, planner.out.parents, [(a, p) for a, p, _name in planner.out.binds_to_check])
                conflicts.extend(planner.conflicts())
        if conflicts:
            self.result["conflicts"] = conflicts
            held = "; ".join("%s:%s on %s is held by %s (bind %s)" % (
                c["address"], c["port"], c["load_balancer"], c["holder"] or "an untagged bind", c["holder_bind"])
                for c in conflicts)
            raise Failure("service %s conflicts with binds it does not own: %s" % (self.declaration.name, held),
                          conflicts=conflicts)
