# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rendering a service's objects (``{id: flat object}``) as a tree per load balancer, and its status.

``tree`` is the result's ``objects``: every node whole, with its identifier and state. ``diff_tree`` is
what ``--diff`` shows, the same rendering for ``diff.before`` and ``diff.after``, so every write shows: a
field change, an owner tag added (``owner``), a redeploy (``deployment``), a delete on a load balancer the
service no longer names. It states what is common once: the load balancer is the key the groups are
under, a port's backend and frontend (one name) are one group with their servers and binds, the
service's own owner is said in the diff's header and a node shows ``owner`` only when it has another.
Each node is one line, so a diff line names one object and what changes on it.
"""

from .._model._kind import kind_named
from .._model._kinds import state_class
from .._model._diff_text import as_text
from .._model._ownership import foreign_tags, owner_from_tags
from ._managed import CHILDREN, PARENT_NAMES, SHOWN, SHOWN_LINKS

# A child kind's parent field (a bind's ``frontend``), for every kind the service manages inside a parent.
PARENT = dict((child.name, child.parent) for kinds in CHILDREN.values() for child in kinds)


def _key(obj):
    return (obj.get("name") or "", obj.get("id") or "")


def lb_of(world, obj):
    """The load balancer id an object is on: as observed, else through its parent."""
    if obj.get("lb"):
        return obj["lb"]
    if obj.get("load_balancer"):
        return obj["load_balancer"]
    parent = world.get(obj.get(PARENT.get(obj["kind"], "")) or "")
    return lb_of(world, parent) if parent else None


def _owner(obj, prefix, parent):
    """The owner (a list when several) a node shows; a bind or server carrying no owner tag shows its
    parent's owner (ownership by containment)."""
    owners = owner_from_tags(obj.get("tags") or [], prefix)
    if not owners and parent is not None and not foreign_tags(obj.get("tags")):
        owners = owner_from_tags(parent.get("tags") or [], prefix)
    return owners[0] if len(owners) == 1 else (owners or None)


def _fields(obj, names):
    """The configuration a node shows; links by name."""
    links = SHOWN_LINKS[obj["kind"]]
    return [(field, names.get(obj.get(field), obj.get(field)) if field in links else obj.get(field))
            for field in SHOWN[obj["kind"]]]


def _render(obj, lb, names, with_ids, prefix, parent=None):
    """One node of ``objects``."""
    out = {"load_balancer": lb}
    if with_ids:
        out["id"] = obj["id"]
    out.update(_fields(obj, names))
    out["owner"] = _owner(obj, prefix, parent)
    out.update(_deployment(obj, with_ids))
    return out


def _deployment(obj, with_ids):
    """The state with ids (the result); without (the diff) only what a person acts on: a redeploy, an error."""
    if with_ids:
        return {"state": (obj.get("state") or {}).get("title")}
    if obj.get("planned") == "redeploy":
        return {"deployment": "redeploy requested"}
    if obj.get("state") and state_class(obj["state"]) == "error":
        return {"deployment": obj["state"].get("title")}
    return {}


def tree(world, lbs, with_ids=False, prefix="anxlb"):
    """``{lb name: {"backends": [... "servers"], "frontends": [... "binds"]}}``, sorted by name.

    Links are shown by name, so a diff reads the same before and after a create (no placeholders).
    A bind or server of ours under a parent that is not (or no longer) there is listed in ``stray``.
    """
    names = dict((i, o.get("name")) for i, o in world.items())
    lb_names = dict((lb["id"], lb["name"]) for lb in lbs)
    out = dict((lb["name"], dict((kind + "s", []) for kind in PARENT_NAMES)) for lb in lbs)
    objs = sorted(world.values(), key=_key)
    placed = set()
    for kind in PARENT_NAMES:
        children = dict((child.name, _by_parent(objs, child)) for child in CHILDREN[kind])
        for parent in (o for o in objs if o["kind"] == kind):
            lb = lb_names.get(lb_of(world, parent))
            if lb is None:
                continue
            out[lb][kind + "s"].append(_node(parent, lb, children, placed,
                                             lambda obj, lb, parent=None: _render(obj, lb, names, with_ids, prefix, parent)))
    _strays(out, world, [o for o in objs if o["kind"] in PARENT and o["id"] not in placed], lb_names,
            lambda obj, lb: _render(obj, lb, names, with_ids, prefix))
    return out


def _node(parent, lb, children, placed, render):
    """A backend or frontend with its children (``placed`` collects their ids); children of an ``access_control``
    kind (a frontend's ACLs and rules: allow_sources) only when it has some."""
    node = render(parent, lb)
    for child in CHILDREN[parent["kind"]]:
        below = children[child.name].get(parent["id"], [])
        if below or not child.access_control:
            node[child.name + "s"] = [render(c, lb, parent) for c in below]
        placed.update(c["id"] for c in below)
    return node


def _by_parent(objs, child):
    """parent id -> the objects of the kind ``child`` under it (by its parent field), in the order of ``objs``."""
    out = {}
    for obj in objs:
        if obj["kind"] == child.name:
            out.setdefault(obj.get(child.parent), []).append(obj)
    return out


def _strays(out, world, objs, lb_names, render):
    """Binds and servers whose parent is not in ``world``, under ``stray`` of their load balancer."""
    for obj in objs:
        lb = lb_names.get(lb_of(world, obj))
        if lb is not None:
            node = render(obj, lb)
            node["kind"] = obj["kind"]
            node[PARENT[obj["kind"]]] = obj.get(PARENT[obj["kind"]])
            out[lb].setdefault("stray", []).append(node)


UNTAGGED = "(untagged)"   # the owner a diff shows for an object that carries no owner tag (yet)


def diff_tree(world, lbs, owner, prefix="anxlb"):
    """One side of the service's diff: ``{lb name: {group: {"backend": {..}, "servers": {name: {..}},
    "frontend": {..}, "binds": {name: {..}}, "acls": .., "rules": ..}}}``, groups and children sorted by name.

    A group is a backend and the frontend of its name (a port of the service); a node leaves out its name
    (the key), its load balancer (the key above) and its owner when that is ``owner``. Binds and servers of
    ours whose parent is not in ``world`` are in the group ``(no parent)``, with the parent's identifier."""
    lb_names = dict((lb["id"], lb["name"]) for lb in lbs)
    out = dict((lb["name"], {}) for lb in lbs)
    objs = sorted(world.values(), key=_key)
    leaf = _leaf_renderer(dict((i, o.get("name")) for i, o in world.items()), owner, prefix)
    placed = set()
    for kind in PARENT_NAMES:
        for lb, parent, children in _parents(world, objs, kind, lb_names):
            group = _slot(out[lb], parent.get("name") or "", kind)
            group[kind] = leaf(parent)
            for plural, below in children:
                if below:
                    group[plural] = _by_name((c, leaf(c, parent)) for c in below)
                placed.update(c["id"] for c in below)
    _diff_strays(world, [o for o in objs if o["kind"] in PARENT and o["id"] not in placed], lb_names, out, leaf)
    return dict((lb, dict(sorted(groups.items()))) for lb, groups in out.items())


def _parents(world, objs, kind, lb_names):
    """``(lb name, parent, [(plural, children)])`` of each parent of ``kind`` on one of the load balancers."""
    children = dict((child.name, _by_parent(objs, child)) for child in CHILDREN[kind])
    for parent in (o for o in objs if o["kind"] == kind):
        lb = lb_names.get(lb_of(world, parent))
        if lb is not None:
            yield lb, parent, [(child.name + "s", children[child.name].get(parent["id"], [])) for child in CHILDREN[kind]]


def _leaf_renderer(names, owner, prefix):
    """One line of the diff: an object's fields without its name and load balancer (keys above it), its switch only
    when it is off (``enabled: false``: every object is on unless it shows that), its owner only when that is not
    ``owner``, and a deployment a person acts on."""
    def leaf(obj, parent=None):
        switch = kind_named(obj["kind"]).switch
        node = dict((f, v) for f, v in _fields(obj, names) if f != "name" and (f != switch or v is False))
        shown = _owner(obj, prefix, parent)
        if shown != owner:
            node["owner"] = shown or UNTAGGED
        node.update(_deployment(obj, False))
        return node
    return leaf


def _diff_strays(world, objs, lb_names, out, leaf):
    """Binds and servers whose parent is not in ``world``: the group ``(no parent)``, with the parent's identifier."""
    for obj in objs:
        lb = lb_names.get(lb_of(world, obj))
        if lb is not None:
            link = PARENT[obj["kind"]]
            _slot_item(out[lb].setdefault("(no parent)", {}).setdefault(obj["kind"] + "s", {}), obj.get("name") or "",
                       dict(leaf(obj), **{link: obj.get(link)}))


def _slot(groups, name, kind):
    """The group of ``name`` with no ``kind`` yet (a second backend of one name: ``name #2``)."""
    key, number = name, 1
    while kind in groups.get(key, {}):
        number += 1
        key = "%s #%d" % (name, number)
    return groups.setdefault(key, {})


def _slot_item(items, name, node):
    key, number = name, 1
    while key in items:
        number += 1
        key = "%s #%d" % (name, number)
    items[key] = node


def _by_name(pairs):
    """Children keyed by name, in the order given (sorted by name); two of one name both shown."""
    out = {}
    for obj, node in pairs:
        _slot_item(out, obj.get("name") or "", node)
    return out


def diff(before, after, lbs, owner, tag, summary, prefix="anxlb"):
    """The service's ``diff``: both sides as text (``diff_tree``, a node per line) and headers that say
    what the sides leave out (the owner tag every object carries unless it shows another owner) and the
    plan line per load balancer, which Ansible prints above the diff at the default verbosity."""
    return dict(before=as_text(diff_tree(before, lbs, owner, prefix), inline_leaves=True),
                after=as_text(diff_tree(after, lbs, owner, prefix), inline_leaves=True),
                before_header="%s as observed (objects carry %s unless they show an owner)" % (owner, tag),
                after_header=summary)


def _listening(world, lbs):
    """lb name -> address -> the set of ports its binds listen on."""
    per_lb = dict((lb["name"], {}) for lb in lbs)
    lb_names = dict((lb["id"], lb["name"]) for lb in lbs)
    for obj in world.values():
        if obj["kind"] != "bind" or not obj.get("address"):
            continue
        parent = world.get(obj.get("frontend"))
        if parent is not None and kind_named(parent["kind"]).is_off(parent):
            continue   # a disabled frontend's binds do not listen (HAProxy's ``disabled``)
        lb = lb_names.get(lb_of(world, parent)) if parent else None
        if lb is not None:
            per_lb[lb].setdefault(obj["address"], set()).add(obj["port"])
    return per_lb


def status(world, lbs):
    """Per load balancer: address -> sorted ports its binds listen on; and ``all``, what every one
    of them serves (an address is kept only with the ports present on all load balancers)."""
    per_lb = _listening(world, lbs)
    common = None
    for addresses in per_lb.values():
        flat = dict((a, set(p)) for a, p in addresses.items())
        common = flat if common is None else dict(
            (a, common[a] & flat[a]) for a in common if a in flat and common[a] & flat[a])
    listing = dict((lb, dict((a, sorted(p)) for a, p in sorted(addrs.items()))) for lb, addrs in per_lb.items())
    return {"load_balancers": listing, "all": dict((a, sorted(p)) for a, p in sorted((common or {}).items()))}
