# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Ownership in one place: the owner tag, who the owners are, what is someone else's, which load balancer a name means.

* The owner tag ``<tag_prefix>-svc=<owner>`` (``owner_tag``) makes an object (or an address object) ``owner``'s.
* Every tag of the shape ``<anything>-svc=<anything>`` is an owner tag (``is_owner_tag``): a team using another
  ``tag_prefix``, or another tool writing the same shape, owns what carries its tag just as we own what carries
  ours. An object carrying any owner tag but this run's (``foreign_tags``) is never adopted, updated, moved,
  tagged or deleted.
* The owners of a prefix (``discover``, for gc and ``service_info``) are named by the account's owner tag
  entities and by the markers on the load balancers; a name this collection would not write is no owner.
* A load balancer named in an option (``resolve_lbs``) is the one with that identifier, else the one with that
  name; a name more than one has is refused, naming the option, the count and the ids: give the id.
"""

from ._failure import Failure
from ._names import check_owner
from ._kinds import looks_like_id

SEPARATOR = "-svc="


# ---- the owner tag -------------------------------------------------------------------------------
def owner_tag_head(prefix):
    """What every owner tag of ``prefix`` starts with (also the account's tag entity query)."""
    return prefix + SEPARATOR


def owner_tag(owner, prefix="anxlb"):
    return owner_tag_head(prefix) + owner


class Owner:
    """An owner as observation needs it: its name, its tag prefix and the owner tag they make."""

    def __init__(self, name, prefix="anxlb"):
        self.name = name
        self.prefix = prefix
        self.tag = owner_tag(name, prefix)


def tag_names(resource):
    """The names of the tags an Engine resource carries, sorted (a listing gives dicts, a resource names)."""
    return sorted(t["name"] if isinstance(t, dict) else t for t in resource.get("tags") or [])


def is_owner_tag(name):
    """Whether a tag name is an owner tag of any prefix: ``<anything>-svc=<anything>``."""
    return isinstance(name, str) and name.find(SEPARATOR) > 0


def split_owner_tag(name):
    """``(prefix, owner)`` of an owner tag of any prefix."""
    prefix, owner = name.split(SEPARATOR, 1)
    return prefix, owner


def foreign_tags(tags, own=()):
    """The owner tags among ``tags`` other than ``own`` (ours): any one makes the object foreign, never
    adopted, updated, moved, tagged or deleted by a run whose owner tags are ``own``."""
    own = set([own] if isinstance(own, str) else own)
    return sorted(t for t in tags or () if is_owner_tag(t) and t not in own)


def owner_from_tags(tags, prefix="anxlb"):
    """The owners named by our tags (``<prefix>-svc=<owner>``) among a resource's tag names."""
    head = owner_tag_head(prefix)
    return sorted(t[len(head):] for t in tags if t.startswith(head))


def owners_from_tags(names, prefix):
    """Owner ids named by owner tags of ``prefix`` among tag entity names, once each (the Engine's query is
    not known to match exactly, so names are compared here)."""
    return sorted(set(o for o in owner_from_tags(names, prefix) if o))


def marker_head(prefix):
    """What every marker of ``prefix`` (``_marker``) starts with: ``<prefix>-reconciled.<owner>=...``."""
    return prefix + "-reconciled."


def placement_head(prefix):
    """What every placement tag of ``prefix`` starts with: ``<prefix>-placed.<owner>=<family>:<where>``, on each load
    balancer of a service, remembers what the service placed outside its load balancers (``_service._marker``)."""
    return prefix + "-placed."


def placed_owners(tags, prefix):
    """The owners that left a placement tag of ``prefix`` among a load balancer's tag names."""
    head = placement_head(prefix)
    return [t[len(head):].split("=", 1)[0] for t in tags if t.startswith(head) and "=" in t]


def marked_owners(tags, prefix):
    """The owners that left a marker of ``prefix`` among a load balancer's tag names."""
    head = marker_head(prefix)
    return [t[len(head):].split("=", 1)[0] for t in tags if t.startswith(head) and "=" in t]


# ---- owner discovery -----------------------------------------------------------------------------
def discover(names, lb_tags, prefix):
    """``(valid, invalid)`` owners of ``prefix``, each sorted: named by owner tag entity ``names``
    (``_engine._tag_entities.names_like``, asked for ``owner_tag_head(prefix)``) or by a marker among the load
    balancers' tags (``lb_tags``: lb id -> tag names).
    An invalid one is a name this collection does not write: its tags are left alone."""
    found = set(owners_from_tags(names, prefix))
    for tags in lb_tags.values():
        found.update(marked_owners(tags, prefix))
        found.update(placed_owners(tags, prefix))
    valid, invalid = [], []
    for owner in sorted(found):
        try:
            valid.append(check_owner(owner, "owner"))
        except Failure:
            invalid.append(owner)
    return valid, invalid


# ---- load balancers by name or id ------------------------------------------------------------------
def not_found(option, label, ref, where=""):
    return Failure("%s: no %s named '%s' exists%s" % (option, label, ref, where))


def not_unique(option, label, ref, ids, where=""):
    """The one answer to a name that several objects have: the option, the count, the ids, and the fix."""
    return Failure("%s: %d %ss named '%s'%s (ids %s); give the id to pick one"
                   % (option, len(ids), label, ref, where, ", ".join(sorted(ids))))


def resolve_lbs(listing, refs, option="load_balancers", gone=None):
    """The load balancers ``refs`` (names or ids) name, from one listing, once each and in the order given.

    A ref that is the identifier of a listed load balancer is that one, else the load balancers with that
    name: none is a failure (or, with ``gone`` a list, appended there as (index, ref)); several are a failure
    naming ``<option>[<index>]``, the count and the ids."""
    found = []
    for index, ref in enumerate(refs):
        matches = [i for i in listing if i["identifier"] == ref] if looks_like_id(ref) else []
        matches = matches or [i for i in listing if i.get("name") == ref]
        name = "%s[%d]" % (option, index)
        if not matches and gone is not None:
            gone.append((index, ref))
            continue
        if not matches:
            raise not_found(name, "load balancer", ref)
        if len(matches) > 1:
            raise not_unique(name, "load balancer", ref, [m["identifier"] for m in matches])
        lb = {"kind": "loadbalancer", "id": matches[0]["identifier"], "name": matches[0].get("name")}
        if lb["id"] not in [x["id"] for x in found]:
            found.append(lb)
    return found
