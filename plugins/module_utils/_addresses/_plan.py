# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""IP addresses as an object kind of the shared reconciler: the plan (pure).

An allocation is an IPAM address object owned by one owner. Its plan is data like an LBaaS plan:
actions (allocate, release, adopt, update) with the address, the prefix and a reason, ordered
releases first (an address freed by a shrinking count may be the one picked next), then adoptions and
in-place updates (the rDNS name, go-anxcloud PR #504), then allocations. The address is a ``Kind`` of the shared reconciler (``ADDRESS``): its actions are
``Action`` and its plans ``Plan``, so ``Plan.predict`` gives check mode's answer from the same plan a
real run executes, and the one ``Applier`` executes it with the address operations (``_apply``).
"""

from ._pool import (  # noqa: F401  pylint: disable=unused-import
    NEW, address_int, flat, rdns_text)
from .._model._failure import Failure
from .._model._kind import CREATE, DELETE, TAG, UPDATE, Kind
from .._model._kinds import KINDS
from .._reconcile._plan import Action, Placeholder, Plan, is_placeholder

ALLOCATE, RELEASE, ADOPT, CHANGE = "allocate", "release", "adopt", "update"


def placeholder(prefix_id, ip):
    """The world key of a planned address (unique per address: a run may plan several)."""
    return Placeholder("address", ip, prefix_id, text="(new address %s in %s)" % (ip, prefix_id))


def is_new(ident):
    return is_placeholder(ident)


class AddressKind(Kind):
    """An IPAM address object of one owner: identity is its address in its prefix; allocating is a
    create, releasing a delete, adopting (an object created for the owner but never tagged) a tag write,
    changing a held address's rDNS name an update."""

    effects = {ALLOCATE: CREATE, RELEASE: DELETE, ADOPT: TAG, CHANGE: UPDATE}
    created_after = tuple(KINDS)                 # after every LBaaS object (a plan of both is gc's)
    deleted_after = tuple(KINDS) + ("marker",)   # released last: once the LBaaS objects (binds) and gc's markers are gone
    recorded_as = "addresses"

    def identity(self, obj):
        return (obj.get("prefix_id"), obj.get("address"))

    def rank(self, action):
        # adoptions and updates before allocations: an owner that holds enough after adopting allocates nothing more
        return super().rank(action) + ({ADOPT: 0, CHANGE: 1, ALLOCATE: 2}.get(action.op, 0),)

    def to_engine(self, desired):
        return dict(desired)   # the planned address: the operations allocate it (or the next free one)

    terse_summary = True

    def place(self, action):
        return "pool %s" % action.obj["prefix"]

    def predict(self, obj, action):
        for field, (_before, after) in action.changes.items():
            obj[field] = after
        obj["planned"] = action.op
        return obj

    def entry(self, action):
        return dict(action=action.op, address=action.obj["address"], prefix=action.obj["prefix"],
                    id=None if action.op == ALLOCATE else action.obj["id"], reason=action.reason)


ADDRESS = AddressKind("address", fields={"address": str, "prefix_id": str})


def entry(obj):
    """An address as modules return it (``id`` of a planned one: the placeholder text ``(new address)``)."""
    return dict(address=obj["address"], id=NEW if is_new(obj["id"]) else obj["id"], prefix=obj["prefix"],
                prefix_id=obj["prefix_id"], family=obj["family"])


def sort_key(prefix_order):
    return lambda obj: (prefix_order.index(obj["prefix_id"]) if obj["prefix_id"] in prefix_order else len(prefix_order),
                        obj["prefix"], address_int(obj["address"]))


def plan_owner(state, owner, count, present, tag, strategy="first", rdns_name=None):
    """The actions that make ``owner`` hold ``count`` addresses (``present``) or none.

    ``state`` is an observed ``AddressState``: ``held`` (the owner's tagged objects), ``untagged``
    (created for the owner by an earlier run whose tag write failed: adopted, or released when absent)
    and, for allocation, ``pools`` ((prefix, allocator) in pool order). Picking marks the address taken
    on its prefix, so a second pick in the same plan takes the next one. ``rdns_name`` (None: left as
    it is; "": none) is the rDNS name every kept and new address carries.
    """
    held = sorted(state.held + state.untagged, key=sort_key(state.prefix_order))
    plan = Plan()
    if not present:
        for obj in held:
            plan.append(Action(RELEASE, ADDRESS, obj, reason="state is absent"))
        return plan
    surplus = max(0, len(held) - count)
    releases = sorted(held, key=sort_key(state.prefix_order), reverse=True)[:surplus]
    for obj in releases:
        plan.append(Action(RELEASE, ADDRESS, obj, reason="owner %s holds %d, wants %d" % (owner, len(held), count)))
    gone = set(o["id"] for o in releases)
    for obj in state.untagged:
        if obj["id"] not in gone:
            plan.append(Action(ADOPT, ADDRESS, obj, tags=[tag],
                               reason="created for owner %s by an earlier run that could not tag it" % owner))
    kept = len(held) - len(releases)
    wanted = rdns_text(rdns_name)
    for obj in held:
        if rdns_name is not None and obj["id"] not in gone and obj.get("rdns_name") != wanted:
            plan.append(Action(CHANGE, ADDRESS, obj, changes={"rdns_name": (obj.get("rdns_name"), wanted)},
                               reason="rdns_name differs"))
    for number in range(max(0, count - len(held))):
        prefix, ip = pick(state.pools, strategy)
        prefix.take(ip, {"identifier": NEW, "name": ip})   # taken for the next pick
        obj = flat(prefix, ip, placeholder(prefix.id, ip), owner, rdns_name=rdns_name)
        plan.append(Action(ALLOCATE, ADDRESS, obj, tags=[tag], reason="owner %s holds %d of %d %s address(es)"
                           % (owner, kept + number, count, prefix.family)))
    return plan


def pick(pools, strategy="first"):
    """The next address by strategy: the first prefix of the pool with room, or a failure naming them all."""
    failures = []
    for prefix, pool in pools:
        try:
            return prefix, pool.allocate(prefix.taken(), strategy=strategy)
        except Failure as exc:
            failures.append(exc.msg)
    raise Failure("; ".join(failures) if len(failures) == 1 else
                  "every prefix of the pool is exhausted: %s" % "; ".join(failures))


def in_use_message(ip, binds):
    """Why an address cannot be released: the binds that still listen on it."""
    return "address %s is still used by %s" % (ip, ", ".join(
        "bind '%s' (%s) on load balancer %s" % (b["name"], b["id"], b.get("load_balancer") or "(unknown)") for b in binds))
