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
# When an operation declared in ``Kind.runs`` runs, past the order of dependencies (a record of what the plan
# achieved, such as a service's marker): AFTER_WRITES once every other write of the plan returned and the tag writes
# of its load balancer succeeded, alongside the wait; AFTER_WAIT once the wait read everything back and every tag
# write ended.
AFTER_WRITES, AFTER_WAIT = "after writes", "after wait"
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


def _sorted(names, before, key, what):
    """``names`` topologically sorted: each after the names ``before[name]`` lists; of those free to go,
    the one ``key`` puts first."""
    order = []
    while len(order) < len(names):
        ready = [n for n in names if n not in order and all(d in order for d in before[n])]
        if not ready:
            raise ValueError("kinds %s each other in a cycle: %s" % (what, ", ".join(sorted(set(names) - set(order)))))
        order.append(min(ready, key=key))
    return order


def _depths(by_name):
    """kind name -> the length of its longest chain of dependencies (0: depends on no kind)."""
    depth = {}

    def depth_of(name, seen=()):
        if name not in depth:
            if name in seen:
                raise ValueError("kinds depend on each other in a cycle: %s" % ", ".join(seen))
            deps = [d for d in by_name[name].dependencies() if d in by_name and d != name]
            depth[name] = 1 + max(depth_of(d, seen + (name,)) for d in deps) if deps else 0
        return depth[name]
    return dict((name, depth_of(name)) for name in by_name)


def create_order(kinds=None):
    """The names of ``kinds`` (default: every registered kind) in the order their creates run: each after
    every kind it depends on (``Kind.dependencies``) or is created after (``created_after``), and otherwise
    in the order they were declared (a topological sort that keeps the declaration's order wherever the
    dependencies allow it)."""
    kinds = list(_REGISTRY.values()) if kinds is None else list(kinds)
    names = [k.name for k in kinds]
    before = dict((k.name, [d for d in k.dependencies() + list(k.created_after) if d in names and d != k.name])
                  for k in kinds)
    return _sorted(names, before, names.index, "depend on")


def delete_order(kinds=None):
    """The names of ``kinds`` in the order their deletes run: every kind before every kind it depends on,
    and after the kinds it is declared to be deleted after (``deleted_after``); of the kinds free to go, the
    one at the end of the longest chain of dependencies first (a rule, which names an ACL of a frontend of a
    backend), and among kinds as deep, the one created later first."""
    kinds = list(_REGISTRY.values()) if kinds is None else list(kinds)
    by_name = dict((k.name, k) for k in kinds)
    before = dict((k.name, [d for d in k.deleted_after if d in by_name and d != k.name]) for k in kinds)
    for kind in kinds:
        for needed in kind.dependencies():
            if needed in by_name and needed != kind.name:
                before[needed].append(kind.name)   # a kind's dependents go before it
    depth, created = _depths(by_name), create_order(kinds)
    return _sorted(created, before, lambda name: (-depth[name], -created.index(name)), "are deleted after")


_ORDERS = {}


def _positions():
    """kind name -> (create position, delete position) among the registered kinds, computed once per registry."""
    key = tuple((name, id(kind)) for name, kind in _REGISTRY.items())
    if key not in _ORDERS:
        creates, deletes = create_order(), delete_order()
        _ORDERS.clear()
        _ORDERS[key] = dict((name, (creates.index(name), deletes.index(name))) for name in creates)
    return _ORDERS[key]


def _unique(keys):
    """``keys`` without repeats, in their order."""
    out = []
    for key in keys:
        if key not in out:
            out.append(key)
    return tuple(out)


class Kind:
    """One object type a reconciler plans, predicts and applies. Subclasses set the attributes and
    override what differs; the defaults fit an object with a name, a parent and plain fields."""

    # Kinds this kind's writes follow though it does not depend on them (no parent, no link): an address is
    # allocated after the LBaaS objects of a plan and released after them and the markers, a marker removed
    # once the objects it vouches for are gone. Names; a kind not registered is no constraint.
    created_after = ()
    deleted_after = ()
    # Bands before the order derived from all that (create_order, delete_order); every kind of the
    # collection is in band 0, a test's kind may pin itself before or after all of them.
    create_rank = 0          # creates, updates and tag writes: lower bands first
    delete_rank = 0          # deletes: lower bands first
    effects = {}             # the kind's own operation names -> generic effect (CREATE, DELETE, TAG ...)
    # The overlay that keeps its actions for check mode across tasks (its ``section``, _reconcile._predictions):
    # "objects" (_lbaas._predicted) fits an object with a name, a parent and plain fields.
    recorded_as = "objects"
    # A kind whose actions write about the objects, not objects (a service's marker): shown in a plan, but not
    # counted in its summary, not in the state check mode predicts, not recorded across tasks, and no object a
    # wait must read back.
    bookkeeping = False
    # A summary line (``_reconcile._plan.Plan.summary``) of a place holding only objects of such kinds shows only the
    # counts that are not 0 ("dns shop.example.com.: 1 to change"); a load balancer's shows all three.
    terse_summary = False
    # operation -> AFTER_WRITES or AFTER_WAIT, for the operations that run after the plan's other writes (see
    # there); nothing waits for them in turn. An operation not named runs by its dependencies, as any object's.
    runs = {}
    # The field that takes an object out of service without deleting it (a frontend's ``enabled``: False is off), or
    # None: a plan's summary counts the actions that turn it off or on (``switched``).
    switch = None

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

    def runs_after(self, op):
        """AFTER_WRITES or AFTER_WAIT when ``op`` runs after the plan's other writes (``runs``), else None."""
        return self.runs.get(op)

    @property
    def delete_level(self):
        """Deletes run one level at a time (a level's deletes together): one above every kind this one is
        deleted after, else 0 (the LBaaS kinds count their children and referrers, ``_kinds``)."""
        levels = [_REGISTRY[k].delete_level for k in self.deleted_after if k in _REGISTRY and k != self.name]
        return 1 + max(levels) if levels else 0

    def is_off(self, obj):
        """Whether ``obj`` is out of service by its switch (``switch`` False)."""
        return self.switch is not None and obj.get(self.switch) is False

    def switched(self, action):
        """"off" when ``action`` takes its object out of service (an update turning the switch off, a create of an
        object that starts off), "on" when it puts it back; else None."""
        if self.switch is None or self.effect(action.op) not in (CREATE, UPDATE):
            return None
        if self.switch in action.changes:
            before, after = action.changes[self.switch]
            if after is False and before is not False:
                return "off"
            if after is True and before is False:
                return "on"
        return None

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

    @property
    def answer_keys(self):
        """The keys of an Engine answer ``from_engine`` reads: what a listing entry must carry to stand for the
        object's GET (full listings, _engine/_listings.py). Derived from the declaration, never listed again."""
        return _unique(["identifier", "name"] + self.references() + [self.engine_key(f) for f in self.fields])

    def normalize_field(self, field, value, option=None):
        return self.fields[field](value) if field in self.fields else value

    def engine_key(self, field):
        """The key of ``field`` in the Engine's answers (the LBaaS kinds map a few, ``_kinds.LbaasKind.wire``)."""
        return field

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

    def read(self, client, ident):
        """The object as the Engine answers it now (a wait's poll); a NotFoundError when it is gone."""
        return client.lbaas_get(self.name, ident)

    def redeploy(self, client, ident, obj):
        """Asks for a new deployment of a failed object (``obj``: flat, as last read): go-anxcloud's generic client
        PUTs the whole object, which carries ``"state": "0"`` (a LoadBalancer's too, here: ``redeploy``)."""
        client.lbaas_update(self.name, ident, self.update_body(obj), redeploy=True)

    def still_waiting(self, label, obj):
        """What a wait that timed out names for this object, ``obj`` as last read (None: not read or gone): its
        label; a kind whose answer says more about why (a zone's revision) tells it."""
        return label

    def place(self, action):
        """Where ``action`` writes, as the run's summary line names it: the load balancer of an object on one."""
        return (action.lb or {}).get("name")

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
    # Every action of the kind in a plan is one write (``write_all``), whatever its effect: a zone's record sets, one
    # changeset of the zone (all or nothing). Such a kind is written after the other creates and updates of the plan.
    batched = False

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

    def write_all(self, applier, actions):
        """Writes ``actions`` (of a ``batched`` kind) as one write; returns what to wait for."""
        raise NotImplementedError

    def target(self, action, ident, expect="ok"):
        """What the wait polls after the action (None: nothing to wait for)."""
        return None

    def settles_later(self, action, exc):
        """Whether a failed write is an open outcome a new observation settles (else the run fails)."""
        return False
