# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Read-only views: load balancers with their object trees, and objects of one type by parent or owner."""

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._ownership import owner_from_tags, owner_tag, tag_names


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


def details(client, kind, ids):
    """Full objects for ``ids``, fetched concurrently, flattened."""
    return [KINDS[kind].from_engine(obj) for obj in client.lbaas_get_many(kind, ids)]


def children(client, kind, parent_id):
    """All objects of ``kind`` whose parent is ``parent_id`` (one listing, details concurrently)."""
    spec = KINDS[kind]
    return details(client, kind, [i["identifier"] for i in client.lbaas_list(kind, **{spec.parent: parent_id})])


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


def tree(client, lb_id):
    """Backends (with servers) and frontends (with binds) of one load balancer."""
    backends = children(client, "backend", lb_id)
    frontends = children(client, "frontend", lb_id)
    servers = client.map(lambda b: children(client, "server", b["id"]), backends)
    binds = client.map(lambda f: children(client, "bind", f["id"]), frontends)
    out = {"backends": [], "frontends": []}
    for backend, below in zip(backends, servers):
        out["backends"].append(dict(render(backend), servers=[render(s) for s in sorted(below, key=_name)]))
    for frontend, below in zip(frontends, binds):
        out["frontends"].append(dict(render(frontend), binds=[render(b) for b in sorted(below, key=_name)]))
    out["backends"].sort(key=_name)
    out["frontends"].sort(key=_name)
    return out


def _name(obj):
    return (obj.get("name") or "", obj.get("id") or "")
