# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What still points at an object, for which the Engine would refuse to delete it (409).

Found before any write, in check mode as in a real run, so that both fail alike naming what is in the way
(``_planner.refused_delete``), and no DELETE goes out that the Engine must refuse. What may point at an
object comes from the declaration (``_relations.referrers``): children of every kind (a frontend's binds,
ACLs and rules; a backend's servers, ACLs and rules) and objects linking to it (a frontend whose default
backend it is). Requests: one listing per referring kind, filtered by the object as parent; only a link the
Engine does not filter by costs the details of the objects that could hold it (the frontends of the
backend's load balancer).
"""

from .._engine._listings import listed_objects
from .._model._kinds import link_id
from ._relations import referrers


def blockers(client, kind, obj):
    """``[(kind name, {identifier, name})]`` of the objects pointing at ``obj`` (flat, of ``kind``): children
    first, then links, each kind's by name."""
    found = client.map(lambda referrer: pointing(client, referrer, kind, obj), referrers(kind.name))
    return [blocker for batch in found for blocker in batch]


def pointing(client, referrer, kind, obj):
    """The objects of one referrer (kind and field) naming ``obj``."""
    name = referrer.kind.name
    if referrer.by_parent:
        listed = client.lbaas_list(name, **{referrer.field: obj["id"]})
    else:
        candidates = client.lbaas_list(name, **scope(referrer.kind, kind, obj))
        listed = [o for o in listed_objects(client, referrer.kind, candidates) if link_id(o.get(referrer.field)) == obj["id"]]
    return [(name, {"identifier": i["identifier"], "name": i.get("name")})
            for i in sorted(listed, key=lambda i: (i.get("name") or "", i["identifier"]))]


def scope(holder, target, obj):
    """The listing filter for objects of ``holder`` that may link to ``obj`` (of ``target``): the parent they
    share (the frontends on the backend's load balancer), else none (all of them)."""
    if holder.parent and holder.parent_kind == target.parent_kind and obj.get(target.parent):
        return {holder.parent: obj[target.parent]}
    return {}
