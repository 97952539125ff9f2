# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One service, reconciled on every load balancer that holds or should hold its objects: a run of parts.

``service_run`` makes the run of the ``service`` module (``_reconcile._run.Run``): the LBaaS objects on its load
balancers (``ServiceObjects``, this file), its DNS names (``_dns_names.ServiceNames``) and its marker
(``_guard.ServiceMarker``), joined in one plan under the service's lease (``_guard.ServiceGuard``), with one
summary and one diff. gc reuses the same parts for an owner it collects (``ServiceObjects`` with a removal
``ServiceDeclaration``, which names no load balancer: the owner's objects are found wherever its tag is).

``ServiceObjects``: validate the declaration before any request; observe every declared load balancer and every one
the owner tag is found on; plan each load balancer on its own (a load balancer no longer named gets everything of
ours deleted there, children first); confirm the exact tags of what the plan would write to on the strength of the
tag listing; detect conflicts; report the objects, the status and a per-load-balancer summary and diff.
"""

import time

from .._dns._run import with_result
from .._lbaas._planner import refused_backend_deletes
from .._model._failure import Failure
from .._model._names import check_holder, check_name_part, check_tag_prefix
from .._model._ownership import owner_tag
from .._reconcile._plan import CREATE, DELETE, Plan
from .._model._diff_text import as_text
from .._reconcile._run import Guard, Part, Run
from ._declaration import build, warnings
from ._dns_names import ServiceNames
from ._guard import ServiceGuard, ServiceMarker
from ._desired import Desired
from ._managed import PARENT_NAMES
from ._observe import ServiceObserver
from ._plan import LbPlanner
from ._tree import diff_tree, status, tree

DNS_DIFF_KEY = "dns"   # the key of the service's names in its diff tree, beside its load balancers

CONFIRM_ROUNDS = 4   # each round can only take ownership away, so a handful settles any plan


class _Scope:
    """The state as the guard sees it: every load balancer this run may write to (the declared ones and
    those it cleans), so a run never deletes on a load balancer another run holds the lease of."""

    def __init__(self, state):
        self.lbs = [lb for lb in state.all_lbs if lb["id"] is not None]
        self.lb_tags = state.lb_tags


def scope(state):
    return _Scope(state)


def _without_deleted(observed, deleted, tag):
    """What a run deleted may still be listed while the Engine removes it, and without its tags (then the owner
    tag listing leaves it out): such an object is no untagged object named like ours, and no warning may
    say it was left alone. One that still carries our tag stays (deleting it again is harmless)."""
    if deleted:
        observed.untagged_named = [o for o in observed.untagged_named if o["id"] not in deleted]
        for kind in PARENT_NAMES:
            observed.by_kind[kind] = [o for o in observed.by_kind[kind] if o["id"] not in deleted or tag in o.get("tags", ())]
    return observed


class ServiceObjects(Part):
    """The LBaaS objects of one ``ServiceDeclaration`` on its load balancers: a part of the service's run (and of gc's,
    for an owner it collects: a declaration ``anywhere``, ``ServiceDeclaration.removal``, names no load balancer and
    is absent; the part finds the owner's objects wherever its tag is and plans their removal)."""

    key = "lbaas"

    def __init__(self, client, declaration, check_mode, warn, result=None):
        self.client = client
        self.declaration = declaration   # a ServiceDeclaration (_declaration)
        self.check_mode = check_mode
        self.warn = warn
        self.anywhere = declaration.anywhere
        self.result = result if result is not None else {}
        self.result.update(conflicts=[], allow_sources_bypasses=[])
        self.renumber_warned = False
        self.bypasses_warned = set()
        self.guard = None      # the ServiceGuard of the run (its marker checks, the declaration's hash)
        self.run = None        # the Run this part is in (whether it wrote: the marker part asks)
        self.state = None
        self.first_lbs = []

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
        """Everything before the first observation: the declaration checked (no request yet), then its load balancers
        resolved. ``lb_listing`` (gc: one listing for all owners) stands in for the part's own listing of load
        balancers, which it then skips."""
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

    def guarded_by(self, guard):
        """The run's guard: its hash of the declaration is what the marker vouches for (read once)."""
        self.guard = guard
        self.result["declaration_hash"] = guard.digest
        self.observer.vouched_by(guard.service, guard.digest)

    def observe(self, earlier=()):
        state = self.observer.observe(self.lbs)
        if self.state is None:
            self.first_lbs = state.all_lbs   # what the first plan touched: the diff's keys
            # before any write, so the same in check mode: what else carries the owner tag (the role's release)
            self.result["tagged_other"] = state.tagged_other
        self.state = state
        return state

    def plan(self, state, planned=()):
        if self.guard is not None:
            self.guard.inspect(scope(state), self.check_mode)
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
        return plan

    def summary(self, plan, done):
        """Terraform's plan line of every load balancer the first plan touched (also when nothing changes there)."""
        return [Plan([a for a in plan if a.lb is not None and not a.kind.terse_summary]).summary(self.first_lbs, done=done)]

    def report(self, outcome):
        """The result keys of the objects: per load balancer, with identifiers and states, and where they listen."""
        self.result.update(objects=tree(outcome.after, self.first_lbs, with_ids=True, prefix=self.declaration.tag_prefix),
                           status=status(outcome.after, self.lbs))

    def shown(self, world):
        """The part's share of the diff: the objects per load balancer, as ``diff_tree`` renders them."""
        return diff_tree(world, self.first_lbs, self.declaration.name, self.declaration.tag_prefix)

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


class ServiceLease(Guard):
    """The service's guard in its run: the leases of every load balancer its objects' part may write to, taken before
    the first write of any part (its DNS names too) and released after the last; the markers taken back on failure."""

    def __init__(self, guard, objects):
        self.guard, self.objects = guard, objects

    def before_apply(self, state, plan):
        return self.guard.before_apply(scope(state.of(self.objects)), plan)

    def end(self, outcome):
        self.guard.finish()

    def abandon(self):
        self.guard.abandon()   # the markers written before the failure taken back, the leases released (_guard)


def service_run(client, declaration, check_mode, warn, checks=()):
    """The run of a service (see the module): its parts made and the declaration checked (no request yet), then its
    load balancers resolved. ``checks``: parts that read the joined plan (the outside-prefix check). Returns the
    ``Run``; ``run.result`` is the module's result, filled as the parts learn (conflicts, the hash) and by
    ``report``."""
    result = {"changed": False}
    objects = ServiceObjects(client, declaration, check_mode, warn, result)
    names = ServiceNames(client, declaration, check_mode, warn, result, objects)   # dns checked before any request
    objects.prepare()
    guard = ServiceGuard(client, declaration, objects.desired, warn)
    objects.guarded_by(guard)
    marker = ServiceMarker(guard, objects, placed=names.placed, wrote=lambda: run.wrote)
    run = Run(client, check_mode, [objects, names] + list(checks) + [marker], wait=declaration.wait,
              wait_timeout=declaration.wait_timeout, guard=ServiceLease(guard, objects))
    run.result = result
    return run


def report(run, diff=False):
    """Runs the service's ``run`` and fills its result: changed, the one plan, the one summary (every load balancer,
    then each name), the objects, the names, and in diff mode one tree (load balancers and names side by side)."""
    started = time.monotonic()
    outcome = run.run()
    objects, names = run.parts[0], run.parts[1]
    result, d = run.result, objects.declaration
    result.update(changed=outcome.changed, plan=outcome.plan.to_list(),
                  summary=run.summary(outcome.plan, done=not objects.check_mode))
    objects.report(outcome)
    names.report(outcome)
    if names.wait_served and names.spec and not objects.check_mode:
        with_result(result, lambda: dict(result["dns"], served=names.served(
            outcome, started + objects.declaration.wait_timeout)), "dns")
    if outcome.interruptions:
        result["interruptions"] = outcome.interruptions
    if diff:
        predicted = outcome.plan.predict(outcome.before)
        sides = []
        for world in (outcome.before, predicted):
            tree_ = objects.shown(world)
            dns = names.shown(world)
            if dns:
                tree_[DNS_DIFF_KEY if DNS_DIFF_KEY not in tree_ else "dns names"] = dns
            sides.append(as_text(tree_, inline_leaves=True))
        result["diff"] = dict(before=sides[0], after=sides[1],
                              before_header="%s as observed (objects carry %s unless they show an owner)"
                              % (d.name, objects.tag), after_header=result["summary"])
    return result


def run_service(client, declaration, check_mode, warn, diff=False, checks=()):
    """The ``service`` module's run of ``declaration``: its result."""
    return report(service_run(client, declaration, check_mode, warn, checks=checks), diff=diff)
