# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How the kinds hang together, read from their declaration (``_model._kinds``), never listed by hand.

* ``child_kinds(parent)``: the kinds whose objects live inside an object of ``parent`` (a frontend holds
  binds, ACLs and rules), each as the variant it is there (``Kind.under``);
* ``referrers(kind)``: every (kind, field) whose field may point at an object of ``kind`` - its children's
  parent field, and other kinds' links (a frontend's ``default_backend``). The Engine refuses (409) to
  delete an object something still points at, so these are what can block a delete (``_blockers``).

A kind declared tomorrow with a parent or a link is covered by both, with no edit here.
"""

from .._model._kinds import KINDS


def variants(kind):
    """Every form of ``kind``: one per parent kind for a kind with several (ACL, rule), else the kind itself."""
    return list(kind.variants.values()) or [kind]


def child_kinds(parent_kind):
    """The kinds whose parent is an object of ``parent_kind`` (a name), each as the variant it is under it,
    in declaration order."""
    return [k.under(parent_kind) for k in KINDS.values() if k.under(parent_kind).parent_kind == parent_kind]


class Referrer:
    """Objects of ``kind`` whose ``field`` may name an object of the target kind. ``by_parent``: the field is
    the parent of one of the kind's variants, so the Engine lists them filtered by it (one listing);
    otherwise it is a link the Engine does not filter by, so objects are read in full to compare it."""

    def __init__(self, kind, field, by_parent):
        self.kind = kind
        self.field = field
        self.by_parent = by_parent

    def __repr__(self):
        return "Referrer(%s.%s%s)" % (self.kind.name, self.field, ", by parent" if self.by_parent else "")


def referrers(kind_name):
    """Everything that may point at an object of ``kind_name``: children (by their parent field) first, then
    links, each in declaration order, one Referrer per (kind, field)."""
    found = {}
    for kind in KINDS.values():
        for form in variants(kind):
            fields = [(form.parent, True)] if form.parent_kind == kind_name else []
            fields += [(f, False) for f, target in form.links.items() if target == kind_name]
            for field, is_parent in fields:
                known = found.get((kind.name, field))
                if known is None:
                    found[(kind.name, field)] = Referrer(form, field, is_parent)
                elif is_parent and not known.by_parent:
                    found[(kind.name, field)] = Referrer(form, field, True)
    out = list(found.values())
    return [r for r in out if r.by_parent] + [r for r in out if not r.by_parent]
