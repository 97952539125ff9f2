# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What observation hands to planning: the objects found on one load balancer (``_observe`` fills it, ``_plan`` reads it)."""


from .._lbaas._containment import is_child
from ._managed import MANAGED


class Observed:
    """What one observation found on one load balancer; each object carries its ``tags``.

    ``by_kind``: kind name -> the objects of that kind found, for every kind the service manages
    (``_managed.MANAGED``; ``objects``: a mapping with some of them). ``foreign_binds`` (binds of other
    owners or untagged, on frontends that are not ours) is None until conflict detection needed it.
    """

    def __init__(self, lb, objects=None, foreign_binds=None, untagged_named=()):
        self.lb = lb
        objects = dict(objects or {})
        self.by_kind = dict((kind.name, list(objects.pop(kind.name, ()))) for kind in MANAGED)
        if objects:
            raise KeyError("not a kind the service manages: %s" % ", ".join(sorted(objects)))
        self.foreign_binds = foreign_binds
        # Backends and frontends named in the service's scheme that neither carry its tag nor are
        # wanted here ({kind, id, name}): never written, only reported (docs/reconciliation.md, "Ownership").
        self.untagged_named = list(untagged_named)

    def objects(self):
        return [obj for objs in self.by_kind.values() for obj in objs]

    def children(self):
        return [obj for kind, objs in self.by_kind.items() if is_child(kind) for obj in objs]
