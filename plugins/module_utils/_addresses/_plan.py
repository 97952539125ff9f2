# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""IP addresses as an object kind of the shared reconciler: the plan (pure).

An allocation is an IPAM address object owned by one owner. Its plan is data like an LBaaS plan:
actions (allocate, release, adopt) with the address, the prefix and a reason, ordered releases
first (an address freed by a shrinking count may be the one picked next), then adoptions, then
allocations. ``AddressPlan.predict`` gives check mode's answer from the same plan a real run executes,
so the two cannot disagree. The actions look like ``_reconcile.Action`` where the ``Reconciler``
reads them (``op``, ``id``, ``obj``, ``changes``, ``tags``, ``lb``), and ``AddressApplier``
(``_address_apply``) executes them.
"""

import copy

from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._pool import NEW, address_int
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure

ALLOCATE, RELEASE, ADOPT, UPDATE = "allocate", "release", "adopt", "update"


def rdns_text(value):
    """An rDNS name as compared: the Engine reads it back as an FQDN with a trailing dot once processed."""
    return (value or "").strip().rstrip(".").lower()


def placeholder(prefix_id, ip):
    """The world key of a planned address (unique per address: a run may plan several)."""
    return "(new address %s in %s)" % (ip, prefix_id)


def is_new(ident):
    return isinstance(ident, str) and ident.startswith("(new address")


class _AddressKind:
    name = "address"


ADDRESS = _AddressKind()


def flat(prefix, ip, ident, owner=None, created=None, rdns_name=None):
    """An address object in the shape plans and worlds use."""
    return dict(kind="address", id=ident, name=ip, address=ip, prefix=prefix.cidr, prefix_id=prefix.id,
                family=prefix.family, owner=owner, created=created, rdns_name=rdns_text(rdns_name))


def entry(obj):
    """An address as modules return it (``id`` of a planned one: the placeholder text ``(new address)``)."""
    return dict(address=obj["address"], id=NEW if is_new(obj["id"]) else obj["id"], prefix=obj["prefix"],
                prefix_id=obj["prefix_id"], family=obj["family"])


class AddressAction:
    def __init__(self, op, obj, reason, tags=(), changes=None):
        self.op = op
        self.kind = ADDRESS
        self.obj = obj
        self.reason = reason
        self.changes = changes or {}
        self.tags = list(tags)
        self.lb = None
        self.premise = None
        self.after = None

    @property
    def id(self):
        return self.obj["id"]

    def to_dict(self):
        return dict(action=self.op, address=self.obj["address"], prefix=self.obj["prefix"],
                    id=None if self.op == ALLOCATE else self.obj["id"], reason=self.reason)

    def __repr__(self):
        return "<%s address %s>" % (self.op, self.obj["address"])


class AddressPlan(list):
    waits = ()

    def to_list(self):
        return [a.to_dict() for a in self]

    def ordered(self):
        rank = {RELEASE: 0, ADOPT: 1, UPDATE: 1, ALLOCATE: 2}
        return AddressPlan(sorted(self, key=lambda a: rank[a.op]))

    def predict(self, world):
        out = copy.deepcopy(world)
        for action in self:
            if action.op == RELEASE:
                out.pop(action.id, None)
            else:
                obj = out.setdefault(action.id, copy.deepcopy(action.obj))
                obj.update((field, after) for field, (_before, after) in action.changes.items())
                obj["planned"] = action.op
        return out


def sort_key(prefix_order):
    return lambda obj: (prefix_order.index(obj["prefix_id"]) if obj["prefix_id"] in prefix_order else len(prefix_order),
                        obj["prefix"], address_int(obj["address"]))


def plan_owner(state, owner, count, present, tag, strategy="first", rdns_name=None):
    """The actions that make ``owner`` hold ``count`` addresses (``present``) or none.

    ``state`` is an observed ``AddressState``: ``held`` (the owner's tagged objects), ``untagged``
    (created for the owner by an earlier run whose tag write failed: adopted, or released when absent)
    and, for allocation, ``pools`` ((prefix, allocator) in pool order). Picking marks the address taken
    on its prefix, so a second pick in the same plan takes the next one. ``rdns_name`` (None: left as it
    is, "": none) is what every kept and new address should carry.
    """
    held = sorted(state.held + state.untagged, key=sort_key(state.prefix_order))
    plan = AddressPlan()
    if not present:
        for obj in held:
            plan.append(AddressAction(RELEASE, obj, "state is absent"))
        return plan
    surplus = max(0, len(held) - count)
    releases = sorted(held, key=sort_key(state.prefix_order), reverse=True)[:surplus]
    for obj in releases:
        plan.append(AddressAction(RELEASE, obj, "owner %s holds %d, wants %d" % (owner, len(held), count)))
    gone = set(o["id"] for o in releases)
    for obj in state.untagged:
        if obj["id"] not in gone:
            plan.append(AddressAction(ADOPT, obj, "created for owner %s by an earlier run that could not tag it" % owner,
                                      tags=[tag]))
    kept = len(held) - len(releases)
    wanted = rdns_text(rdns_name)
    for obj in held:
        if rdns_name is not None and obj["id"] not in gone and obj.get("rdns_name") != wanted:
            plan.append(AddressAction(UPDATE, obj, "rdns_name differs", changes={"rdns_name": (obj.get("rdns_name"), wanted)}))
    for number in range(max(0, count - len(held))):
        prefix, ip = pick(state.pools, strategy)
        prefix.take(ip, {"identifier": NEW, "name": ip})   # taken for the next pick
        obj = flat(prefix, ip, placeholder(prefix.id, ip), owner, rdns_name=rdns_name)
        plan.append(AddressAction(ALLOCATE, obj, "owner %s holds %d of %d %s address(es)"
                                  % (owner, kept + number, count, prefix.family), tags=[tag]))
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
