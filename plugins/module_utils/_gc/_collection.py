# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Garbage collection as one part of one run: every owner that carries our tags (or marks our records) but is not in
the live set loses what it owns, in every family, in one plan.

Snapshot first, decide second (docs/garbage-collection.md; whereabouts' ip-reconciler lists its pools before
the pods for the same reason): one observation reads the owners (the account's tag entities with our owner-tag
prefix, the markers and placement tags on every load balancer, and the marks on the records of the zones gc knows of,
``_names``), the load balancers and their tags, and then, for every owner to collect, what it placed, through the
service's own part: its LBaaS objects exactly as the service module would see them when told "absent" on every load
balancer its tag is found on (``ServiceObjects`` with ``ServiceDeclaration.removal``), its address objects, its DNS
records. Any read that fails ends the run there, before the first delete. The decisions (``_plan``: a plan of LBaaS
deletes, DNS record deletes, marker removals and address releases) come from that snapshot only, and what gc leaves
alone of an owner it leaves alone in every family: an owner too young, refused or failed keeps everything; an owner
whose objects stay on a load balancer (leased, outside ``load_balancers``, holding another owner's object) keeps its
names too, which still point at the addresses those objects serve. ``max_delete`` counts every object, address and
record of the plan. Check mode returns the decisions, a real run takes the lease of each load balancer it writes to
(``GcLeases``), observes again if anything changed meanwhile, and deletes through the one ``Applier`` owner by owner
(``_apply``): the names first, the objects children first, then the markers and the addresses once no bind listens
on them. Then it observes again: what it removed must be gone.
"""

import time

from ansible.module_utils.basic import missing_required_lib

from .._addresses._observe import AddressState, binds_using, by_tag
from .._addresses._plan import ADDRESS, RELEASE, in_use_message
from .._addresses._pool import observe as observe_prefixes
from .._addresses._pool import flat, owned, resolve
from .._dns._plan import RRSET
from .._dns._values import has_dnspython
from .._engine._tag_entities import names_like
from .._lbaas._lease import Leases, leases, when
from .._model._failure import Failure
from .._lbaas._lease import default_holder
from .._model._names import check_holder, check_owner, check_tag_prefix
from .._model._ownership import discover, owner_tag, owner_tag_head, resolve_lbs, tag_names
from .._reconcile._plan import DELETE, Action, Plan
from .._reconcile._run import Guard, Part
from .._service._declaration import ServiceDeclaration
from .._service._marker import Marker, placements
from .._service._run import ServiceObjects
from ._kept import kept_counts
from ._live import check_keep, check_not_all, live_set
from ._names import GcZones, check_zones
from ._plan import (
    GcPlan, age_reason, check_cap, marker_removal, over_cap, owner_reason, parse_created, protected, select, skip)


class OwnerSnapshot:
    def __init__(self, owner):
        self.owner = owner
        self.refused = None      # why the owner's removal cannot be planned (a newer collection's marker, ...)
        self.deletes = []        # the LBaaS delete actions of its removal plan
        self.lbs = []            # the load balancers its objects are on
        self.lb_tags = {}        # their tags, as the owner's observation read them
        self.addresses = AddressState([], [])
        self.names = {}          # its DNS records, by rrset (``_names.GcZones.world_of``)

    def records(self):
        """Its DNS records, one entry each (type, name) as ``skipped_items`` lists what stays."""
        return [dict(kind=o["type"], name="%s %s" % (o["name"], r["value"]), id=None) for o in self.names.values()
                for r in o["records"]]


class GcState:
    def __init__(self):
        self.world = {}          # id -> object of an owner collected (LBaaS objects and addresses)
        self.owner_of = {}       # id -> owner
        self.owners = []         # OwnerSnapshot per owner to collect
        self.collect = []
        self.kept = {}           # owner -> number of resources carrying its tag
        self.lbs = {}            # lb id -> {kind, id, name}
        self.lb_tags = {}        # lb id -> tag names
        self.skipped = []        # owners not collectable whatever the plan (invalid names)
        self.zones = None        # the zones read (``_names.GcZones``)


class Collection(Part):
    """gc's one part (see the module): the owners to collect and what each of them placed, in every family."""

    key = "gc"

    def __init__(self, client, request, check_mode, warn, clock=time.time):
        self.client = client
        self.request = request   # a GcRequest (_request)
        self.check_mode = check_mode
        self.warn = warn
        self.clock = clock
        self.result = dict(changed=False, removed=[], kept={}, skipped_items=[], failed_owners=[], keep_unmatched=[],
                           dns_removed=[])
        self.scope = None          # lb ids of load_balancers, when given
        self.prefixes = None       # the prefixes of pools, when given
        self.leases = None         # the leases this run holds (taken before its first write)
        self.leased = None         # lb ids whose lease this run holds (None: not taken yet)
        self.lease_failed = {}     # lb id -> why its lease could not be taken
        self.failed = {}           # owner -> error of its removal
        self.owner_of = {}         # id -> owner, over every observation of the run
        self.decided = None        # the observation the applied (or, in check mode, reported) plan came from
        self.applied = False       # whether a plan was applied (set by the run's applier)
        self.live = None           # the owners alive (keep and keep_new), None with remove only
        self.live_checked = False  # the live set is checked against the first observation only (before any write)
        self.kept = {}             # owner -> its objects, counted once, on their own tags (_gc_kept)
        self.capped = None         # check mode: the number of removals above max_delete (the real run stops there)
        self.zones = []            # dns_zones, normalised (validate)

    # ---- options -------------------------------------------------------------------------------
    def validate(self):
        req = self.request
        check_tag_prefix(req.tag_prefix)
        self.live = live_set(req)
        if self.live is None and not req.remove:
            raise Failure("keep is required unless remove names the owners to remove (or collect_all: true collects "
                          "every owner): gc needs the live set")
        for option in ("keep", "keep_new", "remove"):
            for index, owner in enumerate(getattr(req, option) or []):
                check_owner(owner, "%s[%d]" % (option, index))
        both = sorted(set(self.live or []) & set(req.remove or []))
        if both:
            raise Failure("owners in both keep and remove: %s; an owner is either alive or removed" % ", ".join(both))
        self._check_bounds()
        self.zones = check_zones(req.dns_zones)
        if self.zones and not has_dnspython():   # the records' values are compared with it: said before any request
            raise Failure(missing_required_lib("dnspython") + " (for the option dns_zones)")
        self.holder = check_holder(req.lease_holder) if req.lease_holder else default_holder("gc")

    def prepare(self):
        """Everything before the first observation: the options checked (no request yet), then the pools resolved."""
        self.validate()
        if self.request.pools:
            self.prefixes = resolve(self.client, self.request.pools)

    def _check_bounds(self):
        req = self.request
        for option in ("min_age", "max_delete"):
            if getattr(req, option) is not None and getattr(req, option) < 0:
                raise Failure("%s must not be negative, got %d" % (option, getattr(req, option)))
        if req.lease_timeout < 1:
            raise Failure("lease_timeout must be at least 1 second, got %d" % req.lease_timeout)
        for index, ref in enumerate(req.load_balancers or []):
            if not ref or not str(ref).strip():
                raise Failure("load_balancers[%d] must not be empty" % index)

    def _why_collected(self, owner):
        """Why everything of a collected owner goes (the reason of each of its removals)."""
        return owner_reason(owner, owner in (self.request.remove or []))

    # ---- snapshot ------------------------------------------------------------------------------
    def observe(self, earlier=()):
        req = self.request
        state = GcState()
        names = names_like(self.client, owner_tag_head(req.tag_prefix))
        listing = self._load_balancers(state)
        # an owner is found by its tag entity, its marker or placement on a load balancer, or its mark on a record of
        # the zones gc reads: dns_zones, and those the placements of the owners it may collect name
        tagged, _invalid = discover(names, state.lb_tags, req.tag_prefix)
        state.zones = GcZones(self.client, self.zones, req.tag_prefix).read(
            state.lb_tags, select(tagged, self.live, req.remove or [])[0])
        marked = [owner_tag(owner, req.tag_prefix) for owner in state.zones.owners()]
        valid, invalid = discover(list(names) + marked, state.lb_tags, req.tag_prefix)
        state.skipped.extend(skip(owner, "not an owner id this collection writes (its tag is left alone)") for owner in invalid)
        first = not self.live_checked
        self.live_checked = True
        if first:
            self.result["keep_unmatched"] = check_keep(req, valid, self.warn)
        state.collect, kept = select(valid, self.live, req.remove or [])
        if self.prefixes is not None:
            observe_prefixes(self.client, self.prefixes)
        for owner in state.collect:
            self._add_owner(state, self._owner(owner, listing, state.zones))
        self._count_kept(state, kept)
        if first:
            self._check_not_all(state, kept)
        self.owner_of.update(state.owner_of)
        return state

    def _load_balancers(self, state):
        """Reads the load balancers and their tags into ``state``; returns the listing."""
        listing = self.client.lbaas_list("loadbalancer")
        state.lbs = dict((i["identifier"], {"kind": "loadbalancer", "id": i["identifier"], "name": i.get("name") or i["identifier"]})
                         for i in listing)
        if self.request.load_balancers and self.scope is None:
            self.scope = set(lb["id"] for lb in resolve_lbs(listing, self.request.load_balancers))
        ids = sorted(state.lbs)
        resources = self.client.resource_get_listed(ids)
        for ident in [i for i, r in zip(ids, resources) if r is None]:
            state.lbs.pop(ident)   # deleted since the listing: nothing of anyone's is left on it
        state.lb_tags = dict((i, tag_names(r)) for i, r in zip(ids, resources) if r is not None)
        return listing

    @staticmethod
    def _add_owner(state, snap):
        state.owners.append(snap)
        for action in snap.deletes:
            state.world[action.id] = action.obj
            state.owner_of[action.id] = snap.owner
        for obj in snap.addresses.held + snap.addresses.untagged:
            state.world[obj["id"]] = obj
            state.owner_of[obj["id"]] = snap.owner
        for key, obj in snap.names.items():
            state.world[key] = obj
            state.owner_of[key] = snap.owner
        for lb in snap.lbs:
            if lb["id"] is not None and lb["id"] not in state.lb_tags:
                state.lb_tags[lb["id"]] = snap.lb_tags.get(lb["id"], [])

    def _count_kept(self, state, kept):
        uncounted = [owner for owner in kept if owner not in self.kept]
        if uncounted:   # once per owner and run: gc writes nothing a kept owner's tag is on
            known = dict(state.lb_tags)
            known.update((a.id, a.obj["tags"]) for s in state.owners for a in s.deletes if a.obj.get("confirmed"))
            self.kept.update(kept_counts(self.client, uncounted, self.request.tag_prefix, known))
        state.kept = dict((owner, self.kept[owner]) for owner in kept)

    def _check_not_all(self, state, kept):
        req = self.request
        # owners with something left to remove (a tag entity nothing carries any more is no owner)
        collected = [s.owner for s in state.owners if s.owner not in (req.remove or []) and (
            s.deletes or s.addresses.held or s.addresses.untagged or s.names
            or any(Marker.find(req.tag_prefix, s.owner, tags) for tags in state.lb_tags.values()))]
        check_not_all(req, collected, kept, self.result["keep_unmatched"])

    def _owner(self, owner, listing, zones):
        """What the owner placed, as the service's own part plans its removal, its addresses and its DNS records;
        only reads."""
        req = self.request
        snap = OwnerSnapshot(owner)
        removal = ServiceDeclaration.removal(owner, tag_prefix=req.tag_prefix, lease_timeout=req.lease_timeout,
                                             lease_holder=self.holder, wait_timeout=req.wait_timeout)
        # Not in check mode: gc reports leases itself.
        objects = ServiceObjects(self.client, removal, False, self.warn)
        objects.prepare(lb_listing=listing)
        state = objects.observe()
        snap.lbs = state.all_lbs
        snap.lb_tags = state.lb_tags
        try:
            plan = objects.plan(state)
        except Failure as exc:   # e.g. a newer collection's marker: not ours to judge
            snap.refused = exc.msg
            plan = Plan()
        snap.deletes = [a for a in plan if a.op == DELETE]
        # Containment made children ours without reading their tags: read them now, so that an object that
        # also carries a live owner's tag is seen (the listing-based ones were confirmed by the plan).
        unread = [a.obj for a in snap.deletes if not a.obj.get("confirmed")]
        resources = self.client.resource_get_listed([o["id"] for o in unread])
        gone = set(o["id"] for o, resource in zip(unread, resources) if resource is None)   # deleted since the listing
        snap.deletes = [a for a in snap.deletes if a.obj["id"] not in gone]
        for obj, resource in zip(unread, resources):
            obj["tags"] = tag_names(resource) if resource is not None else []
            obj["confirmed"] = True
        snap.addresses = self._addresses(owner)
        snap.names = zones.world_of(owner)
        return snap

    def _addresses(self, owner):
        req = self.request
        if self.prefixes is None:
            return by_tag(self.client, owner, req.tag_prefix)
        mine, untagged = owned(self.client, self.prefixes, req.tag_prefix, owner)
        held = [flat(pr, ip, s["identifier"], owner) for pr, ip, s in mine]
        loose = [flat(pr, ip, s["identifier"], owner) for pr, ip, s in untagged]
        if req.min_age:
            objs = held + loose
            for obj, resource in zip(objs, self.client.map(self.client.resource_get, [o["id"] for o in objs])):
                obj["created"] = resource.get("created_at")
        return AddressState([pr.id for pr in self.prefixes], held, loose)

    # ---- decisions -----------------------------------------------------------------------------
    def _lb_reason(self, lb, state):
        if lb["id"] is None:
            if self.request.prune_orphans:
                return None
            return ("orphans: their parent is gone, so their load balancer is unknown (no scope to check, no lease to "
                    "take); prune_orphans: true removes them")
        name = lb["name"] or lb["id"]
        if self.scope is not None and lb["id"] not in self.scope:
            return "load balancer %s is outside load_balancers" % name
        if lb["id"] in self.lease_failed:
            return self.lease_failed[lb["id"]]
        now = self.clock()
        live = [lease for lease in leases(self.request.tag_prefix, state.lb_tags.get(lb["id"], []))
                if lease.holder != self.holder and lease.expiry > now]
        if live:
            return ("load balancer %s is leased by %s (until %s): another run is reconciling it; gc leaves it alone "
                    "this time" % (name, live[0].holder, when(live[0].expiry)))
        if self.leased is not None and lb["id"] not in self.leased:
            return "load balancer %s showed up after this run took its leases; the next run collects it" % name
        return None

    def plan(self, state, planned=()):
        req = self.request
        if not self.applied:
            self.decided = state
        actions, skipped = [], list(state.skipped)
        for snap in state.owners:
            why = self._owner_reason(snap, state)
            if why:
                skipped.append(skip(snap.owner, why, objects=[a.obj for a in snap.deletes] + snap.addresses.held
                                    + snap.addresses.untagged + snap.records()))
                continue
            kept_lbs = self._lbaas_removals(snap, state, actions, skipped)
            actions.extend(self._name_removals(snap, state, kept_lbs, skipped))
            actions.extend(self._marker_removals(snap, state, kept_lbs))
            actions.extend(self._releases(snap))
        actions = self._unused_addresses(actions, skipped)
        plan = GcPlan(actions, decision=dict(skipped=skipped, kept=state.kept))
        if self.check_mode:
            self.capped = over_cap(plan, req.max_delete)   # the preview is shown; the real run would stop here
        else:
            check_cap(plan, req.max_delete)
        return plan

    def _name_removals(self, snap, state, kept_lbs, skipped):
        """The owner's DNS records go with the rest of it, and stay where any of its objects stays: they point at the
        addresses those objects serve (what gc leaves alone of an owner, it leaves alone in every family)."""
        if not snap.names:
            return []
        if kept_lbs:
            names = sorted((state.lbs.get(i) or {"name": i or "(unknown load balancer)"})["name"] or i
                           for i in kept_lbs)
            skipped.append(skip(snap.owner, "its DNS names stay with its objects on %s, which stay" % ", ".join(names),
                                objects=snap.records()))
            return []
        return state.zones.deletes(snap.names, snap.owner, self._why_collected(snap.owner))

    def operations(self, client):
        """Made only when a real run writes: a check-mode run, or one with nothing to collect, never imports the write
        code (_gc/_apply, _dns/_apply), which a module would compile again on every run."""
        from .._dns._apply import RrsetOperations
        from ._apply import gc_operations
        self.applied = True
        operations = gc_operations(client, self.warn)
        operations[RRSET.name] = RrsetOperations(client, wait=True, timeout=self.request.wait_timeout)
        return operations

    def _owner_reason(self, snap, state):
        """Why none of the owner's objects goes (refused, failed earlier, too young), or None."""
        prefix = self.request.tag_prefix
        if snap.refused:
            return snap.refused
        if snap.owner in self.failed:
            return "its removal failed earlier in this run: %s" % self.failed[snap.owner]
        stamps = [m.stamp for tags in state.lb_tags.values() for m in Marker.find(prefix, snap.owner, tags)]
        stamps += [parse_created(o.get("created")) for o in snap.addresses.held + snap.addresses.untagged]
        return age_reason(self.clock(), stamps, self.request.min_age)

    def _lbaas_removals(self, snap, state, actions, skipped):
        """Adds the owner's LBaaS deletes per load balancer that may go; returns the lb ids whose stay."""
        kept_lbs = set()
        by_lb = {}
        for action in snap.deletes:
            by_lb.setdefault((action.lb or {}).get("id"), []).append(action)
        for lb_id in sorted(by_lb, key=lambda i: (i is None, i or "")):
            group = by_lb[lb_id]
            why = self._lb_reason(group[0].lb, state) or self._protected_reason(snap.owner, group, state)
            if why:
                kept_lbs.add(lb_id)
                skipped.append(skip(snap.owner, why, load_balancer=group[0].lb["name"], objects=[a.obj for a in group]))
                continue
            reason = self._why_collected(snap.owner)
            for action in group:
                action.owner = snap.owner
                action.reason = reason   # the service planner's "not part of the service" says nothing of why here
                actions.append(action)
        return kept_lbs

    def _protected_reason(self, owner, group, state):
        live = protected([a.obj for a in group], set(state.collect), self.request.tag_prefix)
        if not live:
            return None
        first, lb = live[0], group[0].lb
        return ("%s '%s' (%s) also carries the owner tag of an owner that is not collected; %s's objects on "
                "load balancer %s stay" % (first["kind"], first["name"], first["id"], owner, lb["name"] or lb["id"]))

    def _marker_removals(self, snap, state, kept_lbs):
        out = []
        for lb_id, tags in sorted(state.lb_tags.items()):
            lb = state.lbs.get(lb_id) or {"kind": "loadbalancer", "id": lb_id, "name": lb_id}
            # its marker, and its placement tags (what it placed goes with it: its names, planned before)
            found = [m.name for m in Marker.find(self.request.tag_prefix, snap.owner, tags)]
            found += [tag for _family, _where, tag in placements(self.request.tag_prefix, snap.owner, tags)]
            for name in found:
                if lb_id not in kept_lbs and self._lb_reason(lb, state) is None:
                    out.append(marker_removal(lb, name, snap.owner, self._why_collected(snap.owner)))
        return out

    def _releases(self, snap):
        reason = self._why_collected(snap.owner)
        return [Action(RELEASE, ADDRESS, obj, reason=reason, owner=snap.owner)
                for obj in snap.addresses.held + snap.addresses.untagged]

    def _unused_addresses(self, actions, skipped):
        """Drops releases of addresses a bind still listens on that this plan does not delete."""
        releases = [a for a in actions if a.kind.name == "address"]
        if not releases:
            return actions
        deleting = set(a.id for a in actions if a.kind.name == "bind")
        users = binds_using(self.client, sorted(set(a.obj["address"] for a in releases)))
        out = []
        for action in actions:
            binds = [b for b in users.get(action.obj.get("address"), []) if b["id"] not in deleting] \
                if action.kind.name == "address" else []
            if binds:
                skipped.append(skip(action.owner, in_use_message(action.obj["address"], binds), prefix=action.obj["prefix"],
                                    objects=[action.obj]))
                continue
            out.append(action)
        return out

    # ---- writing -------------------------------------------------------------------------------
    def before_apply(self, state, plan):
        """Takes the lease of every load balancer the plan writes to, one by one: a load balancer whose lease
        another run took meanwhile is left out (the plan is made again). True: observe and plan again."""
        lbs = []
        for action in plan:
            lb = action.lb
            if lb and lb.get("id") and lb["id"] not in [x["id"] for x in lbs]:
                lbs.append(lb)
        self.leases = Leases(self.client, self.request.tag_prefix, self.holder, self.request.lease_timeout,
                             self._tags_of, warn=self.warn)
        failed = self.leases.acquire_each(lbs, state.lb_tags)
        self.lease_failed.update(failed)
        self.leased = set(lb["id"] for lb, _lease in self.leases.held)
        # another run wrote there after the snapshot, or a crashed run's lease was taken over: decide again
        return bool(failed) or bool(self.leases.taken_over) or self.leases.changed(lbs, state.lb_tags)

    def _tags_of(self, lb_id):
        return tag_names(self.client.resource_get(lb_id))

    def release(self):
        if self.leases is not None:
            self.leases.warn_left(self.leases.release())


class GcLeases(Guard):
    """gc's guard in its run: the leases of the load balancers its plan writes to, released at the end either way."""

    def __init__(self, collection):
        self.collection = collection

    def before_apply(self, state, plan):
        return self.collection.before_apply(state.of(self.collection), plan)

    def end(self, outcome):
        self.collection.release()

    def abandon(self):
        self.collection.release()
