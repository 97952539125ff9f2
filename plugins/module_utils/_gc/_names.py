# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The DNS names gc collects, as one family of its one plan (``_collection``).

Records carry no tags, so the account's tag listing does not find them, and listing every zone of the account would
cost a request per zone on every run. gc reads the zones it knows of: those a service's placement tags remember on the
load balancers (``_service._marker.placements``: the zone of its name, written with its marker) and those of
``dns_zones`` (the fallback for names written before services remembered their zone, and for owners that have only
records, made with ``dns_record``). Each zone is read once per observation (with its state, ``_dns._revision``).

A record is an owner's when its comment starts with the mark ``<tag_prefix>-svc=<owner>`` of this prefix: those are
the owners these zones add to the ones the tags name (``owners``; an owner with only records is found, and can be
kept), and, for an owner gc collects, the records it deletes (``world_of``), each rrset knowing the other records of
its name and type so that a hand-made twin of an owner's record is never the one deleted (``_dns._plan.changeset``).
"""

from ansible.module_utils.basic import missing_required_lib

from .._dns._plan import mark_of, owned_rrsets, removal
from .._dns._revision import read_zone
from .._dns._values import has_dnspython, normal_zone
from .._model._failure import Failure
from .._model._ownership import owner_tag, placement_head, split_owner_tag


def check_zones(zones):
    """``dns_zones`` normalised, or a Failure naming the bad entry (no request yet)."""
    return [normal_zone(z, "dns_zones[%d]" % i) for i, z in enumerate(zones or [])]


def placed_zones(lb_tags, prefix, owners):
    """Every zone a placement tag of ``prefix`` of one of ``owners`` names on the load balancers."""
    out = set()
    for owner in owners:
        head = "%s%s=dns:" % (placement_head(prefix), owner)
        out.update(tag[len(head):] for tags in lb_tags.values() for tag in tags if tag.startswith(head))
    return out


class GcZones:
    """The zones one observation of gc read: their records and answers."""

    def __init__(self, client, zones, prefix):
        self.client = client
        self.declared = list(zones)   # dns_zones, normalised
        self.prefix = prefix
        self.records = {}             # zone -> its records
        self.answers = {}             # zone -> the zone's own answer (its state)

    def read(self, lb_tags, owners):
        """Reads the zones gc knows of: ``dns_zones`` and those the placements on ``lb_tags`` of ``owners`` (the owners
        it may collect) name; a zone a placement names that is gone holds nothing of anyone. No zone, no request."""
        zones = sorted(set(self.declared) | placed_zones(lb_tags, self.prefix, owners))
        if zones and not has_dnspython():   # the records' values are compared with it: said before any write
            raise Failure(missing_required_lib("dnspython") + " (for the DNS records in zones %s)" % ", ".join(zones))

        def one(zone):
            try:
                return read_zone(self.client, zone, True, option="dns_zones")
            except Failure:   # no such zone
                if zone in self.declared:
                    raise
                return [], None
        for zone, (records, answer) in zip(zones, self.client.map(one, zones)):
            self.records[zone] = records
            if answer is not None:
                self.answers[zone] = answer
        return self

    def owners(self):
        """The owners of this prefix whose mark a record carries (names as written; ``discover`` checks them)."""
        found = set()
        for records in self.records.values():
            for record in records:
                mark = mark_of(record.get("comment"))
                if mark:
                    prefix, owner = split_owner_tag(mark)
                    if prefix == self.prefix:
                        found.add(owner)
        return found

    def world_of(self, owner):
        """``{key: rrset}`` of ``owner``'s records in the zones read."""
        mark = owner_tag(owner, self.prefix)
        world = {}
        for zone, records in sorted(self.records.items()):
            world.update(owned_rrsets(zone, records, lambda r: mark_of(r.get("comment")) == mark))
        return world

    def deletes(self, world, owner, reason):
        return [removal(obj, reason, owner=owner) for _key, obj in sorted(world.items())]
