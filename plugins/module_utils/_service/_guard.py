# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What guards a service run's writes: the lease on its load balancers and the marker it leaves.

Reading is free of both: a no-op run takes no lease and writes no marker, so it sends no mutating
request. A run about to write takes the leases; if the load balancers' tags then differ from what
it observed (another run's marker changed, or a crashed run's lease was taken over), another run
wrote in between, and it observes again before writing. Every writing run of this module changes
its marker, so that comparison costs one read per load balancer instead of a second observation.

The marker writes are actions of a writing run's plan (``marker_actions``: one ``mark`` of the
``MarkerKind`` per load balancer, bookkeeping that no summary counts), which the applier runs
``AFTER_WRITES``: once every object write of the plan returned and the tag writes of that load balancer
succeeded, alongside the wait for the deployments. What a marker vouches for is configuration, not
deployment (``_marker``): later runs trust it to skip listing the ACLs and rules of ports without an
allow-list, which rests on this run's writes and deletes having been accepted, while a deployment that
fails shows on the object itself, which every later run reads. A marker is never written for a load
balancer where a write or tag write of the plan failed. ``MarkerWrites`` sends them; the lease release and
the clean-up of the markers they replaced follow the run (``finish``, also when the wait failed after the
markers were written).

A marker write that fails after the plan was applied leaves the run changed (the objects were written)
and says what it means (``_marker.marker_outcome``): the next writing run writes the marker again.

What the guard leaves behind is bounded: a released lease's tag entity is deleted (``_lease``), and
so is a replaced marker's once no load balancer carries it; a failure to delete one is a warning. Which
entities those are is read while the run writes and waits (``_look_ahead``: the names are the run's own and
exist once the lease is attached), so a run's end is the lease's detach, then the deletes: two round trips.
"""

from .._engine._errors import EngineError, RateLimitedError
from .._model._failure import Failure
from .._model._ownership import tag_names
from .._lbaas._lease import Leases, default_holder
from .._model._kind import Operations
from .._reconcile._plan import Action, Plan
from .._reconcile._run import Part
from ._marker import (
    MARK, MARKER, MARKER_KIND, LbMarks, Marker, declaration_hash, marker_outcome, placements, refuse_newer)
from .._model._names import check_holder, check_owner, check_tag_prefix
from .._engine._tag_entities import Lookahead, delete_found, lookup, still_carried

CARRIED = object()   # ``_probe``: a replaced marker some load balancer still carries, whose entity stays


class ServiceGuard:
    def __init__(self, client, declaration, desired, warn):
        """``declaration``: the run's ``ServiceDeclaration`` (its name, tag prefix and lease options)."""
        self.client = client
        self.prefix = check_tag_prefix(declaration.tag_prefix)
        self.service = check_owner(declaration.name, "name")
        holder = declaration.lease_holder
        holder = check_holder(holder) if holder is not None else default_holder(self.service)
        self.digest = declaration_hash(desired.as_data())
        self.open = not desired.controls_access()   # the marker says whether this declaration has allow-lists
        self.warn = warn
        self.lb_tags = {}
        self.writes, self.replaced = [], []   # the marker writes done (``LbMarks``) and the names they replace
        self.unwritten = set()   # the marker actions last planned that have not run (their ids)
        self.planned_olds = []   # the marker names the last planned marker writes replace
        # the tag entities this run deletes at its end, looked up while it writes and waits (``finish``)
        self.ahead = Lookahead(client)
        self.leases = Leases(client, self.prefix, holder, declaration.lease_timeout, self.tags_of, warn=warn,
                             ahead=self.ahead)

    def tags_of(self, lb_id):
        return tag_names(self.client.resource_get(lb_id))

    def inspect(self, state, check_mode):
        """At every planning: refuse a newer collection's marker; in check mode, tell of a live lease."""
        self.lb_tags = state.lb_tags
        for lb in state.lbs:
            tags = state.lb_tags[lb["id"]]
            refuse_newer(lb, Marker.find(self.prefix, self.service, tags))
            if check_mode:
                for lease in self.leases.others(tags):
                    self.warn("load balancer %s is leased by %s; a real run would fail until that run ends"
                              % (lb["name"] or lb["id"], lease.describe()))

    def before_apply(self, state, plan):
        """Takes the leases; True when another run wrote meanwhile (observe and plan again). Then the lookups of
        the tag entities the run's end deletes go out (``_look_ahead``), alongside its writes."""
        taken_over = self.leases.acquire(state.lbs, state.lb_tags)
        self._look_ahead()
        return taken_over or self.leases.changed(state.lbs, state.lb_tags)

    def _look_ahead(self):
        """Once the leases are held: the lookups (only reads) of their tag entities and of the markers the planned
        marker writes replace, sent on the client's pool while the run writes and waits (``Lookahead``), so that
        ``finish`` is left with the detach and the deletes. Which of them are deleted is decided there, as before:
        only what was released or replaced, a marker only once no load balancer carries it."""
        if self.leases.held:
            self.leases.look_ahead()
            self.ahead.start(self.planned_olds)

    def mark(self, lbs, absent=False):
        """Records on each load balancer which declaration this run applied (or removes it: absent),
        then deletes the tag entities of the markers it replaced that no load balancer carries now."""
        for action in self.marker_actions([(lbs, absent)]):
            self.write(action)
        self.finish(release=False)

    def marker_actions(self, marks, placed=None):
        """The ``mark`` actions of ``marks`` ([(lbs, absent)]), one per load balancer with something to write:
        each records there which declaration this run applied (absent: removes the service's marker), and what it
        placed outside its load balancers (``placed``: placement tags, ``_marker.placement_tag``; None: left as they
        are). They run ``AFTER_WRITES`` (see the module)."""
        writes, self.planned_olds = self._marker_writes(marks, placed)
        self._look_ahead()   # a plan made under the leases (a later round): its replaced markers too
        head = Marker.head(self.prefix, self.service).rstrip("=")
        out = []
        for lb_marks in writes:
            if lb_marks.new is None and not lb_marks.olds and not lb_marks.unplace:
                continue   # absent, and no marker of the service there: nothing to write
            lb = lb_marks.lb
            reason = ("records that declaration %s is applied here" % self.digest if lb_marks.new
                      else "the service's marker goes: nothing of the service is left here")
            out.append(Action(MARK, MARKER_KIND, dict(kind=MARKER, id="%s/%s" % (lb["id"], head), name=head, marks=lb_marks),
                              reason=reason + " (written once its objects are written and tagged, during the wait)", lb=lb))
        self.unwritten = set(a.id for a in out)
        return out

    def write(self, action):
        """The marker writes of ``action`` (a ``mark``); a failure is recorded (``LbMarks``), never raised."""
        lb_marks = action.obj["marks"]
        lb_marks.write(self.client)
        self.writes.append(lb_marks)
        self.replaced.extend(name for name in lb_marks.olds if name not in self.replaced)
        self.unwritten.discard(action.id)

    def _marker_writes(self, marks, placed=None):
        """The ``LbMarks`` of ``marks`` ([(lbs, absent)]) and the tag names they replace (markers, placements)."""
        out, replaced = [], []
        for lbs, absent in marks:
            found = dict((lb["id"], Marker.find(self.prefix, self.service, self.lb_tags.get(lb["id"], []))) for lb in lbs)
            newest = max([m.stamp for markers in found.values() for m in markers] or [0])
            ours = Marker.ours(self.prefix, self.service, self.digest, after=newest, open_=self.open)
            for lb in lbs:
                olds = [old.name for old in found[lb["id"]]]
                place, unplace = self._placements(lb, placed, absent)
                out.append(LbMarks(lb, None if absent else ours.name, olds, place, unplace))
                replaced.extend(name for name in olds + unplace if name not in replaced)
        return out, replaced

    def _placements(self, lb, placed, absent):
        """(placement tags to attach, to remove) on ``lb`` for ``placed`` (None: as they are; absent: none)."""
        have = [tag for _f, _w, tag in placements(self.prefix, self.service, self.lb_tags.get(lb["id"], []))]
        wanted = have if placed is None else ([] if absent else list(placed))
        return [t for t in wanted if t not in have], [t for t in have if t not in wanted]

    def finish(self, release=True):
        """The end of a run, after its markers were written (``write``, the plan's actions after its writes): the
        release of the leases, overlapped: while the lease tags are removed one after another, the replaced
        markers are checked for load balancers still carrying them, and the tag entities to delete are looked
        up where that was not done ahead (``_look_ahead``); then the released leases' entities and the replaced
        markers' that no load balancer carries are deleted together.

        A marker write that fails does not stop the others (``LbMarks``) and does not undo what the run
        wrote: the objects are converged, the marker is bookkeeping. It is a warning (``marker_outcome``),
        unless a replaced marker is left alone on a load balancer (a ``Failure``, raised once the leases
        are released) or the Engine rate-limited the run (that error, raised likewise)."""
        writes, replaced = self.writes, self.replaced
        self.writes, self.replaced = [], []   # reported once
        leases = list(dict.fromkeys(lease.name for _lb, lease in self.leases.held)) if release else []
        limited = [exc for m in writes for _n, _a, exc in m.failed if isinstance(exc, RateLimitedError)]
        stays = set(name for m in writes for name in m.not_removed())
        markers = [] if limited else [n for n in replaced if n not in stays]
        released, found = self._release_and_probe(release, leases, markers)
        self._settle(released.get("removed", []), markers, found)
        if release:
            self.leases.warn_left(released.get("left", []))
        if limited:
            raise limited[0]
        self._report(writes)

    def _release_and_probe(self, release, leases, markers):
        """At once: the lease tags detached (``release``), the entities of the ``leases`` (names) looked up where
        that was not done ahead, the replaced ``markers`` probed (``_probe``). ({"removed", "left"} of the
        release, {name: what was found})."""
        released = {}

        def job(item):
            what, name = item
            if what == "release":
                if release:
                    released["removed"], released["left"] = self.leases.remove_tags()
                return None
            return self.ahead.entities(name) if what == "lease" else self._probe(name)
        jobs = [("release", None)] + [("lease", name) for name in leases] + [("marker", name) for name in markers]
        results = self.client.map(job, jobs)
        return released, dict((name, found) for (_what, name), found in zip(jobs[1:], results[1:]))

    def _probe(self, name):
        """Whether a replaced marker may lose its tag entity: ``CARRIED`` while a load balancer carries it (a
        marker name is shared by the load balancers one run marked), else its entities (``Lookahead.entities``). An
        EngineError is returned, for ``_forget`` to warn of."""
        try:
            if still_carried(self.client, name):
                return CARRIED
        except EngineError as exc:
            return exc
        return self.ahead.entities(name)

    def _settle(self, leases, markers, found):
        """Deletes the tag entities of the released ``leases`` and of the replaced ``markers`` no load
        balancer carries now (``found``: name -> the entities looked up already, or the marker's ``_probe``)."""
        def settle(job):
            what, item = job
            if what == "lease":
                self.leases.forget_entities([item], found)
            else:
                self._forget(item, found.get(item))
        self.client.map(settle, [("lease", lease) for lease in leases] + [("marker", name) for name in markers])

    def _report(self, writes):
        """Warns of the marker writes that failed; fails when one left a replaced marker alone."""
        fatal = [text for text in (marker_outcome(self.service, m, self.warn) for m in writes) if text]
        if fatal:
            raise Failure("; ".join(fatal), markers=dict((m.lb["name"] or m.lb["id"], m.olds) for m in writes if m.failed))

    def _forget(self, name, probed):
        """Deletes a replaced marker's tag entity once no load balancer carries it (``probed``: what ``_probe``
        answered: ``CARRIED``, an EngineError, the entities, or None: look them up now)."""
        try:
            if isinstance(probed, EngineError):
                raise probed
            if probed is not CARRIED:
                delete_found(self.client, probed if probed is not None else lookup(self.client, name))
        except EngineError as exc:
            self.warn("the tag '%s' could not be deleted from the account (%s); it is no longer on any load balancer "
                      "of this service and can be deleted by hand" % (name, exc))

    def release(self):
        self.leases.warn_left(self.leases.release())

    def abandon(self):
        """The end of a run that failed: the markers it wrote (``AFTER_WRITES``: alongside a wait that then failed,
        or before a later round failed) are taken back, so that none vouches for a run that did not end well: the
        next run reads everything, as if no marker were there (the replaced ones are gone already). Then the tag
        entities of the markers taken back and replaced are deleted where no load balancer carries them, and the
        leases are released (``finish``). Never raises: what could not be done is a warning."""
        writes, self.writes = self.writes, []
        if not writes:
            self.release()
            return
        for lb_marks in writes:
            if lb_marks.new is None or lb_marks.not_attached():
                continue
            try:
                self.client.tag_remove(lb_marks.lb["id"], lb_marks.new)
            except EngineError as exc:
                self.warn("service %s: the run failed after the marker tag '%s' was attached to load balancer %s, and "
                          "it could not be taken back (%s); it stays until a run that writes replaces it"
                          % (self.service, lb_marks.new, lb_marks.lb["name"] or lb_marks.lb["id"], exc))
                continue
            if lb_marks.new not in self.replaced:
                self.replaced.append(lb_marks.new)
        try:
            self.finish()
        except (Failure, EngineError) as exc:
            self.warn(str(exc))


class MarkerWrites(Operations):
    """How a service run's ``mark`` reaches the Engine: in the applier's tag lane behind the tag writes of its load
    balancer (``MarkerKind.runs``: ``AFTER_WRITES``), so one tag write at a time. A failed write is recorded, not
    raised: the objects are written, the marker is bookkeeping (``ServiceGuard.finish`` reports it). Not
    ``sequential``: the lane is what sends the marks one at a time (an ``AFTER_WRITES`` action never goes through
    the applier's sequential writes)."""

    def __init__(self, guard):
        self.guard = guard

    def tag(self, applier, action, ident):
        self.guard.write(action)


class Marked:
    """The marker part observes nothing of its own: it writes from what the objects' part read (the tags)."""

    world = {}


class ServiceMarker(Part):
    """The service's marker as a part of its run: after the other parts, the ``mark`` of each load balancer when the
    run writes (``ServiceGuard.marker_actions``), with the placements the parts ask for (``placed()``: the tags of
    what they placed outside the load balancers, the DNS zone of the service's name). A run that writes nothing
    writes no marker; gc (a removal ``anywhere``) removes markers itself.

    ``wrote()``: whether a round of this run wrote already (an interrupted round whose next plan has nothing left to
    write still owes its marker)."""

    key = "marker"

    def __init__(self, guard, objects, placed=None, wrote=lambda: False):
        self.guard = guard
        self.objects = objects   # the service's LBaaS part (_run.ServiceObjects): its load balancers
        self.placed = placed
        self.wrote = wrote

    def observe(self, earlier):
        return Marked()

    def plan(self, state, planned):
        objects = self.objects
        writes = any(not a.kind.bookkeeping for a in planned)
        if objects.anywhere or not (writes or (self.guard.unwritten and self.wrote())):
            return Plan()
        lbaas = objects.state
        marks = [(objects.lbs, objects.declaration.state == "absent")]
        if lbaas.extra_lbs:
            marks.append((list(lbaas.extra_lbs), True))   # the service is gone from there: so is its marker
        return Plan(self.guard.marker_actions(marks, self.placed() if self.placed is not None else None))

    def operations(self, client):
        return {MARKER: MarkerWrites(self.guard)}
