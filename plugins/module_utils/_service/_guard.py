# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What guards a service run's writes: the lease on its load balancers and the marker it leaves.

Reading is free of both: a no-op run takes no lease and writes no marker, so it sends no mutating
request. A run about to write takes the leases; if the load balancers' tags then differ from what
it observed (another run's marker changed, or a crashed run's lease was taken over), another run
wrote in between, and it observes again before writing. Every writing run of this module changes
its marker, so that comparison costs one read per load balancer instead of a second observation.

A marker write that fails after the plan was applied leaves the run changed (the objects were written)
and says what it means (``_marker.marker_outcome``): the next writing run writes the marker again.

What the guard leaves behind is bounded: a released lease's tag entity is deleted (``_lease``), and
so is a replaced marker's once no load balancer carries it; a failure to delete one is a warning.
"""

from .._engine._errors import EngineError, RateLimitedError
from .._model._failure import Failure
from .._model._ownership import tag_names
from .._lbaas._lease import Leases, default_holder
from ._marker import (
    LbMarks, Marker, declaration_hash, marker_outcome, refuse_newer)
from .._model._names import check_holder, check_owner, check_tag_prefix
from .._engine._tag_entities import (
    delete_found, forget, lookup, still_carried)


class ServiceGuard:
    def __init__(self, client, params, desired, warn):
        self.client = client
        self.prefix = check_tag_prefix(params["tag_prefix"])
        self.service = check_owner(params["name"], "name")
        holder = params.get("lease_holder")
        holder = check_holder(holder) if holder is not None else default_holder(self.service)
        self.digest = declaration_hash(desired.as_data())
        self.open = not desired.controls_access()   # the marker says whether this declaration has allow-lists
        self.warn = warn
        self.lb_tags = {}
        self.leases = Leases(client, self.prefix, holder, params["lease_timeout"], self.tags_of, warn=warn)

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
        """Takes the leases; True when another run wrote meanwhile (observe and plan again)."""
        taken_over = self.leases.acquire(state.lbs, state.lb_tags)
        return taken_over or self.leases.changed(state.lbs, state.lb_tags)

    def mark(self, lbs, absent=False):
        """Records on each load balancer which declaration this run applied (or removes it: absent),
        then deletes the tag entities of the markers it replaced that no load balancer carries now."""
        self.finish([(lbs, absent)], release=False)

    def _marker_writes(self, marks):
        """The ``LbMarks`` of ``marks`` ([(lbs, absent)]) and the marker names they replace."""
        out, replaced = [], []
        for lbs, absent in marks:
            found = dict((lb["id"], Marker.find(self.prefix, self.service, self.lb_tags.get(lb["id"], []))) for lb in lbs)
            newest = max([m.stamp for markers in found.values() for m in markers] or [0])
            ours = Marker.ours(self.prefix, self.service, self.digest, after=newest, open_=self.open)
            for lb in lbs:
                olds = [old.name for old in found[lb["id"]]]
                out.append(LbMarks(lb, None if absent else ours.name, olds))
                replaced.extend(name for name in olds if name not in replaced)
        return out, replaced

    def finish(self, marks, release=True):
        """The end of a run: the markers of ``marks`` ([(lbs, absent)], see ``mark``), then the release
        of the leases, overlapped: while the tag writes go one after another (markers first, so a run
        that takes the lease next sees them), the tag entities to delete are looked up; then the
        released leases' entities and the replaced markers' (once no load balancer carries them) are
        deleted together.

        A marker write that fails does not stop the others (``LbMarks``) and does not undo what the run
        wrote: the objects are converged, the marker is bookkeeping. It is a warning (``marker_outcome``),
        unless a replaced marker is left alone on a load balancer (a ``Failure``, raised once the leases
        are released) or the Engine rate-limited the run (that error, raised likewise)."""
        writes, replaced = self._marker_writes(marks)
        leases = [lease for _lb, lease in self.leases.held] if release else []
        released = {}

        def write_all():
            try:
                for lb_marks in writes:
                    lb_marks.write(self.client)
            finally:
                if release:
                    released["removed"], released["left"] = self.leases.remove_tags()

        def look(name):
            try:
                return lookup(self.client, name)
            except EngineError:
                return None   # looked up again when deleting
        names = [lease.name for lease in leases] + replaced
        results = self.client.map(lambda job: write_all() if job is None else look(job), [None] + names)
        limited = [exc for m in writes for _n, _a, exc in m.failed if isinstance(exc, RateLimitedError)]
        stays = set(name for m in writes for name in m.not_removed())
        markers = [] if limited else [n for n in replaced if n not in stays]
        self._settle(released.get("removed", []), markers, dict(zip(names, results[1:])))
        if release:
            self.leases.warn_left(released.get("left", []))
        if limited:
            raise limited[0]
        self._report(writes)

    def _settle(self, leases, markers, found):
        """Deletes the tag entities of the released ``leases`` and of the replaced ``markers`` no load
        balancer carries now (``found``: name -> the entities looked up already)."""
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

    def _forget(self, name, found=None):
        """Deletes a replaced marker's tag entity once no load balancer carries it (``found``: the
        entities as looked up already, None: look them up now)."""
        try:
            if found is None:
                forget(self.client, name)
            elif not still_carried(self.client, name):
                delete_found(self.client, found)
        except EngineError as exc:
            self.warn("the tag '%s' could not be deleted from the account (%s); it is no longer on any load balancer "
                      "of this service and can be deleted by hand" % (name, exc))

    def release(self):
        self.leases.warn_left(self.leases.release())
