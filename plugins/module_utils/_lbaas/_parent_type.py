# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Objects whose parent is a frontend or a backend (ACLs, rules): the parent options and the kind they pick.

Read-only: the acl/rule modules and their _info share it.
"""

from .._engine._errors import NotFoundError
from .._model._kinds import KINDS, looks_like_id

# The kinds an object of a kind declared with several parent kinds (``Kind.variants``: ACL, rule) lives in,
# in declaration order: ("frontend", "backend").
PARENT_TYPES = tuple(dict.fromkeys(parent for kind in KINDS.values() for parent in kind.variants))


def parent_options():
    """One option per parent type (naming the parent), and the load balancer they are looked up in."""
    options = dict((parent, dict(type="str")) for parent in PARENT_TYPES)
    options.update(load_balancer=dict(type="str"))
    return options


def given_parent(params):
    """The parent type whose option the task gives (None: none is given)."""
    return next((parent for parent in PARENT_TYPES if params.get(parent) is not None), None)


def chosen_kind(generic, params, client=None):
    """The kind under the parent the task names: ``frontend`` or ``backend``; by ``id`` alone, the
    object's own ``parent_type`` (one read). An object that is not there leaves the frontend one:
    the module then reports it missing as for any other kind."""
    parent = given_parent(params)
    if parent is not None:
        return generic.under(parent)
    if client is not None and params.get("id") and looks_like_id(params["id"]):
        try:
            return generic.under(client.lbaas_get(generic.name, params["id"]).get("parent_type"))
        except NotFoundError:
            pass
    return generic
