# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Who owns which names: the records of some zones grouped by the owner mark in their comment (``service_info``).

Records carry no tags, so the names of a service are found only in the zones asked for (one GET per zone), never
by listing every zone of the account; only marks of the given tag prefix count.
"""

from ._clouddns import CloudDNS
from ._plan import mark_of
from ._values import fqdn, normal_zone, stored_value
from .._model._ownership import split_owner_tag


def names_by_owner(client, zones, prefix, option="dns_zones"):
    """``{owner: [{zone, name, fqdn, type, values}]}`` over ``zones``, sorted by FQDN and type."""
    found = {}
    dns = CloudDNS(client)
    for index, zone in enumerate(zones or ()):
        zone = normal_zone(zone, "%s[%d]" % (option, index))
        for record in dns.records(zone, option=option):
            mark = mark_of(record.get("comment"))
            if not mark or split_owner_tag(mark)[0] != prefix:
                continue
            owner = split_owner_tag(mark)[1]
            key = (zone, record["name"], record["type"])
            found.setdefault(owner, {}).setdefault(key, set()).add(stored_value(record))
    return dict((owner, [dict(zone=z, name=n, fqdn=fqdn(n, z), type=t, values=sorted(values))
                         for (z, n, t), values in sorted(rrsets.items(), key=lambda i: (fqdn(i[0][1], i[0][0]), i[0][2]))])
                for owner, rrsets in found.items())
