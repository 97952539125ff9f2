# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

"""Rendering a service's objects (``{id: flat object}``) as a tree per load balancer, and its status."""

CONFIG = {
    "backend": ("name", "mode", "health_check", "server_timeout"),
    "frontend": ("name", "mode", "client_timeout", "default_backend"),
    "bind": ("name", "address", "port", "ssl", "ssl_certificate_path"),
    "server": ("name", "ip", "port", "check"),
}


def _key(obj):
    return (obj.get("name") or "", obj.get("id") or "")


def tree(world, lbs, with_ids=False):
    """``{lb name: {"backends": [... "servers"], "frontends": [... "binds"]}}``, sorted by name.

    Links are shown by name, so a diff reads the same before and after a create (no placeholders).
    """
    names = dict((i, o.get("name")) for i, o in world.items())

    def render(obj):
        out = {}
        if with_ids:
            out["id"] = obj["id"]
        for field in CONFIG[obj["kind"]]:
            value = obj.get(field)
            out[field] = names.get(value, value) if field == "default_backend" else value
        if with_ids:
            out["state"] = (obj.get("state") or {}).get("title")
        return out

    out = {}
    lb_names = dict((lb["id"], lb["name"]) for lb in lbs)
    for lb in lbs:
        out[lb["name"]] = {"backends": [], "frontends": []}
    objs = sorted(world.values(), key=_key)
    for kind, child, link, plural in (("backend", "server", "backend", "servers"), ("frontend", "bind", "frontend", "binds")):
        for parent in (o for o in objs if o["kind"] == kind):
            lb = lb_names.get(parent.get("load_balancer"))
            if lb is None:
                continue
            node = render(parent)
            node[plural] = [render(c) for c in objs if c["kind"] == child and c.get(link) == parent["id"]]
            out[lb][kind + "s"].append(node)
    return out


def status(world, lbs):
    """Per load balancer: address -> sorted ports its binds listen on; and ``all``, what every one
    of them serves (an address is kept only with the ports present on all load balancers)."""
    per_lb = dict((lb["name"], {}) for lb in lbs)
    lb_of_frontend = dict((o["id"], o.get("load_balancer")) for o in world.values() if o["kind"] == "frontend")
    lb_names = dict((lb["id"], lb["name"]) for lb in lbs)
    for obj in world.values():
        if obj["kind"] != "bind" or not obj.get("address"):
            continue
        lb = lb_names.get(lb_of_frontend.get(obj.get("frontend")))
        if lb is not None:
            ports = per_lb[lb].setdefault(obj["address"], set())
            ports.add(obj["port"])
    common = None
    for addresses in per_lb.values():
        flat = dict((a, set(p)) for a, p in addresses.items())
        common = flat if common is None else dict(
            (a, common[a] & flat[a]) for a in common if a in flat and common[a] & flat[a])
    listing = dict((lb, dict((a, sorted(p)) for a, p in sorted(addrs.items()))) for lb, addrs in per_lb.items())
    return {"load_balancers": listing, "all": dict((a, sorted(p)) for a, p in sorted((common or {}).items()))}
