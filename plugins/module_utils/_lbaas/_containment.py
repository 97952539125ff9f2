# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Ownership by containment (docs/how-reconciliation-works.md, "Ownership by containment"), read-only.

A backend or frontend is an owner's when it carries the owner tag. A bind or server (a child) never gets an
owner tag: it is its parent's owner's. A child that carries our tag already (earlier versions wrote one)
stays ours; a child carrying another owner's tag (any ``*-svc=`` tag, ``_model._ownership.foreign_tags``) is
that owner's, whatever its parent. Used by the planner (``_planner``), by observation and by the read-only modules.

``frontends_using`` is the other relation between parents: a frontend uses a backend as its default backend
(the Engine refuses to delete a backend still used so).
"""

from .._model._kinds import KINDS, link_id
from .._model._ownership import foreign_tags


def is_child(kind):
    """An object inside a backend or frontend (a bind, a server, an ACL, a rule): ours by containment, never
    owner-tagged. Read from the declaration: a kind whose parent kind lives inside another object itself."""
    kind = KINDS[kind] if isinstance(kind, str) else kind
    parent = KINDS.get(kind.parent_kind)
    return parent is not None and parent.parent_kind is not None


def carries(obj, tag):
    return tag in (obj.get("tags") or [])


def is_foreign(obj, own):
    """Carries an owner tag other than ``own`` (one tag or several), of any prefix."""
    return bool(foreign_tags(obj.get("tags"), own))


def child_is_ours(child, parent, tag):
    """A child is ours when it carries our tag, or when its parent carries our tag (and no other owner's)
    and the child no other owner's."""
    if is_foreign(child, tag):
        return False
    return carries(child, tag) or (parent is not None and carries(parent, tag) and not is_foreign(parent, tag))


def frontends_using(frontends, backend_ids):
    """The frontends whose default backend is one of ``backend_ids`` (the Engine refuses to delete such a backend)."""
    return [f for f in frontends if link_id(f.get("default_backend")) in backend_ids]
