# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rendering a service's objects (``{id: flat object}``) as a tree per load balancer, and its status.

The same rendering serves ``diff.before`` and ``diff.after``, so every write shows: a field change,
an owner tag added (``owner``), a redeploy (``deployment``), a delete on a load balancer the service
no longer names. Every node names its load balancer, so a diff hunk says where it is.
"""

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import state_class
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._ownership import owner_from_tags

CONFIG = {
    "backend": ("name", "mode", "health_check", "server_timeout"),
    "frontend": ("name", "mode", "client_timeout", "default_backend"),
    "bind": ("name", "address", "port", "ssl", "ssl_certificate_path"),
    "server": ("name", "ip", "port", "check"),
}
PARENT = {"bind": "frontend", "server": "backend"}


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


def _render(obj, lb, names, with_ids, prefix):
    """One node of the tree: the object's config fields, links by name, its owner and what its deployment shows."""
    out = {"load_balancer": lb}
    if with_ids:
        out["id"] = obj["id"]
    for field in CONFIG[obj["kind"]]:
        value = obj.get(field)
        out[field] = names.get(value, value) if field == "default_backend" else value
    owners = owner_from_tags(obj.get("tags") or [], prefix)
    out["owner"] = owners[0] if len(owners) == 1 else (owners or None)
    if with_ids:
        out["state"] = (obj.get("state") or {}).get("title")
    elif obj.get("planned") == "redeploy":
        out["deployment"] = "redeploy requested"
    elif obj.get("state") and state_class(obj["state"]) == "error":
        out["deployment"] = obj["state"].get("title")
    return out


def tree(world, lbs, with_ids=False, prefix="anxlb"):
    """``{lb name: {"backends": [... "servers"], "frontends": [... "binds"]}}``, sorted by name.

    Links are shown by name, so a diff reads the same before and after a create (no placeholders).
    A bind or server of ours under a parent that is not (or no longer) there is listed in ``stray``.
    """
    names = dict((i, o.get("name")) for i, o in world.items())
    lb_names = dict((lb["id"], lb["name"]) for lb in lbs)

    def render(obj, lb):
        return _render(obj, lb, names, with_ids, prefix)

    out = dict((lb["name"], {"backends": [], "frontends": []}) for lb in lbs)
    objs = sorted(world.values(), key=_key)
    placed = set()
    for kind, child, plural in (("backend", "server", "servers"), ("frontend", "bind", "binds")):
        for parent in (o for o in objs if o["kind"] == kind):
            lb = lb_names.get(lb_of(world, parent))
            if lb is None:
                continue
            children = [c for c in objs if c["kind"] == child and c.get(kind) == parent["id"]]
            node = render(parent, lb)
            node[plural] = [render(c, lb) for c in children]
            placed.update(c["id"] for c in children)
            out[lb][kind + "s"].append(node)
    for obj, lb in _strays(world, objs, placed, lb_names):
        node = render(obj, lb)
        node["kind"] = obj["kind"]
        node[PARENT[obj["kind"]]] = obj.get(PARENT[obj["kind"]])
        out[lb].setdefault("stray", []).append(node)
    return out


def _strays(world, objs, placed, lb_names):
    """``(object, lb name)`` of each bind and server not placed under a parent, on one of the load balancers."""
    for obj in objs:
        if obj["kind"] in PARENT and obj["id"] not in placed:
            lb = lb_names.get(lb_of(world, obj))
            if lb is not None:
                yield obj, lb


def _ports(world, lbs):
    """``{lb name: {address: {port, ...}}}``: what the binds on each load balancer listen on."""
    per_lb = dict((lb["name"], {}) for lb in lbs)
    lb_names = dict((lb["id"], lb["name"]) for lb in lbs)
    for obj in world.values():
        if obj["kind"] != "bind" or not obj.get("address"):
            continue
        parent = world.get(obj.get("frontend"))
        lb = lb_names.get(lb_of(world, parent)) if parent else None
        if lb is not None:
            ports = per_lb[lb].setdefault(obj["address"], set())
            ports.add(obj["port"])
    return per_lb


def status(world, lbs):
    """Per load balancer: address -> sorted ports its binds listen on; and ``all``, what every one
    of them serves (an address is kept only with the ports present on all load balancers)."""
    per_lb = _ports(world, lbs)
    common = None
    for addresses in per_lb.values():
        flat = dict((a, set(p)) for a, p in addresses.items())
        common = flat if common is None else dict(
            (a, common[a] & flat[a]) for a in common if a in flat and common[a] & flat[a])
    listing = dict((lb, dict((a, sorted(p)) for a, p in sorted(addrs.items()))) for lb, addrs in per_lb.items())
    return {"load_balancers": listing, "all": dict((a, sorted(p)) for a, p in sorted((common or {}).items()))}
