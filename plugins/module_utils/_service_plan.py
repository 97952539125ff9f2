# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

"""Planning one service on one load balancer (pure): observed objects + Desired -> actions.

Per port, with dependencies, so a change to one port never touches the others (the cloud
controller tears down every frontend, bind and server when one port changes, RECONCILIATION F3):
- a backend and a frontend per port are matched by exact name on this load balancer; a server is
  matched inside the matched backend, a bind inside the matched frontend;
- mutable fields differ -> in-place update; nothing matches -> create, with children under the
  placeholder of the new parent;
- several matches -> keep one (ours first, then the one already right, then the lowest id) and
  delete our other copies; an untagged object with exactly the desired name is adopted (tagged);
- objects carrying our tag that nothing claims (a removed port or node, a child of a duplicate, an
  orphan) are deleted. Objects without our tag are never changed or deleted.
"""

from ansible_collections.anxcloud.lbaas.plugins.module_utils._objects import BACKEND, BIND, FRONTEND, SERVER, state_class
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile import (
    CREATE, DELETE, REDEPLOY, TAG, UPDATE, Action, placeholder)


class Observed(object):
    """What one observation found on one load balancer; each object carries its ``tags``.

    ``foreign_binds`` (binds of other owners or untagged, on frontends that are not ours) is None
    until conflict detection needed it.
    """

    def __init__(self, lb, backends=(), frontends=(), binds=(), servers=(), foreign_binds=None):
        self.lb = lb
        self.backends = list(backends)
        self.frontends = list(frontends)
        self.binds = list(binds)
        self.servers = list(servers)
        self.foreign_binds = foreign_binds

    def objects(self):
        return self.backends + self.frontends + self.binds + self.servers


class LbPlan(object):
    def __init__(self):
        self.actions = []
        self.waits = []
        self.claimed = set()       # ids of observed objects the desired state keeps
        self.binds_to_check = []   # (address, port, name) of binds created or moved: conflict candidates
        self.warnings = []


def _owned(obj, tag):
    return tag in obj.get("tags", [])


def _foreign(obj, tag, prefix):
    """Carries some other service's owner tag."""
    head = "%s-svc=" % prefix
    return any(t.startswith(head) and t != tag for t in obj.get("tags", []))


def _diff(obj, fields):
    return dict((f, (obj.get(f), v)) for f, v in fields.items() if v is not None and obj.get(f) != v)


class LbPlanner(object):
    def __init__(self, desired, observed, tag, prefix="anxlb"):
        self.desired = desired
        self.obs = observed
        self.tag = tag
        self.prefix = prefix
        self.out = LbPlan()

    def _match(self, kind, fields, candidates, parent_id, reason_missing, preferred=()):
        """Find, update, adopt or create one desired object; returns its (real or placeholder) id.

        Among duplicates, ``preferred`` ids win after ownership: the backend our frontend already
        points at is kept, so no delete has to wait for the frontend to be repointed.
        """
        out = self.out
        mine = [o for o in candidates if o["name"] == fields["name"] and not _foreign(o, self.tag, self.prefix)]
        if not mine:
            new = dict(fields, kind=kind.name, id=placeholder(kind.name, fields["name"], self.obs.lb["name"]))
            new[kind.parent] = parent_id
            changes = dict((f, (None, v)) for f, v in new.items() if f not in ("kind", "id") and v is not None)
            out.actions.append(Action(CREATE, kind, new, changes, reason=reason_missing, tags=[self.tag]))
            return new["id"]
        mine.sort(key=lambda o: (not _owned(o, self.tag), o["id"] not in preferred, len(_diff(o, fields)), o["id"]))
        keep = mine[0]
        out.claimed.add(keep["id"])
        for dup in mine[1:]:
            if _owned(dup, self.tag):
                out.actions.append(Action(DELETE, kind, dup, reason="duplicate of %s" % keep["id"]))
            else:
                out.warnings.append("%s '%s' (%s) duplicates %s but carries no owner tag; left alone"
                                    % (kind.name, dup["name"], dup["id"], keep["id"]))
        changes = _diff(keep, fields)
        tags = [] if _owned(keep, self.tag) else [self.tag]
        if changes:
            out.actions.append(Action(UPDATE, kind, keep, changes, tags=tags,
                                      reason="differs in %s" % ", ".join(sorted(changes))))
        elif tags:
            out.actions.append(Action(TAG, kind, keep, tags=tags, reason="adopting an untagged object with the desired name"))
        elif state_class(keep["state"]) == "error":
            out.actions.append(Action(REDEPLOY, kind, keep, reason="the object is in %s" % keep["state"]["title"]))
        elif state_class(keep["state"]) == "pending":
            out.waits.append((kind.name, keep["id"], keep["name"]))
        return keep["id"]

    def plan(self):
        d, obs = self.desired, self.obs
        lb_id = obs.lb["id"]
        where = "load balancer '%s'" % obs.lb["name"]
        for port, fields in d.backends.items():
            pointed_at = set(f["default_backend"] for f in obs.frontends if f["name"] == d.frontends[port]["name"])
            backend_id = self._match(BACKEND, fields, obs.backends, lb_id, "no backend '%s' on %s" % (fields["name"], where),
                                     preferred=pointed_at)
            frontend = dict(d.frontends[port], default_backend=backend_id)
            frontend_id = self._match(FRONTEND, frontend, obs.frontends, lb_id,
                                      "no frontend '%s' on %s" % (frontend["name"], where))
            for (p, _server), server in sorted(d.servers.items()):
                if p == port:
                    under = [s for s in obs.servers if s["backend"] == backend_id]
                    self._match(SERVER, server, under, backend_id, "no server '%s' in its backend" % server["name"])
            for (p, _address), bind in sorted(d.binds.items()):
                if p != port:
                    continue
                under = [b for b in obs.binds if b["frontend"] == frontend_id]
                before = len(self.out.actions)
                self._match(BIND, bind, under, frontend_id, "no bind '%s' in its frontend" % bind["name"])
                moved = [a for a in self.out.actions[before:] if a.kind is BIND and
                         (a.op == CREATE or set(a.changes) & set(("address", "port")))]
                if moved:
                    self.out.binds_to_check.append((bind["address"], bind["port"], bind["name"]))
        # Ours, and claimed by nothing: a removed port or node, a child of a duplicate, an orphan.
        for obj in obs.objects():
            if _owned(obj, self.tag) and obj["id"] not in self.out.claimed and not any(
                    a.op == DELETE and a.id == obj["id"] for a in self.out.actions):
                self.out.actions.append(Action(DELETE, obj["kind"], obj, reason="not part of the service any more"))
        return self.out

    def conflicts(self):
        """Binds we would create or move onto an (address, port) another owner's bind holds."""
        found = []
        for address, port, name in self.out.binds_to_check:
            for other in self.obs.foreign_binds or []:
                if other.get("address") == address and other.get("port") == port:
                    owners = [t.split("=", 1)[1] for t in other.get("tags", []) if t.startswith("%s-svc=" % self.prefix)]
                    found.append(dict(load_balancer=self.obs.lb["name"], load_balancer_id=self.obs.lb["id"],
                                      address=address, port=port, bind=name,
                                      holder=owners[0] if owners else None, holder_bind=other["name"],
                                      holder_bind_id=other["id"]))
        return found
