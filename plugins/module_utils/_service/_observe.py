# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Observing one service: every load balancer it is declared on, and every one its owner tag is found on.

Identity is scoped by load balancer: an object belongs to the load balancer (and the parent) it is on.
One owner-tag listing for the whole service (the cloud controller lists again per load balancer: quadratic); per declared load balancer, its own
tags, its backend and frontend listings, the details of what is ours or carries a desired name, and
every child of those parents (details: the listing's own entries where the Engine lists whole objects, else a GET
each, _engine/_listings.py; listed per parent, or once for all of them where the Engine lists whole objects and the
account's listing is short, ``children_by_parent``) (a child of our parent is ours, tagged or not: a create whose tag
write failed must not leak). Objects carrying the owner tag that no declared load balancer holds are located (their
load balancer read from the object or its parent) and that load balancer is observed too, so the plan
can clean it; they are never matched against same-named objects elsewhere.

The tag listing is not trusted as exact (docs/engine-api-facts.md, "Tag listings"): an object it returned has
``listed`` set and ``confirmed`` unset until ``confirm()`` read its own tags, which the run does only
for objects it is about to write to.
"""

from .._engine._errors import gone_as_none
from .._engine._listings import children_by_parent, listed_objects
from .._lbaas._containment import child_is_ours, frontends_using, is_child
from .._lbaas._views import tag_names
from .._model._kinds import KINDS
from .._model._ownership import foreign_tags, resolve_lbs
from ._marker import Marker
from ._desired import Desired
from ._managed import CHILDREN, PARENT_NAMES
from ._observed import Observed

TYPE_BY_RESOURCE = dict((k.resource_type, k.name) for k in KINDS.values() if k.resource_type)
# Parents (PARENT_NAMES: backends, frontends) and the children found through them (CHILDREN: ownership by
# containment), as the kinds declare them (_managed); a frontend's ACLs and rules are the allow_sources of
# the service (they are removed with it, and the Engine keeps a frontend that has some).
UNKNOWN_LB = {"kind": "loadbalancer", "id": None, "name": "(unknown load balancer)"}


class ServiceState:
    def __init__(self, lbs, observed, lb_tags=None, extra_lbs=(), tagged_other=()):
        self.lbs = lbs                    # declared load balancers, in the order the user gave them
        self.extra_lbs = list(extra_lbs)  # load balancers holding objects of ours the service no longer names
        self.observed = observed          # lb id -> Observed (None: objects whose load balancer is unknown)
        self.lb_tags = lb_tags or {}      # lb id -> its tag names (leases and markers live there)
        # identifiers of the resources carrying the owner tag exactly that are no LBaaS object (IP addresses, ...):
        # read anyway while locating what the declared load balancers do not hold (_locate)
        self.tagged_other = sorted(str(i) for i in tagged_other)
        self.world = {}
        for lb_id, obs in observed.items():
            for obj in obs.objects():
                obj["lb"] = lb_id
                self.world[obj["id"]] = obj

    @property
    def all_lbs(self):
        """Every load balancer the plan touches, declared first; objects of unknown place last."""
        out = list(self.lbs) + list(self.extra_lbs)
        if None in self.observed:
            out.append(UNKNOWN_LB)
        return out


class ServiceObserver:
    def __init__(self, client, desired, tag, prefix):
        self.client = client
        self.desired = desired
        self.tag = tag
        self.prefix = prefix
        # the service and declaration hash whose markers tell which frontends surely hold no allow-list of
        # ours (vouched_by); None (service_info, gc): no marker vouches, every frontend's ACLs and rules are listed
        self.service = self.digest = None
        self.lb_tags = {}
        self.lb_listing = []
        self.listings = {}        # lb id -> frontend listing, reused for conflict detection
        self.children_seen = {}   # id of another owner's parent -> its children as read, for conflict detection
        self.state = None         # the last observation, so a confirmation can drop what is gone from it
        self.tagged_other = []    # of the last observation: the tagged resources _locate found to be no LBaaS object

    @classmethod
    def anywhere(cls, client, owner, lb_listing):
        """An observer of everything ``owner`` (``_model._ownership.Owner``) holds, with no load balancer declared:
        wherever its tag is found, and what sits under its backends and frontends (``service_info``, ``gc``).
        ``lb_listing`` (one listing for all owners) names the load balancers found."""
        observer = cls(client, Desired(), owner.tag, owner.prefix)
        observer.lb_listing = lb_listing
        return observer

    def resolve(self, refs, gone=None):
        """The load balancers by name or id, from one listing (kept to name the ones found later).
        ``gone`` (a list, state absent): a missing one is appended there as (index, ref), not a failure."""
        listing = self.lb_listing = self.client.lbaas_list("loadbalancer")
        return resolve_lbs(listing, refs, gone=gone)

    # ---- reading -------------------------------------------------------------------------------
    def _flat(self, kind, raw, listed):
        obj = KINDS[kind].from_engine(raw)
        obj["listed"] = obj["id"] in listed
        obj["confirmed"] = False
        # Our tag as the listing says; an object outside the listing surely lacks it. Other owners'
        # tags are read only where a plan needs them (candidates with a desired name).
        obj["tags"] = [self.tag] if obj["listed"] else []
        return obj

    def _details(self, kind, entries, listed):
        """The flat objects of listing ``entries`` of ``kind``: the entries themselves where whole, else read."""
        return [self._flat(kind, raw, listed) for raw in listed_objects(self.client, KINDS[kind], entries)]

    def _read_tags(self, objs):
        """Exact tags of objects whose ownership a plan depends on (unlisted candidates, confirmations)."""
        resources = self.client.resource_get_listed([o["id"] for o in objs])
        for obj, resource in zip(objs, resources):
            obj["tags"] = tag_names(resource) if resource is not None else []
            obj["confirmed"] = True
            if resource is None:
                obj["gone"] = True   # deleted since it was read: nothing to write to

    def _listings(self, lb):
        """The load balancer's backend and frontend listings."""
        return self.client.map(lambda kind: self.client.lbaas_list(kind, load_balancer=lb["id"]), PARENT_NAMES)

    def _picked(self, listings, listed, declared):
        """kind -> listing entries of the parents to read: ours as the tag listing says, and those with a desired name."""
        by_kind = self.desired.by_kind
        wanted = dict((kind, set(o["name"] for o in by_kind[kind].values()) if declared else set()) for kind in PARENT_NAMES)
        return dict((kind, [i for i in listing if i["identifier"] in listed or i.get("name") in wanted[kind]])
                    for kind, listing in zip(PARENT_NAMES, listings))

    def _job(self, job, listed):
        what, kind, arg = job
        if what == "details":
            return self._details(kind, arg, listed)
        if what == "tags":
            return dict(zip(arg, self.client.resource_get_listed(arg)))
        parent_kind, parents = arg
        return self._children(kind, parent_kind, parents, listed)

    def _children(self, child, parent_kind, parents, listed):
        """``[(parent id, its children of kind child, read)]`` for the ``parents`` (listing entries): one listing of
        the whole account where that spares requests (``children_by_parent``), else a listing per parent, each one's
        details as soon as it arrives. Either way each parent gets exactly what its own listing answers."""
        spec = KINDS[child]
        ids = [entry["identifier"] for entry in parents]
        grouped = children_by_parent(self.client, spec, KINDS[parent_kind], parents,
                                     expected=len(self.desired.by_kind.get(child, ())))
        if grouped is None:
            return list(zip(ids, self.client.map(
                lambda i: self._details(child, self.client.lbaas_list(child, **{spec.parent: i}), listed), ids)))
        # The details of all parents' children at once (GETs of entries lacking a field go out together), then
        # each back to the parent whose group it came from, as its own listing would have placed it.
        parent_of = dict((entry["identifier"], i) for i in ids for entry in grouped[i])
        found = dict((i, []) for i in ids)
        for obj in self._details(child, [entry for i in ids for entry in grouped[i]], listed):
            found[parent_of[obj["id"]]].append(obj)
        return [(i, found[i]) for i in ids]

    @staticmethod
    def _parents(details, resources):
        """The parents read, without those deleted since the listing, with the tags read for those outside it."""
        gone = set(i for i, resource in resources.items() if resource is None)
        tags = dict((i, tag_names(resource)) for i, resource in resources.items() if resource is not None)
        parents = dict((kind, [o for o in objs if o["id"] not in gone]) for kind, objs in zip(PARENT_NAMES, details))
        for obj in [o for objs in parents.values() for o in objs]:
            if obj["id"] in tags:
                obj["tags"] = tags[obj["id"]]
                obj["confirmed"] = True
        return parents

    def _one_lb(self, lb, listings, listed, declared):
        """Parents that are ours or carry a desired name (declared load balancers only), and all their children.

        Everything that depends only on the listings goes out at once and each child listing's details
        follow as soon as it arrives (nested maps share the client's pool): the details of the parents,
        the tags of the parents outside the owner-tag listing (an untagged one may be adopted, another
        owner's never) and the child listings of every such parent (``_children``): binds and servers are found through
        their parents (ownership by containment: they carry no owner tag). Children of a parent that turns
        out to be another owner's are kept aside, for conflict detection only (kinds declaring ``conflicts_by``).
        """
        self.listings[lb["id"]] = dict(zip(PARENT_NAMES, listings))
        picked = self._picked(listings, listed, declared)
        jobs = [("details", kind, picked[kind]) for kind in PARENT_NAMES]
        jobs += [("tags", kind, [i["identifier"] for i in picked[kind] if i["identifier"] not in listed]) for kind in PARENT_NAMES]
        jobs += self._child_jobs(lb, listings, picked, declared)
        results = self.client.map(lambda job: self._job(job, listed), jobs)
        count = len(PARENT_NAMES)
        tags = {}
        for found in results[count:2 * count]:
            tags.update(found)
        objects = self._parents(results[:count], tags)
        foreign = set(o["id"] for kind in objects for o in objects[kind] if foreign_tags(o.get("tags"), self.tag))
        children = [(child, parent_id, found) for (_what, child, _arg), pairs in zip(jobs[2 * count:], results[2 * count:])
                    for parent_id, found in pairs]
        for child, parent_id, found in children:
            if parent_id not in foreign:
                objects.setdefault(child, []).extend(found)
            elif KINDS[child].conflicts_by:   # another owner's: for conflict detection only
                self.children_seen.setdefault(parent_id, []).extend(found)
        return Observed(lb, objects, untagged_named=self._untagged_named(listings, picked))

    def vouched_by(self, service, digest):
        """The markers of ``service`` may spare listings when written for ``digest`` (its declaration's hash,
        computed once by the run's guard) or for a declaration without allow-lists."""
        self.service, self.digest = service, digest

    def _child_jobs(self, lb, listings, picked, declared):
        """A job per child kind of the parents read, listing their children (``_children``); no ACL and rule
        listings for closed frontends."""
        closed = self._closed_frontends(lb["id"], self.listings[lb["id"]]["frontend"]) if declared else set()
        jobs = []
        for kind in PARENT_NAMES:
            for child in CHILDREN[kind]:
                parents = [entry for entry in picked[kind] if not (entry["identifier"] in closed and child.access_control)]
                if parents:
                    jobs.append(("children", child.name, (kind, parents)))
        return jobs

    def _closed_frontends(self, lb_id, frontend_listing):
        """Frontends of ports that declare no allow-list and, as this load balancer's marker says, had none at
        the service's last writing run either: that run deleted the ACLs and rules it found there, so they are
        not listed again (two listings per port saved on every run of a service without allow_sources). The
        marker vouches when it was written for this very declaration, or says its declaration had no
        allow-list at all ("open"). It is written only after a run's whole plan succeeded; a run it cannot
        vouch for lists them (so the first run after allow_sources went lists and deletes them).

        The skip never hides a rule that voids an allow-list (_bypasses): a port that declares one is never
        closed, so its frontend's ACLs and rules are listed on every run, also those another owner added since
        the marker was written; a port without one has no allow-list to void."""
        if self.digest is None:
            return set()
        markers = Marker.find(self.prefix, self.service, self.lb_tags.get(lb_id, ()))
        if not markers or not all(m.digest == self.digest or m.open for m in markers):
            return set()
        d = self.desired
        guarded = set(port for kind, objs in d.by_kind.items() if KINDS[kind].access_control for port, _name in objs)
        names = set(f["name"] for port, f in d.by_kind["frontend"].items() if port not in guarded)
        return set(i["identifier"] for i in frontend_listing if i.get("name") in names)

    def _untagged_named(self, listings, picked):
        """Parents named in the service's scheme that observation did not read (neither ours nor wanted)."""
        read = set(i["identifier"] for entries in picked.values() for i in entries)
        return [{"kind": kind, "id": i["identifier"], "name": i.get("name")}
                for kind, listing in zip(PARENT_NAMES, listings)
                for i in listing if i["identifier"] not in read and self.desired.names_a_parent(i.get("name"))]

    def observe(self, lbs):
        """One observation. The owner-tag listing, the load balancers' own tags and their listings go
        out together; the load balancers' tags are read before any object (with the first reads), so a
        run that wrote after them shows in its marker when the lease is taken (_service_guard)."""
        client = self.client
        self.children_seen = {}
        jobs = [("tagged", None)] + [("lb tags", lb) for lb in lbs] + [("listings", lb) for lb in lbs]

        def first(job):
            what, lb = job
            if what == "tagged":
                return set(r["identifier"] for r in client.resources_by_tag(self.tag))
            if what == "lb tags":
                return tag_names(client.resource_get(lb["id"]))
            return self._listings(lb)
        results = client.map(first, jobs)
        listed = results[0]
        lb_tags = self.lb_tags = dict(zip([lb["id"] for lb in lbs], results[1:1 + len(lbs)]))
        listings = results[1 + len(lbs):]
        observed = dict(zip([lb["id"] for lb in lbs],
                            client.map(lambda item: self._one_lb(item[0], item[1], listed, True), zip(lbs, listings))))
        extra = []
        self.tagged_other = []
        unseen = listed - _seen(observed)
        if unseen:
            located = self._locate(sorted(unseen), listed)
            extra = [self._lb(lb_id) for lb_id in sorted(located, key=lambda i: (i is None, i or ""))
                     if lb_id is not None and lb_id not in observed]
            found = client.map(lambda lb: (tag_names(client.resource_get(lb["id"])),
                                           self._one_lb(lb, self._listings(lb), listed, False)), extra)
            for lb, (tags, obs) in zip(extra, found):
                observed[lb["id"]] = obs
                lb_tags[lb["id"]] = tags   # leases and markers live there too
            seen = _seen(observed)
            for lb_id, objs in located.items():
                for obj in objs:
                    if obj["id"] not in seen:
                        target = observed.setdefault(lb_id, Observed(UNKNOWN_LB if lb_id is None else self._lb(lb_id)))
                        target.by_kind[obj["kind"]].append(obj)
        self.state = ServiceState(lbs, observed, lb_tags, extra, self.tagged_other)
        return self.state

    def _lb(self, lb_id):
        names = dict((i["identifier"], i.get("name")) for i in self.lb_listing)
        return {"kind": "loadbalancer", "id": lb_id, "name": names.get(lb_id) or lb_id}

    def _locate(self, ids, listed):
        """Objects carrying our tag outside the declared load balancers' parents: lb id -> objects.

        A backend or frontend names its load balancer; a bind or server names its parent, whose load
        balancer is read (once per parent). Objects whose parent is gone file under None: ours to remove.
        """
        found, other = _by_type(self.client.resource_get_listed(ids), self.tag)
        self.tagged_other.extend(other)
        raws = self.client.map(lambda item: gone_as_none(lambda i: self.client.lbaas_get(item[0], i))(item[1]), found)
        objs = [self._flat(kind, raw, listed) for (kind, _i), raw in zip(found, raws) if raw is not None]
        parent_ids = sorted(set((KINDS[o["kind"]].parent_kind, o[KINDS[o["kind"]].parent]) for o in objs
                                if is_child(o["kind"]) and o.get(KINDS[o["kind"]].parent)))
        parents = dict(zip([i for _k, i in parent_ids], self.client.map(
            lambda item: gone_as_none(lambda i: self.client.lbaas_get(item[0], i))(item[1]), parent_ids)))
        out = {}
        for obj in objs:
            spec = KINDS[obj["kind"]]
            if spec.parent == "load_balancer":
                lb_id = obj.get("load_balancer")
            else:
                parent = parents.get(obj.get(spec.parent))
                lb_id = KINDS[spec.parent_kind].from_engine(parent).get("load_balancer") if parent else None
            out.setdefault(lb_id, []).append(obj)
        return out

    def confirm(self, objs):
        """Reads the exact tags of ``objs`` before the run writes to them: those found through the tag listing
        (returned when they lack our tag), and children made ours by containment (a foreign owner tag on one
        makes it not ours)."""
        todo = [o for o in objs if not o.get("confirmed")]
        self._read_tags(todo)
        gone = set(o["id"] for o in todo if o.get("gone"))
        if gone and self.state is not None:   # the next plan of this observation no longer sees them
            self._forget(gone)
        return [o for o in todo if o.get("listed") and self.tag not in o["tags"] and o["id"] not in gone]

    def _forget(self, gone):
        for obs in self.state.observed.values():
            for kind, objs in obs.by_kind.items():
                obs.by_kind[kind] = [o for o in objs if o["id"] not in gone]
        for ident in gone:
            self.state.world.pop(ident, None)

    def frontends_using(self, obs, backend_ids, ours):
        """Frontends on the load balancer outside ``ours`` whose default backend is one of ``backend_ids``
        (the Engine refuses to delete a backend one points at). The frontends observation read are
        reused; the rest of the listing is read now, which a run does only when a backend is to go."""
        known = dict((f["id"], f) for f in obs.by_kind["frontend"])
        rest = [i for i in self.listings.get(obs.lb["id"], {}).get("frontend", []) if i["identifier"] not in known]
        found = list(known.values()) + [KINDS["frontend"].from_engine(raw)
                                        for raw in listed_objects(self.client, KINDS["frontend"], rest)]
        return frontends_using([f for f in found if f["id"] not in ours], backend_ids)

    def foreign_binds(self, lb, ours, wanted=None):
        """Binds on the load balancer outside our frontends that hold one of the ``wanted`` (address,
        port) pairs (every pair when None), with their tags (for conflict detection).

        What the observation read is reused (binds of another owner's frontend it looked at); the
        other frontends' binds are listed and read now. Tags are read only for binds on a wanted
        pair and for their frontends: they name the holder (a bind's own owner tag, else its
        frontend's: containment), and confirm that a bind the owner-tag listing showed is ours.
        """
        binds = self._binds_outside(lb, ours)
        if wanted is not None:
            wanted = set(wanted)
            binds = [b for b in binds if (b.get("address"), b.get("port")) in wanted]
        # A bind carries no owner tag of its own (containment): its frontend's names the holder.
        ids = sorted(set([b["id"] for b in binds] + [b["frontend"] for b in binds if b.get("frontend")]))
        tags = dict((r["identifier"], tag_names(r)) for r in self.client.resource_get_listed(ids) if r is not None)
        binds = [b for b in binds if b["id"] in tags]   # a bind deleted since the listing holds nothing
        for bind in binds:
            bind["tags"] = tags[bind["id"]]
            bind["parent_tags"] = tags.get(bind.get("frontend"), [])
        return [b for b in binds if not child_is_ours(b, {"tags": b["parent_tags"]}, self.tag)]

    def _binds_outside(self, lb, ours):
        """Every bind of the load balancer's frontends outside ``ours``: those observation read, and the rest now."""
        client = self.client
        frontends = [i for i in self.listings.get(lb["id"], {}).get("frontend", []) if i["identifier"] not in ours]
        known = [f["identifier"] for f in frontends if f["identifier"] in self.children_seen]
        rest = [f for f in frontends if f["identifier"] not in self.children_seen]
        # one listing of the account's binds where it spares requests (as observation's), else one per frontend
        grouped = children_by_parent(client, KINDS["bind"], KINDS["frontend"], rest)
        if grouped is not None:
            listings = [grouped[f["identifier"]] for f in rest]
        else:
            listings = client.map(lambda f: client.lbaas_list("bind", frontend=f["identifier"]), rest)
        binds = [KINDS["bind"].from_engine(o) for o in listed_objects(client, KINDS["bind"], [i for listing in listings for i in listing])]
        return binds + [dict(b) for f in known for b in self.children_seen[f]]


def _by_type(resources, tag):
    """``([(kind, id)] of the LBaaS objects, [id] of the others carrying ``tag`` exactly)`` of the resources read
    (None: gone). An IP address or anything else carrying the tag is no LBaaS object: kept for the result
    (``tagged_other``), as the ip_address module's release by the owner tag would consider it."""
    found, other = [], []
    for resource in resources:
        kind = resource and TYPE_BY_RESOURCE.get((resource.get("resource_type") or {}).get("identifier"))
        if kind is not None:
            found.append((kind, resource["identifier"]))
        elif resource is not None and tag in tag_names(resource):
            other.append(resource["identifier"])
    return found, other


def _seen(observed):
    return set(o["id"] for obs in observed.values() for o in obs.objects())
