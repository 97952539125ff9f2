# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A plan is data: ordered actions, each with its kind, its object, the fields that differ and a reason.

Check mode predicts the outcome from the plan (``Plan.predict``); a real run executes the same plan
(``_apply``), so the two can never disagree. Every kind (``_kind``) plans through the one ``Action``
and ``Plan``: LBaaS objects, IPAM addresses, the markers gc removes.
"""

import copy

# Importing the LBaaS kinds registers them: an Action may name its kind as text.
from .._model import _kinds  # noqa: F401  pylint: disable=unused-import
from .._model._kind import (  # noqa: F401  pylint: disable=unused-import
    AFTER_WAIT, AFTER_WRITES, CREATE, DELETE, PREDICTED_STATE, REDEPLOY, TAG, UPDATE, kind_named)


class Placeholder(str):
    """The identifier of an object a plan creates, until the Engine gives it one. It reads as the text
    check mode shows (``(new frontend 80.web on lb1)``; ``where`` keeps one name on two load balancers
    apart) and is told apart from an identifier by its type, not by its text."""

    def __new__(cls, kind, name, where=None, text=None):
        value = super().__new__(cls, text or "(new %s %s%s)" % (kind, name, " on %s" % where if where else ""))
        value.kind, value.name, value.where = kind, name, where
        return value

    def __reduce__(self):
        return (Placeholder, (self.kind, self.name, self.where, str(self)))

    @classmethod
    def parse(cls, text):
        """A placeholder as recorded in text (check mode's predictions across tasks travel as JSON)."""
        if isinstance(text, cls) or not isinstance(text, str) or not text.startswith("(new "):
            return text
        words = text[5:-1].split(" ", 1)
        return cls(words[0], words[1] if len(words) > 1 else "", text=text)

    def numbered(self, number):
        """The same placeholder with a number (a second object of one name elsewhere)."""
        return Placeholder(self.kind, self.name, self.where, text="%s #%d)" % (self[:-1], number))


def placeholder(kind, name, where=None):
    """The identifier check mode shows for an object that does not exist yet."""
    return Placeholder(kind, name, where)


def is_placeholder(value):
    return isinstance(value, Placeholder)


class Action:
    """One step of a plan. ``obj`` is the flat object: desired for create, observed otherwise.
    ``kind`` is a ``_kind.Kind`` or its registered name; ``op`` one of the kind's operations."""

    def __init__(self, op, kind, obj, changes=None, reason="", tags=(), lb=None, owner=None):
        self.op = op
        self.kind = kind_named(kind) if isinstance(kind, str) else kind
        self.obj = obj
        self.changes = changes or {}
        self.reason = reason
        self.tags = list(tags)
        self.lb = lb              # the load balancer the object is on ({id, name}), when known
        self.owner = owner        # whose object it is, when a plan spans owners (gc)
        self.premise = None       # the object whose ownership this write relies on (its own tag or its parent's)
        self.after = None         # another action that must have run first (a move creates before it deletes)
        self.needs = []           # actions of the plan a create/update waits for besides the creates it names

    @property
    def id(self):
        return self.obj["id"]

    @property
    def later(self):
        """AFTER_WRITES or AFTER_WAIT when the action runs after the plan's other writes, as its kind declares for
        its operation (``Kind.runs``: a record of what the plan achieved, such as a service's marker); else None."""
        return self.kind.runs_after(self.op)

    @property
    def effect(self):
        """The generic effect (CREATE, UPDATE, DELETE, TAG, REDEPLOY) of the kind's operation."""
        return self.kind.effect(self.op)

    def to_dict(self):
        return self.kind.entry(self)

    def __repr__(self):
        return "<%s %s %s>" % (self.op, self.kind.name, self.obj.get("name"))


class Plan(list):
    """Ordered actions; ``waits`` are existing objects still deploying that a run waits for."""

    def __init__(self, actions=(), waits=()):
        super().__init__(actions)
        self.waits = list(waits)

    @classmethod
    def joined(cls, plans):
        """One plan of the actions and waits of ``plans`` (the parts of a run)."""
        out = cls([a for plan in plans for a in plan])
        out.waits = [w for plan in plans for w in getattr(plan, "waits", ())]
        return out

    def _new(self, actions):
        """A plan of the same type and attributes with other actions."""
        out = copy.copy(self)
        out[:] = actions
        return out

    def to_list(self):
        return [a.to_dict() for a in self]

    def objects(self):
        """The actions that write objects: every action but bookkeeping (``Kind.bookkeeping``)."""
        return [a for a in self if not a.kind.bookkeeping]

    def ordered(self):
        """Deletes first, children before parents; then creates/updates, parents before children; then
        the deletes that must wait for a create (a move: the new object exists before the old one goes);
        last, in plan order, what runs after the other writes (``Action.later``), as the applier runs it.
        Within a rank, the actions of one owner stay together."""
        now = [a for a in self if not a.later]

        def deletes(late):
            return sorted((a for a in now if a.effect == DELETE and (a.after is not None) == late),
                          key=lambda a: (a.kind.rank(a), a.owner or ""))
        rest = sorted((a for a in now if a.effect != DELETE), key=lambda a: (a.kind.rank(a), a.owner or ""))
        return self._new(deletes(False) + rest + deletes(True) + [a for a in self if a.later])

    def summary(self, lbs=(), done=False):
        """Terraform's plan line per place: "lb1: 3 to add, 1 to change, 0 to destroy"; ``done`` (a real run that
        applied the plan): "lb1: 3 added, 1 changed, 0 destroyed". The place is the kind's (``Kind.place``): the
        load balancer of an LBaaS object, the name of a DNS record set ("dns shop.example.com.: 1 to change"), ...
        Tag adoptions and redeploys are changes; ``lbs`` lists load balancers to show even when untouched (with
        every count); another place shows only the counts that are not 0. Bookkeeping (``Kind.bookkeeping``: a
        service's marker) is no object: not counted, and no line of its own.

        What takes objects out of service or puts them back (``Kind.switched``) is said after the count it is part of:
        "lb1: 0 to add, 1 to change (1 frontend to disable), 0 to destroy", "1 changed (1 frontend enabled)"; an
        object created off: "4 to add (1 frontend disabled)"."""
        words = ("added", "changed", "destroyed") if done else ("to add", "to change", "to destroy")
        counts, terse, notes = {}, set(), {}
        order = [lb.get("name") for lb in lbs]
        for action in self.objects():
            name = action.kind.place(action)
            if name not in order:
                order.append(name)
            if action.kind.terse_summary:
                terse.add(name)
            column = {CREATE: 0, DELETE: 2}.get(action.effect, 1)
            counts.setdefault(name, [0, 0, 0])[column] += 1
            switched = action.kind.switched(action)
            if switched:
                key = (column, "disable" if switched == "off" else "enable", getattr(action.kind, "noun", action.kind.name))
                notes.setdefault(name, {})[key] = notes.get(name, {}).get(key, 0) + 1

        def count(name, column):
            number = counts.get(name, (0, 0, 0))[column]
            said = ["%d %s%s %s" % (n, noun, "" if n == 1 else "s", _switch_word(verb, column, done))
                    for (col, verb, noun), n in sorted(notes.get(name, {}).items()) if col == column]
            return "%d %s%s" % (number, words[column], " (%s)" % ", ".join(said) if said else "")
        lines = []
        for name in order:
            numbers = counts.get(name, (0, 0, 0))
            said = [count(name, column) for column in range(3) if numbers[column] or name not in terse]
            lines.append("%s: %s" % (name or "-", ", ".join(said)))
        return "; ".join(lines)

    def predict(self, world):
        """The objects (``{id: flat object}``) as they will be after the plan ran (each kind's ``predict``);
        bookkeeping (``Kind.bookkeeping``) changes no object."""
        out = copy.deepcopy(world)
        for action in self.objects():
            if action.effect == DELETE:
                out.pop(action.id, None)
                continue
            out[action.id] = action.kind.predict(out.get(action.id) or copy.deepcopy(action.obj), action)
        return out


def _switch_word(verb, column, done):
    """How a switched object reads in a summary: created off ("disabled"), or turned off or on by a change ("to
    disable", "disabled", "to enable", "enabled")."""
    if column == 0 or done:
        return verb + "d"
    return "to " + verb


def placeholders_of(action):
    """The placeholders an action's body will name: its parent and links, and changed links."""
    found = []
    for field in action.kind.references():
        if is_placeholder(action.obj.get(field)):
            found.append(action.obj[field])
        if field in action.changes and is_placeholder(action.changes[field][1]):
            found.append(action.changes[field][1])
    return found
