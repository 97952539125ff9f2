# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The per-object modules (loadbalancer, backend, frontend, bind, server, and through _parent_typed ACL and rule): one
object, identified inside its parent (a load balancer, which has none, among all).

openstack.cloud's StateMachine shape: find the parent and the object, compare only the fields the
user set (normalized), then predict (check mode) or apply and wait, through the shared Reconciler.
"""

from .._module._base import AnxcloudModule
from .._engine._errors import NotFoundError
from .._model._failure import Failure
from .._model._ownership import tag_names
from .._model._durations import to_ms
from .._model._names import check_owner, check_tag_prefix
from ._lookup import describe, find_by_name, find_one, noun
from .._model._ownership import foreign_tags, owner_from_tags, owner_tag, split_owner_tag
from ._blockers import blockers
from ._containment import is_child
from ._planner import converge, create, diff, refused_delete
from .._reconcile._plan import DELETE, Action, Plan, placeholder
from .._reconcile._predicting import Predicting
from .._reconcile._run import Run, Steps
from .._model._request import TAG_PREFIX


def object_argument_spec(parents, fields, kind=None):
    """Options shared by every per-object module, plus its parent and field options: ``recreate`` (a move to another
    parent) for a kind with a parent, and the option ``kind`` declares for deleting an object not carrying the
    task's owner tag (``LbaasKind.unowned_delete``)."""
    spec = dict(
        name=dict(type="str"),
        id=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
        owner=dict(type="str"),
        tag_prefix=dict(TAG_PREFIX),
    )
    if parents:
        spec["recreate"] = dict(type="bool", default=False)
    if kind is not None and kind.unowned_delete:
        spec[kind.unowned_delete] = dict(type="bool", default=False)
    spec.update(parents)
    spec.update(fields)
    return spec


def field_options(kind):
    """One option per field of ``kind`` a task sets, named, typed and constrained by the declaration
    (``LbaasKind.option_name``, ``option_spec``): every field but those the parent option picks (an ACL's
    ``parent_type`` and parent links, ``LbaasKind.variant_fields``)."""
    picked = kind.variant_fields()
    return dict((kind.option_name(field), kind.option_spec(field)) for field in kind.fields if field not in picked)


def check_port(params, option="port"):
    port = params.get(option)
    if port is not None and not 1 <= port <= 65535:
        raise Failure("%s must be between 1 and 65535, got %d" % (option, port))


class ObjectState:
    """What one observation found: the parent, the object (flat, or None) and resolved links."""

    def __init__(self, parent, obj, links):
        self.parent = parent
        self.obj = obj
        self.links = links
        self.blockers = []        # (kind, {identifier, name}) still attached to an object to delete
        self.old_lb = None        # {id, name}: the load balancer a frontend or backend moved to another one is on
        self.world = {obj["id"]: obj} if obj else {}


def predicted_families():
    """The overlays of check mode across tasks for what an object module reads: LBaaS objects and their tags."""
    from ._predicted import LbaasOverlay
    return [LbaasOverlay]


class LbaasObjectModule(AnxcloudModule):
    kind = None             # a Kind from _objects
    predicts = Predicting(predicted_families)   # check mode across tasks: LBaaS reads only
    scope_option = None     # option naming the load balancer a parent is looked up in (bind, server)
    wait_options = True
    module_kwargs = dict(required_one_of=[("name", "id")])
    recreated = None        # name of the object a recreate=true plan replaced
    container = None        # the parent the plan found (its tags name a child's owner: containment)

    def __init__(self, module):
        super().__init__(module)
        self.names = {}     # id -> name of the parents and links looked up

    # ---- input ---------------------------------------------------------------------------------
    def validate(self):
        """Per-module checks of the options; raise Failure naming the option."""

    durations = ()          # fields given as milliseconds or a duration like 30s (_durations.py)
    renderers = {}          # field -> fn(value, option): the Engine's text for a structured option value

    def desired_fields(self):
        out = {}
        for field in self.kind.fields:
            option = self.kind.option_name(field)
            value = self.params.get(option)
            if value is not None and field in self.durations:
                value = to_ms(value, option)[0]
            if value is not None and field in self.renderers:
                value = self.renderers[field](value, option)
            if value is not None and field not in self.kind.links:
                out[field] = self.kind.normalize_field(field, value, option)
        return out

    # ---- observe -------------------------------------------------------------------------------
    def missing(self, kind, ref, option):
        """Check mode may plan under a parent an earlier task would create: predict, with a warning."""
        self.module.warn("%s: no %s named '%s' exists yet; predicting as if an earlier task created it"
                         % (option, noun(kind), ref))
        return {"kind": kind, "id": placeholder(kind, ref), "name": ref, "missing": True}

    def lookup(self, kind, ref, option, parent=None):
        absent = self.params["state"] == "absent"
        if parent is not None and parent.get("missing"):
            found = parent if parent.get("gone") else self.missing(kind, ref, option)
        else:
            found = find_one(self.client, kind, ref, parent=parent, option=option, missing_ok=self.check_mode or absent)
            if found is None and absent:
                # Nothing to delete under a parent that is gone: a teardown run twice is ok the second time.
                found = {"kind": kind, "id": None, "name": ref, "missing": True, "gone": True}
            elif found is None:
                found = self.missing(kind, ref, option)
        self.names[found["id"]] = found.get("name") or found["id"]   # the diff names what it links to
        return found

    def resolve_parent(self):
        option = self.kind.parent
        if option is None:   # a load balancer: no parent
            return None
        ref = self.params[option]
        if ref is None:
            if self.params["id"]:
                return None
            raise Failure("%s is required unless id is given" % option)
        scope = None
        if self.scope_option and self.params.get(self.scope_option):
            scope = self.lookup("loadbalancer", self.params[self.scope_option], self.scope_option)
        return self.lookup(self.kind.parent_kind, ref, option, parent=scope)

    def resolve_links(self, parent):
        """Link fields other than the parent (frontend.default_backend): kind -> resolved id."""
        return {}

    def find(self, parent):
        p = self.params
        if p["id"]:
            try:
                return self.kind.from_engine(self.client.lbaas_get(self.kind.name, p["id"]))
            except NotFoundError:
                if p["state"] == "absent":
                    return None
                if self.recreated and parent and not parent.get("missing"):
                    # recreate=true replaced the object: from now on it is the one with this name.
                    return find_one(self.client, self.kind.name, self.recreated, parent=parent, missing_ok=True,
                                    allow_id=False)
                raise Failure("id: no %s with id %s exists" % (noun(self.kind.name), p["id"]))
        if self.kind.parent is None:   # a load balancer: by name among all of them
            return find_one(self.client, self.kind.name, p["name"], option="name", missing_ok=True, allow_id=False)
        if parent is None or parent.get("missing"):
            return None
        found = find_one(self.client, self.kind.name, p["name"], parent=parent, option="name", missing_ok=True,
                         allow_id=False)
        if found is None and p["recreate"] and parent.get("load_balancer"):
            found = self.find_elsewhere(parent)
        return found

    def find_elsewhere(self, parent):
        """A move by name: the object under another parent on the same load balancer (recreate=true)."""
        kind = self.kind
        siblings = [i for i in self.client.lbaas_list(kind.parent_kind, load_balancer=parent["load_balancer"])
                    if i["identifier"] != parent["id"]]
        found = [o for batch in self.client.map(
            lambda s: find_by_name(self.client, kind.name, self.params["name"], {"kind": kind.parent_kind, "id": s["identifier"]}),
            siblings) for o in batch]
        if len(found) > 1:
            raise Failure("name: %d %ss named '%s' on other %ss of this load balancer (ids %s); give the id to move one"
                          % (len(found), noun(kind.name), self.params["name"], noun(kind.parent_kind),
                             ", ".join(sorted(o["id"] for o in found))))
        return found[0] if found else None

    def observe(self):
        parent = self.resolve_parent()
        obj = self.find(parent)
        if obj is not None:   # with or without owner: an object carrying an owner tag is someone's (check_owner)
            obj["tags"] = sorted(t["name"] if isinstance(t, dict) else t
                                 for t in self.client.resource_get(obj["id"]).get("tags") or [])
        if parent is None and obj is not None and self.kind.parent:   # addressed by id alone: the object names its parent
            parent = {"kind": self.kind.parent_kind, "id": obj[self.kind.parent], "name": obj[self.kind.parent]}
        if (self.kind.parent != "load_balancer" and parent is not None and not parent.get("missing")
                and (obj is not None or self.params["state"] == "present")):
            try:   # a child is its parent's owner's (containment): check_parent
                parent["tags"] = tag_names(self.client.resource_get(parent["id"]))
            except NotFoundError:
                parent["tags"] = []
        state = ObjectState(parent, obj, self.resolve_links(parent))
        if self.deletes(parent, obj):
            state.blockers = self.blockers(obj)
            state.old_lb = self.old_lb(parent, obj)
        return state

    def old_lb(self, parent, obj):
        """The load balancer a frontend or backend moved to another one (recreate=true) is on, {id, name}: the
        plan labels the old object's delete there, not on the new one (one read, on such a move only)."""
        if self.kind.parent != "load_balancer" or parent is None or obj[self.kind.parent] == parent["id"]:
            return None
        old = find_one(self.client, "loadbalancer", obj[self.kind.parent], missing_ok=True)
        return {"id": obj[self.kind.parent], "name": (old or {}).get("name") or obj[self.kind.parent]}

    def deletes(self, parent, obj):
        """Whether the plan would delete ``obj``: state=absent, or recreate=true under another parent (a delete
        and a create). Either delete is blocked by the same objects (``blockers``)."""
        if obj is None:
            return False
        if self.params["state"] == "absent":
            return True
        return bool(self.params.get("recreate")) and parent is not None and parent["id"] != obj[self.kind.parent]

    def blockers(self, obj):
        """What still points at the object, which the Engine would refuse to delete it for (409): children of
        every kind and objects linking to it, as the declaration says (_blockers)."""
        return blockers(self.client, self.kind, obj)

    # ---- plan ----------------------------------------------------------------------------------
    def owner_tags(self):
        owner = self.params["owner"]
        return [owner_tag(owner, self.params["tag_prefix"])] if owner else []

    def check_owner(self, obj, doing):
        """Proof of ownership before any write. An object carrying an owner tag (of any prefix, _ownership.foreign_tags)
        other than this task's is someone's: never changed, tagged, moved or deleted here. Without ``owner`` only
        objects carrying no owner tag at all are written (a user's own untagged objects); with ``owner``, objects
        carrying exactly its tag, or none (adopted on change). A bind or server is its parent's owner's
        (containment, ``check_parent``): with ``owner`` its parent carries the tag, the child need not. A kind the
        collection does not make (``LbaasKind.unowned_delete``: a load balancer) is deleted only when it carries this
        task's owner tag, or when the task sets the kind's option (``check_unowned_delete``)."""
        owner = self.params["owner"]
        self.refuse_foreign(obj, self.kind.name, "%s it" % doing)
        if doing == "delete":
            self.check_unowned_delete(obj)
        if not owner or is_child(self.kind):
            return
        owners = owner_from_tags(obj.get("tags", []), self.params["tag_prefix"])
        if doing == "delete" and not owners:
            raise Failure("%s (%s) carries no owner tag for '%s'; refusing to delete it"
                          % (describe(self.kind.name, obj), obj["id"], owner))

    def check_unowned_delete(self, obj):
        """A Failure, before any write, for the delete of an object of a kind whose objects the collection did not
        necessarily make (``LbaasKind.unowned_delete``, a load balancer: registering one provisions nothing, the host
        was there before) when it does not carry this task's owner tag and the task does not set that option.
        ``refuse_foreign`` has refused one carrying another owner tag already, whatever the option."""
        option = self.kind.unowned_delete
        tags = self.owner_tags()
        if option is None or self.params.get(option) or (tags and tags[0] in (obj.get("tags") or [])):
            return
        what = "%s (%s)" % (describe(self.kind.name, obj), obj["id"])
        if tags:
            why = ("%s does not carry the owner tag %s: '%s' did not register it through this collection"
                   % (what, tags[0], self.params["owner"]))
        else:
            why = ("%s carries no owner tag: it was registered outside this collection (or by a task without owner)"
                   % what)
        raise Failure("%s; refusing to delete (deregister) it. Set %s: true to deregister it anyway"
                      % (why, option))

    def refuse_foreign(self, obj, kind, doing):
        """A Failure if ``obj`` carries an owner tag (of any prefix) other than this task's, naming it and the fix."""
        owner = self.params["owner"]
        others = foreign_tags(obj.get("tags"), self.owner_tags())
        if not others:
            return
        owners = owner_from_tags(others, self.params["tag_prefix"])
        whose = ("is owned by '%s', not '%s'" % ("', '".join(owners), owner) if owner and owners else
                 "carries the owner tag %s%s" % (", ".join(others), ", not %s" % self.owner_tags()[0] if owner else ""))
        theirs = split_owner_tag(others[0])
        raise Failure("%s (%s) %s; refusing to %s: an object carrying another owner tag belongs to that owner. "
                      "Give this task another name (a %s of its own), or, if it is yours to manage, set owner: %s "
                      "and tag_prefix: %s" % (describe(kind, obj), obj["id"], whose, doing, noun(kind),
                                              theirs[1], theirs[0]), owner_tags=others)

    def check_parent(self, parent, obj=None):
        """A bind or server belongs to its parent's owner (containment, docs/how-reconciliation-works.md): none is
        created, changed or deleted in a parent carrying an owner tag other than this task's; with ``owner`` the
        parent must carry this task's tag (the child itself is never tagged), unless the child carries it itself
        (earlier versions tagged children: they stay valid)."""
        if not is_child(self.kind) or not parent or parent.get("missing"):
            return
        if parent.get("tags"):
            self.refuse_foreign(parent, self.kind.parent_kind, "write a %s in it" % noun(self.kind.name))
        tags = self.owner_tags()
        if tags and tags[0] not in (parent.get("tags") or []) and tags[0] not in ((obj or {}).get("tags") or []):
            raise Failure("%s (%s) does not carry the owner tag %s; a %s belongs to its %s's owner (ownership by "
                          "containment: the %s carries the tag, the %s none). Give the %s owner: %s first (the %s "
                          "module), or leave owner unset"
                          % (describe(self.kind.parent_kind, parent), parent["id"], tags[0], noun(self.kind.name),
                             noun(self.kind.parent_kind), noun(self.kind.parent_kind), noun(self.kind.name),
                             noun(self.kind.parent_kind), self.params["owner"], noun(self.kind.parent_kind)))

    def plan(self, state):
        obj = state.obj
        self.container = state.parent
        if obj is not None or self.params["state"] == "present":
            self.check_parent(state.parent, obj)
        if self.params["state"] == "absent":
            return self.plan_delete(state)
        desired = self.desired_fields()
        desired.update(state.links)
        parent_id = state.parent["id"] if state.parent else (obj or {}).get(self.kind.parent)
        if obj is None:
            where = " on %s" % describe(self.kind.parent_kind, state.parent) if self.kind.parent else ""
            return Plan([self.create(self.params["name"], parent_id, desired,
                                     "no %s named '%s'%s" % (noun(self.kind.name), self.params["name"], where),
                                     self.lb_of(state))])
        self.check_owner(obj, "change")
        if self.kind.parent and parent_id != obj[self.kind.parent]:
            return self.plan_move(state, parent_id, desired)
        changes = diff(obj, desired)
        if self.params["name"] and self.params["name"] != obj["name"]:
            changes["name"] = (obj["name"], self.params["name"])
        missing_tags = [t for t in self.owner_tags() if t not in obj.get("tags", [])]
        return converge(self.kind, obj, changes, missing_tags, lb=self.lb_of(state))

    def plan_delete(self, state):
        obj = state.obj
        if obj is None:
            return Plan()
        self.check_owner(obj, "delete")
        if state.blockers:
            # The Engine would answer 409: say so now, the same in check mode as in a real run.
            raise refused_delete(self.kind.name, obj, state.blockers)
        return Plan([Action(DELETE, self.kind, obj, reason="state=absent", lb=self.lb_of(state))])

    def plan_move(self, state, parent_id, desired):
        """recreate=true: a new object under the new parent, then the old one deleted. The old one's delete is
        refused, before any write, for what state=absent's would be (children, objects linking to it): the
        Engine would answer 409 after the new object was created, leaving both."""
        kind, obj, lb = self.kind, state.obj, self.lb_of(state)
        if not self.params["recreate"]:
            raise Failure("%s (%s) cannot be moved to another %s in place; set recreate=true to delete and "
                          "create it again" % (describe(kind.name, obj), obj["id"], noun(kind.parent_kind)))
        if state.blockers:
            raise refused_delete(kind.name, obj, state.blockers)
        merged = dict((f, obj.get(f)) for f in kind.fields)
        merged.update(desired)
        self.recreated = self.params["name"] or obj["name"]
        new = self.create(self.recreated, parent_id, merged, "recreated under the new %s" % kind.parent, lb)
        old = Action(DELETE, kind, obj, reason="recreate=true: moved to another %s" % kind.parent,
                     lb=state.old_lb or lb)
        old.after = new   # the new object exists before the old one goes
        return Plan([new, old])

    def create(self, name, parent_id, fields, reason, lb=None):
        kind = self.kind
        fields = dict(kind.defaults, **dict((f, v) for f, v in fields.items() if v is not None))
        missing = [kind.option_name(f) for f in kind.required if fields.get(f) is None]
        if missing:   # the Engine would refuse the create (422): say so before any write
            raise Failure("%s required to create %s '%s'" % (" and ".join(missing) + (" are" if len(missing) > 1 else " is"),
                                                             noun(kind.name), name))
        return create(kind, name, parent_id, fields, reason, tags=self.owner_tags(), lb=lb)

    def lb_of(self, state):
        """The load balancer the object is on, for the plan: the parent itself, or the parent's load balancer."""
        parent = state.parent or {}
        if self.kind.parent is None:   # a load balancer is its own
            obj = state.obj or {}
            return {"id": obj.get("id"), "name": obj.get("name") or self.params["name"]}
        if self.kind.parent == "load_balancer":
            return {"id": parent.get("id"), "name": parent.get("name")}
        scope = self.params.get(self.scope_option) if self.scope_option else None
        return {"id": parent.get("load_balancer"), "name": scope or parent.get("load_balancer")}

    # ---- result --------------------------------------------------------------------------------
    def render(self, obj, with_state=True):
        if not obj:
            return {}
        kind = self.kind
        out = {"id": obj["id"], "name": obj["name"]}
        if kind.parent:
            out[kind.parent] = obj.get(kind.parent)
        for field in kind.fields:
            out[field] = obj.get(field)
        if self.params["owner"]:
            out["owner"] = self.owner_of(obj)
        if with_state:
            out["state"] = (obj.get("state") or {}).get("title")
        else:   # the diff, for a person: no ids, the parent and links by name
            del out["id"]
            for field in tuple(kind.references()):
                if out.get(field):
                    out[field] = self.name_of(kind.links.get(field, kind.parent_kind), out[field])
        return out

    def owner_of(self, obj):
        """The owner the object's tags name; a bind or server carrying none is its parent's (containment)."""
        owners = owner_from_tags(obj.get("tags", []), self.params["tag_prefix"])
        container = self.container or {}
        if not owners and is_child(self.kind) and container.get("id") == obj.get(self.kind.parent):
            # a parent an earlier task of the play would create (check mode) is predicted as this task's owner's
            owners = ([self.params["owner"]] if container.get("missing") else
                      owner_from_tags(container.get("tags") or [], self.params["tag_prefix"]))
        return owners[0] if len(owners) == 1 else (owners or None)

    def check_names(self):
        """An empty name or parent reference cannot name anything: refused before any request."""
        for option in ("name", "id", self.kind.parent, self.scope_option):
            value = self.params.get(option) if option else None
            if value is not None and not str(value).strip():
                raise Failure("%s must not be empty" % option)

    def name_of(self, kind, ident):
        """The name of a linked object for the diff: looked up already, else read (a read, in diff mode only)."""
        if ident not in self.names:
            try:
                self.names[ident] = self.client.lbaas_get(kind, ident).get("name") or ident
            except NotFoundError:
                self.names[ident] = ident
        return self.names[ident]

    def run(self):
        self.check_names()
        check_tag_prefix(self.params["tag_prefix"])
        if self.params["owner"] is not None:
            check_owner(self.params["owner"])
        self.validate()
        self.desired_fields()   # fail on bad input before any request
        for field in self.durations:
            warning = to_ms(self.params.get(field), field)[1]
            if warning:
                self.module.warn(warning)
        outcome = Run(self.client, self.check_mode, [Steps(self.observe, self.plan)], wait=self.params["wait"],
                      wait_timeout=self.params["wait_timeout"]).run()
        predicted = outcome.plan.predict(outcome.before)
        before = next(iter(outcome.before.values()), None)
        after = next(iter(outcome.after.values()), None)
        self.result.update(changed=outcome.changed, plan=outcome.plan.to_list())
        self.result[self.kind.name] = self.render(after)
        if self.module._diff:
            self.result["diff"] = dict(before=self.render(before, with_state=False),
                                       after=self.render(next(iter(predicted.values()), None), with_state=False))
