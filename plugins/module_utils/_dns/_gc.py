# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Garbage collection of DNS records: the records of owners that are gone, in the zones gc is told of.

Records carry no tags, so gc cannot find them through the account's tag listing; and listing every zone of the
account to search them would cost a request per zone on every run. gc reads only the zones of its ``dns_zones``
(the role derives them from the declared services' ``dns.zone``, plus ``lbaas_dns_zones``): one GET per zone.
A record is collected when its comment starts with the mark ``<tag_prefix>-svc=<owner>`` of this tag prefix and
the owner is collected (not in the live set, or named in ``remove``); every other record is left alone (no mark,
another prefix's, a live owner's). Each rrset that loses records is one changeset, written by the DNS kind's
operations (``_apply.RrsetOperations``) through a ``Reconciler``; check mode predicts.

The records count against gc's ``max_delete``, one each (a record is what the Engine stores and a resolver answers;
an rrset of two addresses is two): ``doomed`` reads the zones once, before gc's first write, so that a run over the
cap stops before deleting anything and the preview lists them; ``run`` then deletes exactly what that reading found
(it plans from it, and observes again only to prove them gone).
"""

from ._clouddns import CloudDNS
from ._plan import DesiredRrset, ZoneObservation, mark_of, observed_rrset, plan_rrset, view
from ._values import fqdn, normal_zone
from .._model._ownership import split_owner_tag
from .._reconcile._loop import Reconciler
from .._reconcile._plan import Plan


def collected_owner(comment, prefix, live, remove):
    """The owner whose mark ``comment`` carries, when gc collects it; else None."""
    mark = mark_of(comment)
    if not mark:
        return None
    mark_prefix, owner = split_owner_tag(mark)
    if mark_prefix != prefix:
        return None
    if owner in remove or (live is not None and owner not in live):
        return owner
    return None


class DnsCollection:
    def __init__(self, client, zones, prefix, live, remove, check_mode, wait_timeout=600):
        self.client = client
        self.zones = [normal_zone(z, "dns_zones[%d]" % i) for i, z in enumerate(zones or [])]
        self.prefix, self.live, self.remove = prefix, live, set(remove or [])
        self.check_mode = check_mode
        self.wait_timeout = wait_timeout
        self.owner_of = {}
        self.first = None   # the first reading of the zones (``doomed``), which ``run`` plans from

    def doomed(self):
        """The records gc deletes, one entry each (owner, zone, name, fqdn, type, value): read once (one GET per
        zone), before any write of the run; none and no request without zones."""
        if not self.zones:
            return []
        if self.first is None:
            self.first = self.observe()
        return [dict(owner=a.owner, zone=a.obj["zone"], name=a.obj["name"], fqdn=fqdn(a.obj["name"], a.obj["zone"]),
                     type=a.obj["type"], value=r["value"]) for a in self.plan(self.first) for r in a.deletes]

    def _observe_once(self):
        if self.first is not None:
            state, self.first = self.first, None   # doomed's reading is the first observation
            return state
        return self.observe()

    def observe(self):
        """The rrsets holding records of collected owners: only those records (nothing else is planned)."""
        world = {}
        dns = CloudDNS(self.client)
        for zone in self.zones:
            doomed = [r for r in dns.records(zone, option="dns_zones")
                      if collected_owner(r.get("comment"), self.prefix, self.live, self.remove)]
            for name, rtype in sorted(set((r["name"], r["type"]) for r in doomed)):
                world.update(observed_rrset(zone, name, rtype, doomed))
        return ZoneObservation(world)

    def plan(self, state):
        actions = []
        for obj in state.world.values():
            owners = set(split_owner_tag(mark_of(r["comment"]))[1] for r in obj["records"])
            for owner in sorted(owners):
                values = [r["value"] for r in obj["records"] if split_owner_tag(mark_of(r["comment"]))[1] == owner]
                desired = DesiredRrset(obj["zone"], obj["name"], obj["type"], values, present=False, owner=owner,
                                       tag_prefix=self.prefix)
                for action in plan_rrset(dict((k, v) for k, v in state.world.items() if v is obj), desired):
                    action.owner = owner
                    actions.append(action)
        return Plan(actions)

    def run(self):
        """(changed, entries): what was (check mode: would be) removed, an entry per owner and rrset."""
        if not self.zones:
            return False, []
        reconciler = Reconciler(self.client, self.check_mode, wait=True, wait_timeout=self.wait_timeout,
                                applier=self._applier)
        outcome = reconciler.run(self._observe_once, self.plan)
        entries = [dict(owner=a.owner, zone=a.obj["zone"], name=a.obj["name"], type=a.obj["type"],
                        records=[view(r) for r in a.deletes]) for a in outcome.plan]
        return outcome.changed, entries

    def _applier(self, client, waiter):
        from ._apply import RrsetOperations
        from .._reconcile._apply import Applier
        operations = RrsetOperations(client, wait=True, timeout=self.wait_timeout)
        return Applier(client, waiter, operations={"dns_record": operations})
