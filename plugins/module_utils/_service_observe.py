# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

"""Observing one service on its load balancers: one pass, partitioned by load balancer.

One owner-tag listing for the whole service (not one per load balancer: the cloud controller's
cost grows with the square of the load balancers, RECONCILIATION F8), then per load balancer,
concurrently, the backend and frontend listings and the details of only what is ours or carries a
desired name. What else listens on a load balancer is read only when a plan would create or move a
bind (``foreign_binds``), so a no-op run does not pay for conflict detection.
"""

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine_errors import NotFoundError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._info import tag_names
from ansible_collections.anxcloud.lbaas.plugins.module_utils._objects import KINDS, looks_like_id
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service_plan import Observed

TYPE_BY_RESOURCE = dict((k.resource_type, k.name) for k in KINDS.values() if k.resource_type)


class ServiceState(object):
    def __init__(self, lbs, observed, lb_tags=None):
        self.lbs = lbs                    # flat load balancers, in the order the user gave them
        self.observed = observed          # lb id -> Observed
        self.lb_tags = lb_tags or {}      # lb id -> its tag names (leases and markers live there)
        self.world = {}
        for obs in observed.values():
            for obj in obs.objects():
                self.world[obj["id"]] = obj


class ServiceObserver(object):
    def __init__(self, client, desired, tag, prefix):
        self.client = client
        self.desired = desired
        self.tag = tag
        self.prefix = prefix
        self.listings = {}   # lb id -> frontend listing, reused for conflict detection

    def resolve(self, refs):
        """The load balancers by name or id, from one listing."""
        listing = self.client.lbaas_list("loadbalancer")
        found = []
        for index, ref in enumerate(refs):
            matches = [i for i in listing if i["identifier"] == ref] if looks_like_id(ref) else []
            matches = matches or [i for i in listing if i.get("name") == ref]
            if not matches:
                raise Failure("load_balancers[%d]: no load balancer named '%s' exists" % (index, ref))
            if len(matches) > 1:
                raise Failure("load_balancers[%d]: %d load balancers are named '%s' (ids %s); give the id"
                              % (index, len(matches), ref, ", ".join(sorted(m["identifier"] for m in matches))))
            lb = {"kind": "loadbalancer", "id": matches[0]["identifier"], "name": matches[0].get("name")}
            if lb["id"] not in [l["id"] for l in found]:
                found.append(lb)
        return found

    def _details(self, kind, ids, owned):
        objs = [KINDS[kind].from_engine(o) for o in self.client.lbaas_get_many(kind, ids)]
        unowned = [o for o in objs if o["id"] not in owned]
        # A candidate without our tag may carry another owner's: read its tags (rare).
        tags = dict((r["identifier"], tag_names(r)) for r in self.client.map(self.client.resource_get,
                                                                             [o["id"] for o in unowned]))
        for obj in objs:
            obj["tags"] = [self.tag] if obj["id"] in owned else tags.get(obj["id"], [])
        return objs

    def _children(self, kind, parents, names, owned):
        spec = KINDS[kind]
        listings = self.client.map(lambda p: self.client.lbaas_list(kind, **{spec.parent: p["id"]}), parents)
        ids = [i["identifier"] for listing in listings for i in listing if i["identifier"] in owned or i.get("name") in names]
        return self._details(kind, ids, owned)

    def _one_lb(self, lb, owned):
        d = self.desired
        client = self.client
        backends_listing = client.lbaas_list("backend", load_balancer=lb["id"])
        frontends_listing = client.lbaas_list("frontend", load_balancer=lb["id"])
        self.listings[lb["id"]] = frontends_listing
        names = set(b["name"] for b in d.backends.values())
        backends = self._details("backend", [i["identifier"] for i in backends_listing
                                             if i["identifier"] in owned or i.get("name") in names], owned)
        names = set(f["name"] for f in d.frontends.values())
        frontends = self._details("frontend", [i["identifier"] for i in frontends_listing
                                               if i["identifier"] in owned or i.get("name") in names], owned)
        servers = self._children("server", backends, set(s["name"] for s in d.servers.values()), owned)
        binds = self._children("bind", frontends, set(b["name"] for b in d.binds.values()), owned)
        return Observed(lb, backends, frontends, binds, servers), tag_names(client.resource_get(lb["id"]))

    def observe(self, lbs):
        owned = set(r["identifier"] for r in self.client.resources_by_tag(self.tag))
        per_lb = self.client.map(lambda lb: self._one_lb(lb, owned), lbs)
        observed = dict((lb["id"], obs) for lb, (obs, _tags) in zip(lbs, per_lb))
        self._orphans(owned, lbs, observed)
        return ServiceState(lbs, observed, dict((lb["id"], tags) for lb, (_obs, tags) in zip(lbs, per_lb)))

    def _orphans(self, owned, lbs, observed):
        """Objects carrying our tag that no listing reached: a bind or server whose parent is gone,
        or an object on a load balancer the service no longer names. They are ours to remove."""
        seen = set(o["id"] for obs in observed.values() for o in obs.objects())
        for resource in self.client.map(self.client.resource_get, sorted(owned - seen)):
            kind = TYPE_BY_RESOURCE.get((resource.get("resource_type") or {}).get("identifier"))
            if kind is None:
                continue   # an IP address or anything else carrying the tag: not an LBaaS object
            try:
                obj = KINDS[kind].from_engine(self.client.lbaas_get(kind, resource["identifier"]))
            except NotFoundError:
                continue
            obj["tags"] = [self.tag]
            target = observed.get(obj.get("load_balancer")) or observed[lbs[0]["id"]]
            getattr(target, kind + "s").append(obj)

    def foreign_binds(self, lb):
        """Every bind on the load balancer that is not ours, with its tags (for conflict detection)."""
        frontends = [{"id": i["identifier"]} for i in self.listings.get(lb["id"], [])]
        listings = self.client.map(lambda f: self.client.lbaas_list("bind", frontend=f["id"]), frontends)
        ids = [i["identifier"] for listing in listings for i in listing]
        binds = [KINDS["bind"].from_engine(o) for o in self.client.lbaas_get_many("bind", ids)]
        tags = dict((r["identifier"], tag_names(r)) for r in self.client.map(self.client.resource_get, ids))
        out = []
        for bind in binds:
            bind["tags"] = tags.get(bind["id"], [])
            if self.tag not in bind["tags"]:
                out.append(bind)
        return out
