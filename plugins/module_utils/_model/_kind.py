# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The written interface of what a reconciler runs: kinds of objects, and the operations that write them.

A ``Kind`` says what an object of it is and what a plan does with it:

* identity within its parent (``parent``: the field naming the parent object; ``identity(obj)``);
* fields (``fields``: field -> normaliser, ``links``: fields naming other objects) and their
  normalisation (``normalize_field``, ``from_engine``);
* the bodies a write sends (``to_engine`` for a create, ``update_body`` for a whole-object update);
* the state check mode predicts after an action (``predict``), and how an action reads in a
  module's plan (``entry``);
* where it goes in a plan, from what it depends on (``dependencies``: its parent kind and the kinds its
  links point at): creates after their dependencies, deletes before them (``create_order``,
  ``delete_order``; ``delete_level``: children before parents, one level at a time), and which generic
  effect each of its operations has (``effect``: an address's ``allocate`` is a create, ``release`` a
  delete, ``adopt`` a tag write).

``Operations`` say how an action of a kind reaches the Engine (create, update, tag, redeploy,
delete) and declare what the applier may rely on (``confirms_by_wait``: the wait reads every
written object back; ``sequential``: one write after another in plan order). The applier
(``_reconcile._apply``), the loop (``_reconcile._loop``) and check mode's prediction
(``_reconcile._plan.Plan.predict``, ``_reconcile._predictions``) use nothing else of a kind, so adding an
object type is declaring a kind. It lives in ``_model`` (not ``_reconcile``) so that the model's kinds
(``_kinds``) declare themselves without importing the reconciler.

This module imports nothing of the collection: every layer may declare kinds.
"""

CREATE, UPDATE, DELETE, REDEPLOY, TAG = "create", "update", "delete", "redeploy", "tag"
# The state check mode shows for an object a plan creates or changes (docs/engine-api-facts.md).
PREDICTED_STATE = {CREATE: "NewlyCreated", UPDATE: "Updating", REDEPLOY: "Updating"}

_REGISTRY = {}


def register(kind):
    """Makes ``kind`` known by its name (predictions recorded across tasks name kinds as text)."""
    _REGISTRY[kind.name] = kind
    return kind


def kind_named(name):
    """The kind registered as ``name``; a KeyError names an unknown one."""
    return _REGISTRY[name]


def registered():
    """Every kind registered, in the order they were declared."""
    return list(_REGISTRY.values())


def create_order(kinds=None):
    """The names of ``kinds`` (default: every registered kind) in the order their creates run: each after
    every kind it depends on (``Kind.dependencies``), and otherwise in the order they were declared (a
    topological sort that keeps the declaration's order wherever the dependencies allow it)."""
    kinds = list(_REGISTRY.values()) if kinds is None else list(kinds)
    known = set(k.name for k in kinds)
    needs = dict((k.name, [d for d in k.dependencies() if d in known and d != k.name]) for k in kinds)
    order = []
    while len(order) < len(kinds):
        ready = [k.name for k in kinds if k.name not in order and all(d in order for d in needs[k.name])]
        if not ready:
            raise ValueError("kinds depend on each other in a cycle: %s"
                             % ", ".join(sorted(n for n in needs if n not in order)))
        order.append(ready[0])
    return order


def delete_order(kinds=None):
    """The names of ``kinds`` in the order their deletes run: the one at the end of the longest chain of
    dependencies first (a rule, which names an ACL of a frontend of a backend), so every kind goes before
    every kind it depends on; among kinds as deep, the one created later first."""
    kinds = list(_REGISTRY.values()) if kinds is None else list(kinds)
    by_name = dict((k.name, k) for k in kinds)
    depth = {}

    def depth_of(name, seen=()):
        if name not in depth:
            if name in seen:
                raise ValueError("kinds depend on each other in a cycle: %s" % ", ".join(seen))
            deps = [d for d in by_name[name].dependencies() if d in by_name and d != name]
            depth[name] = 1 + max(depth_of(d, seen + (name,)) for d in deps) if deps else 0
        return depth[name]
    created = create_order(kinds)
    return sorted(created, key=lambda name: (-depth_of(name), -created.index(name)))


_ORDERS = {}


def _positions():
    """kind name -> (create position, delete position) among the registered kinds, computed once per registry."""
    key = tuple((name, id(kind)) for name, kind in _REGISTRY.items())
    if key not in _ORDERS:
        creates, deletes = create_order(), delete_order()
        _ORDERS.clear()
        _ORDERS[key] = dict((name, (creates.index(name), deletes.index(name))) for name in creates)
    return _ORDERS[key]


class Kind:
    """One object type a reconciler plans, predicts and applies. Subclasses set the attributes and
    override what differs; the defaults fit an object with a name, a parent and plain fields."""

    # Bands of a plan before the order derived from dependencies (create_order, delete_order): every kind
    # that is no object of the Engine's object tree (a service marker, an address) keeps a number that
    # puts all its actions before or after those of the tree's kinds (band 0).
    create_rank = 0          # creates, updates and tag writes: lower bands first
    delete_rank = 0          # deletes: lower bands first ...
    delete_level = 0         # ... run one level at a time (a level's deletes together)
    effects = {}             # the kind's own operation names -> generic effect (CREATE, DELETE, TAG ...)
    recorded_as = "objects"  # how check mode's predictions across tasks keep it (_predictions)

    def __init__(self, name, parent=None, parent_kind=None, fields=None, links=None, resource_type=None):
        self.name = name
        self.parent = parent              # the field naming the parent object (None: a top-level object)
        self.parent_kind = parent_kind
        self.fields = fields or {}        # field -> normaliser, in display order
        self.links = links or {}          # other fields naming objects -> the kind they point to
        self.resource_type = resource_type   # the Engine's core resource type, when known
        register(self)

    def effect(self, op):
        """The generic effect of ``op`` (an operation of this kind)."""
        return self.effects.get(op, op)

    def dependencies(self):
        """The kinds an object of this kind needs to exist before it and outlives it: its parent's kind
        and the kinds its links point at."""
        return [k for k in [self.parent_kind] + list(self.links.values()) if k]

    def rank(self, action):
        """Where ``action`` goes in a plan among the actions of its effect (deletes, or the rest): its band,
        then its kind's place in the order of creates or deletes derived from dependencies."""
        creates, deletes = _positions().get(self.name, (0, 0))
        if self.effect(action.op) == DELETE:
            return (self.delete_rank, deletes)
        return (self.create_rank, creates)

    def identity(self, obj):
        """What tells two objects of this kind apart within the plan's world: parent and name."""
        return (obj.get(self.parent) if self.parent else None, obj.get("name"))

    def references(self):
        """The fields whose value may name another object (a placeholder in a plan)."""
        return [f for f in [self.parent] + list(self.links) if f]

    def normalize_field(self, field, value, option=None):
        return self.fields[field](value) if field in self.fields else value

    def from_engine(self, obj):
        """The flat object every comparison uses, from an Engine answer."""
        out = {"kind": self.name, "id": obj.get("identifier"), "name": obj.get("name")}
        for field in self.references() + list(self.fields):
            out[field] = self.normalize_field(field, obj.get(field))
        return out

    def to_engine(self, desired):
        """A create body: name, parent and fields, unset (None) ones left out."""
        return dict((k, desired[k]) for k in ["name"] + self.references() + list(self.fields)
                    if desired.get(k) is not None)

    def update_body(self, obj, changes=None):
        """A whole-object update body: the object's fields with ``changes`` (field -> new value) applied."""
        body = dict((k, obj.get(k)) for k in ["name"] + self.references() + list(self.fields))
        body["identifier"] = obj["id"]
        body.update(changes or {})
        return body

    def predict(self, obj, action):
        """The object as it will be after ``action`` (not a delete). ``obj``: a copy of it as it is, or
        None for one the plan creates."""
        obj = obj if obj is not None else dict(action.obj)
        for field, (_before, after) in action.changes.items():
            obj[field] = after
        effect = self.effect(action.op)
        if effect in PREDICTED_STATE:
            obj["state"] = {"id": None, "title": PREDICTED_STATE[effect], "type": None}
        obj["planned"] = action.op
        obj["tags"] = sorted(set(obj.get("tags") or []) | set(action.tags))
        return obj

    def entry(self, action):
        """How ``action`` reads in a module's ``plan``."""
        return {
            "load_balancer": (action.lb or {}).get("name"),
            "action": action.op,
            "type": self.name,
            "name": action.obj.get("name"),
            "id": action.id,
            "changes": dict((f, {"before": b, "after": a}) for f, (b, a) in sorted(action.changes.items())),
            "tags": list(action.tags),
            "reason": action.reason,
        }

    def label(self, action):
        return "%s %s '%s'" % (action.op, self.name, action.obj.get("name"))

    def __repr__(self):
        return "Kind(%s)" % self.name


class Operations:
    """How the actions of one kind reach the Engine; the applier calls nothing else.

    ``confirms_by_wait`` is the capability the loop asks about: True when every write of the kind is
    followed by a deployment the wait reads back, so that the wait's reads are the state after the
    run. ``sequential``: the kind's writes go one after another in plan order (they share state,
    such as an address picked from the same prefix). ``after_gone``: its deletes start only once the
    deletes of lower levels are gone (a marker outlives the objects it vouches for).
    """

    confirms_by_wait = False
    sequential = False
    after_gone = False

    def create(self, applier, action, body):
        """Creates the object; returns ``(identifier, the Engine's answer or None)``."""
        raise NotImplementedError

    def update(self, applier, action, body):
        """Writes the whole object; returns the Engine's answer or None."""
        raise NotImplementedError

    def tag(self, applier, action, ident):
        """Writes the action's tags onto ``ident``."""
        raise NotImplementedError

    def redeploy(self, applier, action):
        raise NotImplementedError

    def delete(self, applier, action):
        raise NotImplementedError

    def delete_all(self, applier, actions):
        """Deletes one level's ``actions``; returns what to wait for. Default: one after another."""
        for action in actions:
            self.delete(applier, action)
        return []

    def target(self, action, ident, expect="ok"):
        """What the wait polls after the action (None: nothing to wait for)."""
        return None

    def settles_later(self, action, exc):
        """Whether a failed write is an open outcome a new observation settles (else the run fails)."""
        return False
