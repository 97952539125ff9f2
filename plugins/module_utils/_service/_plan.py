# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Planning one service on one load balancer (pure): observed objects + Desired -> actions.

Per port, with dependencies, so a change to one port never touches the others (the cloud
controller, k8s-anexia-ccm, tears down every frontend, bind and server when one port changes):
- a backend and a frontend per port are matched by exact name on this load balancer; a server is
  matched inside the matched backend, a bind inside the matched frontend;
- every managed field is compared (an unset option stands for what a fresh create gives): a
  difference is an in-place update; nothing matches -> create, children under the new parent;
- ownership: a backend or frontend is ours when it carries our tag, or when it is untagged, has
  exactly a desired name and we adopt it (tag it); a bind or server is ours when it sits under a
  parent of ours (containment, _lbaas._containment: it is created and kept without a tag) or carries
  our tag itself (earlier versions wrote one), unless it carries another owner's tag;
- several matches under one parent -> keep one (ours first, then the one already right, then the
  lowest id) and delete the other copies that are ours; an untagged duplicate parent is left alone
  with a warning; an untagged child of ours that is wanted is kept as it is (never tagged);
- allow_sources: a port's ``src`` ACLs and ``connection`` rules are matched inside the matched frontend
  like binds (ours by containment). Never open to all nor closed to all during a change (docs/user-guide.md,
  "Who may connect"): a rule waits for its ACL, a reject rule for every accept rule of its frontend, and a
  bind of a frontend with an allow-list for its rules (``Action.needs``); when an allow-list shrinks or goes,
  the deletes of accept rules and their ACLs come last (after the reject rules went, and after the accept
  rules the plan creates), while a frontend that goes takes them in its own delete levels;
- an allow-list that does not hold: another owner's rule or ACL under a guarded frontend, left alone as every
  foreign object, that admits a source the list refuses (_bypasses), is reported (``LbDecisions.bypasses``);
- each object found is converged by the shared planner (_lbaas._planner): update, tag, redeploy, wait;
- everything of ours that nothing claims (a removed port or node, a duplicate and its children, an
  orphan, everything on a load balancer the service no longer names) is deleted. Nothing else is
  ever written.
"""

from .._lbaas._containment import carries, is_child, is_foreign
from .._lbaas._planner import converge, create, diff
from .._model._kinds import ACL, BACKEND, BIND, FRONTEND, KINDS, RULE, SERVER
from .._model._ownership import foreign_tags, owner_from_tags
from .._reconcile._plan import CREATE, DELETE, Action, Plan
from ._bypasses import bypasses, report
from ._managed import MANAGED


class LbDecisions:
    """What the planner decided for one load balancer: its actions and waits, and what it found on the way
    (claims, warnings, conflicts, bypassed allow-lists). Not a ``Plan``: ``ServiceRun`` makes one of these."""

    def __init__(self):
        self.actions = []
        self.waits = []
        self.claimed = set()       # ids of observed objects the desired state keeps
        self.parents = set()       # ids of backends and frontends that are ours after this plan
        self.binds_to_check = []   # (address, port, name) of binds created or moved: conflict candidates
        self.warnings = []
        self.taken = []            # desired names held by foreign objects, and deletes they block: a failure
        self.bypasses = []         # rules and ACLs not of ours that admit what an allow-list refuses (_bypasses)


def _index(objs, parent):
    """(parent id or None, name) -> the objects with that name under that parent, in observed order."""
    out = {}
    for obj in objs:
        out.setdefault((obj.get(parent) if parent else None, obj["name"]), []).append(obj)
    return out


def _by_port(desired):
    """port name -> the desired children of that port, sorted as the declaration's keys sort."""
    out = {}
    for (port, _key), fields in sorted(desired.items()):
        out.setdefault(port, []).append(fields)
    return out


def _allow_list_deletes(actions):
    """The deletes of ACLs and rules (``access_control`` kinds) whose parent (a frontend) stays."""
    gone = set(a.id for a in actions if a.op == DELETE)
    return [a for a in actions if a.op == DELETE and a.kind.access_control and a.obj.get(a.kind.parent) not in gone]


def _is_reject(action):
    return action.kind.name == "rule" and action.obj.get("action") == "reject"


UNTAGGED_NAMED = ("%s '%s' (%s) on load balancer %s is named like this service's objects but does not carry its owner "
                  "tag (a run that ended between a create and its tag write leaves one); left alone: declare its port "
                  "on this load balancer again to adopt it (one carrying another owner tag is that owner's and never "
                  "adopted), or delete it by hand")


class LbPlanner:
    def __init__(self, desired, observed, tag, prefix="anxlb"):
        self.desired = desired
        self.obs = observed
        self.tag = tag
        self.prefix = prefix
        self.out = LbDecisions()
        self.by_id = dict((o["id"], o) for o in observed.objects())
        # kind name -> port name -> its desired children of the kind (servers, binds, ACLs, rules)
        self.of_port = dict((kind, _by_port(objs)) for kind, objs in desired.by_kind.items() if is_child(kind))
        self.guarded = {}   # port name -> id of its frontend, for the ports with an allow-list

    def _add(self, plan, premise=None):
        """Takes a plan of the shared planner (_lbaas._planner) into this one; ``premise``: whose ownership
        the writes rely on, the object's own tag or its parent's (containment)."""
        for action in plan:
            action.lb = self.obs.lb
            action.premise = premise
            self.out.actions.append(action)
        self.out.waits.extend(plan.waits)

    def _delete(self, obj, reason):
        self._add(Plan([Action(DELETE, obj["kind"], obj, reason=reason)]), premise=self._premise(obj))

    def _parent_of(self, obj):
        return self.by_id.get(obj.get(KINDS[obj["kind"]].parent)) if is_child(obj["kind"]) else None

    def _premise(self, obj):
        if carries(obj, self.tag):
            return obj
        parent = self._parent_of(obj)
        return parent if parent is not None and carries(parent, self.tag) else None

    def _ours(self, obj):
        if is_foreign(obj, self.tag):
            return False
        if carries(obj, self.tag):
            return True
        return is_child(obj["kind"]) and obj.get(KINDS[obj["kind"]].parent) in self.out.parents

    def _create(self, kind, fields, parent_id, reason):
        """A new object of ours: a parent with our owner tag, a child without (its parent makes it ours)."""
        action = create(kind, fields["name"], parent_id, fields, reason, tags=[self.tag], lb=self.obs.lb,
                        where=self.obs.lb["name"])
        action.obj["lb"] = self.obs.lb["id"]
        parent = self.by_id.get(parent_id)
        self._add(Plan([action]), premise=parent if is_child(kind) and parent is not None and carries(parent, self.tag) else None)
        return action.obj["id"]

    def _keep_one(self, kind, mine, fields, preferred):
        """Among our candidates with the desired name: ours first, then a preferred one, then the one already
        right, then the lowest id. The other copies that are ours are deleted; an untagged parent is left alone."""
        mine.sort(key=lambda o: (not carries(o, self.tag), o["id"] not in preferred, len(diff(o, fields)), o["id"]))
        keep = mine[0]
        self.out.claimed.add(keep["id"])
        if not is_child(kind):
            self.out.parents.add(keep["id"])
        for dup in mine[1:]:
            if is_child(kind) or carries(dup, self.tag):
                self._delete(dup, "duplicate of %s under the same parent" % keep["id"])
            else:
                self.out.warnings.append("%s '%s' (%s) on load balancer %s duplicates %s but carries no owner tag; left alone"
                                         % (kind.name, dup["name"], dup["id"], self.obs.lb["name"], keep["id"]))
        return keep

    def _match(self, kind, fields, candidates, parent_id, reason_missing, preferred=()):
        """Find, update, adopt or create one desired object; returns its (real or placeholder) id.

        Among duplicates, ``preferred`` ids win after ownership: the backend our frontend already
        points at is kept, so no delete has to wait for the frontend to be repointed. A child is never
        tagged: an untagged one under our parent is ours as it is (containment).
        """
        named = [o for o in candidates if o["name"] == fields["name"]]
        mine = [o for o in named if not is_foreign(o, self.tag)]
        if not mine:
            for other in named:
                self._taken(other, "its name is taken by")
            return self._create(kind, fields, parent_id, reason_missing)
        keep = self._keep_one(kind, mine, fields, preferred)
        missing = [] if carries(keep, self.tag) else [self.tag]
        self._add(converge(kind, keep, diff(keep, fields), missing, adopting="adopting an untagged object with the "
                           "desired name"), premise=self._premise(keep))
        return keep["id"]

    def _taken(self, obj, how, by=None):
        by = by or obj
        self.out.taken.append(dict(load_balancer=self.obs.lb["name"], type=obj["kind"], name=obj["name"], id=obj["id"],
                                   how=how, holder=by["kind"], holder_name=by["name"], holder_id=by["id"],
                                   owner_tags=foreign_tags(by.get("tags"), self.tag)))

    def _port(self, port, indexes):
        """One port's backend, frontend, servers and binds: matched by (parent, name), created when missing."""
        d, lb = self.desired, self.obs.lb
        where = "load balancer '%s'" % lb["name"]
        fields = d.by_kind["backend"][port]
        name = d.by_kind["frontend"][port]["name"]
        pointed_at = set(f["default_backend"] for f in indexes["frontend"].get((None, name), ()))
        backend_id = self._match(BACKEND, fields, indexes["backend"].get((None, fields["name"]), []), lb["id"],
                                 "no backend '%s' on %s" % (fields["name"], where), preferred=pointed_at)
        frontend = dict(d.by_kind["frontend"][port], default_backend=backend_id)
        frontend_id = self._match(FRONTEND, frontend, indexes["frontend"].get((None, name), []), lb["id"],
                                  "no frontend '%s' on %s" % (frontend["name"], where))
        for server in self.of_port["server"].get(port, ()):
            self._match(SERVER, server, indexes["server"].get((backend_id, server["name"]), []), backend_id,
                        "no server '%s' in its backend" % server["name"])
        guards = self._allow_list(port, frontend_id, indexes["acl"], indexes["rule"])
        if port in self.of_port["rule"]:
            self.guarded[port] = frontend_id
        for bind in self.of_port["bind"].get(port, ()):
            before = len(self.out.actions)
            self._match(BIND, bind, indexes["bind"].get((frontend_id, bind["name"]), []), frontend_id,
                        "no bind '%s' in its frontend" % bind["name"])
            for action in self.out.actions[before:]:
                action.needs.extend(guards)   # a new bind listens only once the allow-list is in place
            if any(a.op == CREATE or set(a.changes) & set(("address", "port")) for a in self.out.actions[before:]):
                self.out.binds_to_check.append((bind["address"], bind["port"], bind["name"]))

    def _allow_list(self, port, frontend_id, acls, rules):
        """A port's ACLs and rules (allow_sources); returns the rule writes, which a new bind waits for.
        A rule waits for its ACL's write, a reject rule for every accept rule's: never closed to all."""
        made = {}
        for acl in self.of_port["acl"].get(port, ()):
            before = len(self.out.actions)
            self._match(ACL, acl, acls.get((frontend_id, acl["name"]), []), frontend_id,
                        "no ACL '%s' in its frontend" % acl["name"])
            made[acl["name"]] = self.out.actions[before:]
        accepts, written = [], []
        for rule in sorted(self.of_port["rule"].get(port, ()), key=lambda r: (r["index"], r["name"])):
            before = len(self.out.actions)
            self._match(RULE, rule, rules.get((frontend_id, rule["name"]), []), frontend_id,
                        "no rule '%s' in its frontend" % rule["name"])
            new = self.out.actions[before:]
            for action in new:
                action.needs.extend(made.get(rule["condition_test"], ()))
                if rule["action"] == "reject":
                    action.needs.extend(accepts)
            if rule["action"] == "accept":
                accepts.extend(new)
            written.extend(new)
        return written

    def _unclaimed(self):
        """Ours, and claimed by nothing: a removed port or node, a duplicate's children, an orphan, everything on
        a load balancer the service no longer names."""
        deleting = set(a.id for a in self.out.actions if a.op == DELETE)
        for obj in self.obs.objects():
            if obj["id"] in self.out.claimed or obj["id"] in deleting or not self._ours(obj):
                continue
            reason = "not part of the service any more" if carries(obj, self.tag) else \
                "untagged child of a %s of ours, not part of the service" % KINDS[obj["kind"]].parent_kind
            self._delete(obj, reason)
        self._accepts_last()

    def _accepts_last(self):
        """Deletes of accept rules and their ACLs under a frontend that stays run last, after the reject rules'
        deletes and the creates (an allow-list shrinking or going never closes the frontend to all)."""
        deletes = _allow_list_deletes(self.out.actions)
        rejects = [a for a in deletes if _is_reject(a)]
        rejected = set((r.obj.get("frontend"), r.obj.get("condition_test")) for r in rejects)
        firsts = {}   # frontend -> the first reject delete or rule create under it
        for action in rejects + [a for a in self.out.actions if a.op == CREATE and a.kind.name == "rule"]:
            firsts.setdefault(action.obj.get("frontend"), action)
        for action in deletes:
            # a reject rule, and an ACL a reject rule names, go in the early levels
            if action not in rejects and (action.obj.get("frontend"), action.obj["name"]) not in rejected:
                action.after = firsts.get(action.obj.get("frontend"))

    def _held_children(self):
        """A parent we delete takes its children with it (or the Engine refuses): not with a foreign one on it."""
        for action in [a for a in self.out.actions if a.op == DELETE and not is_child(a.kind)]:
            for child in self.obs.children():
                if child.get(KINDS[child["kind"]].parent) == action.id and is_foreign(child, self.tag):
                    self._taken(action.obj, "it cannot be deleted: it holds", by=child)

    def _bypasses(self):
        """Rules and ACLs under a guarded frontend that the plan leaves there and are not ours (another owner's:
        the plan deletes the untagged ones), that admit a source the port's allow-list refuses. They were read by
        observation and their tags confirmed by the plan's first round, which planned their deletes: no request."""
        deleting = set(a.id for a in self.out.actions if a.op == DELETE)
        for port, frontend_id in sorted(self.guarded.items()):
            def stays(objs):
                return [o for o in objs if o.get("frontend") == frontend_id and o["id"] not in self.out.claimed
                        and o["id"] not in deleting]
            for finding in bypasses(self.desired.allow_sources(port), self.of_port["acl"][port], self.of_port["rule"][port],
                                    stays(self.obs.by_kind["acl"]), stays(self.obs.by_kind["rule"])):
                self.out.bypasses.append(report(finding, self.obs.lb, self.desired.by_kind["frontend"][port]["name"], frontend_id,
                                                self.tag, self.prefix))

    def plan(self):
        """Linear in the number of objects: candidates are looked up in indexes by (parent, name)."""
        obs = self.obs
        # Parents of ours that the declaration may not claim: their children are ours all the same.
        self.out.parents.update(o["id"] for o in obs.objects()
                                if not is_child(o["kind"]) and carries(o, self.tag) and not is_foreign(o, self.tag))
        # kind -> (parent id, name) -> objects: a child is matched within its parent, as the variant the service manages
        indexes = dict((kind.name, _index(obs.by_kind[kind.name], kind.parent if is_child(kind) else None)) for kind in MANAGED)
        for port in self.desired.by_kind["backend"]:
            self._port(port, indexes)
        self._unclaimed()
        self._held_children()
        self._bypasses()
        for obj in obs.untagged_named:
            self.out.warnings.append(UNTAGGED_NAMED % (obj["kind"], obj["name"], obj["id"], obs.lb["name"]))
        return self.out

    def conflicts(self):
        """Binds we would create or move onto an (address, port) another owner's bind holds."""
        found = []
        for address, port, name in self.out.binds_to_check:
            for other in self.obs.foreign_binds or []:
                if other.get("address") == address and other.get("port") == port:
                    # the bind's own owner tag (earlier versions wrote one), else its frontend's (containment)
                    tags = other.get("tags", []) if foreign_tags(other.get("tags"), self.tag) else other.get("parent_tags", [])
                    owners = owner_from_tags(tags, self.prefix)
                    owners = owners or foreign_tags(tags, self.tag)   # another prefix's: its whole tag
                    found.append(dict(load_balancer=self.obs.lb["name"], load_balancer_id=self.obs.lb["id"],
                                      address=address, port=port, bind=name,
                                      holder=owners[0] if owners else None, holder_bind=other["name"],
                                      holder_bind_id=other["id"]))
        return found
