# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What observation hands to planning: the objects found on one load balancer (``_observe`` fills it, ``_plan`` reads it)."""


class Observed:
    """What one observation found on one load balancer; each object carries its ``tags``.

    ``foreign_binds`` (binds of other owners or untagged, on frontends that are not ours) is None
    until conflict detection needed it.
    """

    def __init__(self, lb, backends=(), frontends=(), binds=(), servers=(), foreign_binds=None, untagged_named=(),
                 acls=(), rules=()):
        self.lb = lb
        self.backends = list(backends)
        self.frontends = list(frontends)
        self.binds = list(binds)
        self.servers = list(servers)
        self.acls = list(acls)     # ACLs and rules under the frontends observed (allow_sources)
        self.rules = list(rules)
        self.foreign_binds = foreign_binds
        # Backends and frontends named in the service's scheme that neither carry its tag nor are
        # wanted here ({kind, id, name}): never written, only reported (docs/reconciliation.md, "Ownership").
        self.untagged_named = list(untagged_named)

    def objects(self):
        return self.backends + self.frontends + self.binds + self.servers + self.acls + self.rules

    def children(self):
        return self.binds + self.servers + self.acls + self.rules
