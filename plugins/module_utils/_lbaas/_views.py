# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Read-only views: load balancers with their object trees, and objects of one type by parent or owner."""

from .._engine._listings import listed_objects
from .._model._kinds import KINDS
from .._model._ownership import foreign_tags, owner_from_tags, owner_tag, tag_names
from ._containment import is_child
from ._relations import child_kinds


def render(obj, tags=None, prefix="anxlb", owner=None):
    """An object as the info modules return it: fields, the state title, and the owner when tags are known
    (``owner``: the owner of a bind or server carrying no owner tag, its parent's, by containment)."""
    out = dict((k, v) for k, v in obj.items() if k not in ("kind", "state", "tags", "raw"))
    out["state"] = (obj.get("state") or {}).get("title")
    if tags is not None:
        owners = owner_from_tags(tags, prefix)
        out["tags"] = sorted(tags)
        out["owner"] = owners[0] if len(owners) == 1 else (owners or owner)
    return out


def details(client, kind, items):
    """Full objects for ``items`` (listing entries, or identifiers), flattened: a full listing entry as it is, the
    others read concurrently (_engine/_listings.py). ``kind``: a Kind, or the name of one with a single parent kind."""
    kind = KINDS[kind] if isinstance(kind, str) else kind
    return [kind.from_engine(obj) for obj in listed_objects(client, kind, items)]


def children(client, kind, parent_id):
    """All objects of ``kind`` (a Kind, as the variant it is under the parent) whose parent is ``parent_id``
    (one listing, details concurrently)."""
    return details(client, kind, client.lbaas_list(kind.name, **{kind.parent: parent_id}))


def owned_ids(client, kinds, owner, prefix):
    """kind -> {identifier: tag names} of the objects of ``kinds`` carrying ``owner``'s tag exactly (one listing)."""
    wanted = owner_tag(owner, prefix)
    ids = [r["identifier"] for r in client.resources_by_tag(wanted)]
    out = dict((kind, {}) for kind in kinds)
    kind_of = _kind_of(client, kinds)
    for resource in client.resource_get_listed(ids):
        if resource is None or wanted not in tag_names(resource):   # the tag listing is not known to match exactly
            continue
        kind = kind_of(resource)
        if kind is not None:
            out[kind][resource["identifier"]] = tag_names(resource)
    return out


def _kind_of(client, kinds):
    """resource -> which of ``kinds`` it is: by its resource type, or for kinds whose type's identifier is not
    known (ACL, rule) by their own listing."""
    by_type = dict((KINDS[kind].resource_type, kind) for kind in kinds if KINDS[kind].resource_type is not None)
    untyped = dict((kind, set(i["identifier"] for i in client.lbaas_list(kind)))
                   for kind in kinds if KINDS[kind].resource_type is None)

    def kind_of(resource):
        kind = by_type.get((resource.get("resource_type") or {}).get("identifier"))
        return kind or next((k for k, listed in untyped.items() if resource["identifier"] in listed), None)
    return kind_of


def tree(client, lb, prefix="anxlb"):
    """Every object of the load balancer ``lb`` (flat) under its parent, as the declaration nests them
    (``_relations.child_kinds``): each object has, per kind whose parent it can be, a list named by the kind
    in the plural (``backends``, ``servers``, ``acls``), sorted by ``index`` where the kind has one, then by
    name. Parents and links show by name (the enclosing object carries the identifier), each object its tags
    and owner (``render``).

    Requests: per level one listing per parent and child kind, the details of what they list, then the core
    resource of every object found (its tags), each step concurrently."""
    below = {}   # parent id -> [(child kind, [flat objects])]
    level = [(KINDS[lb["kind"]], lb)]
    found = []
    while level:
        pairs = [(obj, kind) for _kind, obj in level for kind in child_kinds(obj["kind"])]
        lists = client.map(lambda pair: children(client, pair[1], pair[0]["id"]), pairs)
        for (obj, kind), objs in zip(pairs, lists):
            below.setdefault(obj["id"], []).append((kind, sorted(objs, key=_order)))
        level = [(kind, o) for (obj, kind), objs in zip(pairs, lists) for o in objs]
        found.extend(level)
    ids = [obj["id"] for _kind, obj in found]
    tags = dict((i, tag_names(r) if r is not None else []) for i, r in zip(ids, client.resource_get_listed(ids)))
    shown = TreeView(below, tags, dict((o["id"], o["name"]) for _kind, o in found + [(None, lb)]), prefix)
    return shown.branches(lb, None)


class TreeView:
    """Renders the objects ``tree`` found: ``below`` (parent id -> [(kind, objects)]), ``tags`` (id -> tag
    names), ``names`` (id -> name, for parents and links)."""

    def __init__(self, below, tags, names, prefix):
        self.below = below
        self.tags = tags
        self.names = names
        self.prefix = prefix

    def branches(self, obj, owner):
        """The lists below ``obj``, keyed by each child kind's plural; ``owner``: ``obj``'s, which its children
        carrying no owner tag of any prefix share (containment)."""
        return dict((kind.name + "s", [self.node(kind, child, owner) for child in objs])
                    for kind, objs in self.below.get(obj["id"], []))

    def node(self, kind, obj, container_owner):
        tags = self.tags.get(obj["id"], [])
        contained = is_child(kind) and not foreign_tags(tags)
        out = render(obj, tags, self.prefix, owner=container_owner if contained else None)
        for field in [kind.parent] + list(kind.links):
            if out.get(field) in self.names:
                out[field] = self.names[out[field]]
        out.update(self.branches(obj, out["owner"]))
        return out


def _order(obj):
    """Objects that have an order among their siblings (ACLs, rules: ``index``) by it, then by name."""
    return (obj.get("index") or 0,) + _name(obj)


def _name(obj):
    return (obj.get("name") or "", obj.get("id") or "")
