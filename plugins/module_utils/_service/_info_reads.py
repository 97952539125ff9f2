# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How ``service_info`` reads one owner: confirmed on its objects' own tags, each thing read once, and the
ACL and rule listings spared where the owner's markers say the service's run would spare them.

* The Engine's ``tag_name`` listing is not documented to match exactly: a lenient one lists the objects of
  ``xanxlb-svc=web`` or ``anxlb-svc=web2`` for ``anxlb-svc=web``. ``gc`` counts an object only when its own
  tags carry the owner tag exactly (``_gc/_kept``); so does ``service_info`` here, before anything listed is
  read as the owner's (what sits under another owner's frontend is then not read as this one's either).
* The observation (``ServiceObserver``) and the address lookup (``_addresses/_observe.by_tag``) each read the
  owner-tag listing and the listed resources, and observation reads a parent it located again with its
  children; ``service_info`` writes nothing, so one description reads each of them once. The load balancers'
  resources, read once for all owners by the inventory, are not read again per owner.
* A frontend's ACLs and rules are listed unless every marker of the owner on that load balancer says its last
  writing run declared no allow-list ("open", ``_marker``): that run removed the ACLs and rules it
  found, which is what lets the service's own runs skip those listings (``_service/_observe``).
"""

from .._engine._errors import gone_as_none
from .._model._ownership import Owner, tag_names
from ._managed import MANAGED
from ._marker import Marker
from ._observe import ServiceObserver

# The kinds of an allow-list (ACLs, rules): not read on a load balancer whose markers all say it has none.
ALLOW_LIST_KINDS = [kind.name for kind in MANAGED if kind.access_control]


class OwnerReads:
    """The client for one owner's description: GETs of resources and LBaaS objects answered once, and the
    owner-tag listing left with only the resources that carry ``tag`` exactly. Everything else is the client's."""

    def __init__(self, client, tag, resources=None):
        self._client = client
        self._tag = tag
        self._resources = dict(resources or {})   # id -> core resource (the load balancers', from the inventory)
        self._objects = {}                        # (kind, id) -> LBaaS object
        self._listed = {}                         # tag -> the confirmed listing

    def __getattr__(self, name):
        return getattr(self._client, name)

    def resource_get(self, ident):
        if self._resources.get(ident) is None:
            self._resources[ident] = self._client.resource_get(ident)
        return self._resources[ident]

    def resource_get_listed(self, idents):
        return self._client.map(gone_as_none(self.resource_get), idents)

    def lbaas_get(self, kind, ident):
        if (kind, ident) not in self._objects:
            self._objects[(kind, ident)] = self._client.lbaas_get(kind, ident)
        return self._objects[(kind, ident)]

    def lbaas_get_many(self, kind, idents):
        return [o for o in self._client.map(gone_as_none(lambda ident: self.lbaas_get(kind, ident)), idents)
                if o is not None]

    def resources_by_tag(self, tag):
        if tag not in self._listed:
            listed = self._client.resources_by_tag(tag)
            resources = self.resource_get_listed([r["identifier"] for r in listed])
            self._listed[tag] = [r for r, resource in zip(listed, resources)
                                 if resource is not None and tag in tag_names(resource)]
        return self._listed[tag]


class InfoObserver(ServiceObserver):
    """The service module's observer of everything an owner holds, with the marker rule for ACLs and rules."""

    @classmethod
    def of(cls, client, owner, prefix, lb_listing, lb_tags):
        """``lb_tags``: lb id -> its tag names, as the inventory read them (the markers live there)."""
        observer = cls.anywhere(client, Owner(owner, prefix), lb_listing)
        observer.owner_name = owner
        observer.known_lb_tags = lb_tags
        return observer

    def _child_jobs(self, lb, listings, picked, declared):
        jobs = super()._child_jobs(lb, listings, picked, declared)
        if not self.open_on(lb["id"]):
            return jobs
        return [job for job in jobs if job[1] not in ALLOW_LIST_KINDS]

    def open_on(self, lb_id):
        """Whether the owner's markers on the load balancer (at least one) all say "no allow-list"."""
        markers = Marker.find(self.prefix, self.owner_name, self.known_lb_tags.get(lb_id, ()))
        return bool(markers) and all(m.open for m in markers)
