# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Finding LBaaS objects: always inside their parent, by name, or directly by identifier."""

from .._engine._errors import NotFoundError
from .._engine._listings import listed_objects
from .._model._failure import Failure
from .._model._kinds import KINDS, looks_like_id
from .._model._ownership import not_found, not_unique


def noun(kind):
    """What messages call one object of ``kind`` (a Kind or its name): the declaration's ``Kind.noun``."""
    return (KINDS[kind] if isinstance(kind, str) else kind).noun


def describe(kind, obj):
    return "%s '%s'" % (noun(kind), obj.get("name") or obj.get("id"))


def get_by_id(client, kind, ident, option):
    try:
        return KINDS[kind].from_engine(client.lbaas_get(kind, ident))
    except NotFoundError:
        raise Failure("%s: no %s with id %s exists" % (option, noun(kind), ident))


def find_by_name(client, kind, name, parent=None, option="name"):
    """All objects of ``kind`` named ``name`` (inside ``parent``, a flat object, when given), with details.

    Details come from the listing where it holds them (full listings), else are read for the matches only.
    """
    spec = KINDS[kind].under(parent.get("kind")) if parent else KINDS[kind]   # an ACL's parent: frontend or backend
    filters = {spec.parent: parent["id"]} if parent and spec.parent else {}
    matches = [item for item in client.lbaas_list(kind, **filters) if item.get("name") == name]
    return [spec.from_engine(obj) for obj in listed_objects(client, spec, matches)]


def find_one(client, kind, ref, parent=None, option="name", missing_ok=False, allow_id=True):
    """One object by id or by name; a missing or ambiguous name is a clear failure naming ``option``."""
    if allow_id and looks_like_id(ref):
        try:
            return KINDS[kind].from_engine(client.lbaas_get(kind, ref))
        except NotFoundError:
            pass  # may still be a name that happens to look like an id
    found = find_by_name(client, kind, ref, parent, option)
    where = " on %s" % describe(parent["kind"], parent) if parent else ""
    if len(found) > 1:
        raise not_unique(option, noun(kind), ref, [o["id"] for o in found], where)
    if not found:
        if missing_ok:
            return None
        raise not_found(option, noun(kind), ref, where)
    return found[0]
