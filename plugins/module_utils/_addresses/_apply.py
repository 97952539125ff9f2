# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The operations of the address kind (``_plan.ADDRESS``): how the shared ``Applier`` writes an address plan.

Releases are deletes of the owner's address objects; an adoption tags an object an earlier run created
for the owner; an update writes a held address's rDNS name (go-anxcloud PR #504), its other texts as they
are. New and claimed addresses get the rDNS name asked for. An allocation creates (or claims) the planned address, safe against concurrent runs:

* an address the Engine refuses as taken (a 400/409/422 naming it) is skipped; any other refusal fails;
* after creating, the address is read back, and if another object holds it too, ours is released and
  the next one tried; after such a collision the prefix is read again, so the next try skips every
  address allocated meanwhile; five attempts at most;
* a create whose answer was lost (5xx, dropped connection) is never sent again: the object is ours if
  the prefix now holds it with our description, else the error stands;
* an unclaimed object of a ``create_empty=false`` prefix is claimed (described, tagged) after confirming
  on the object that it is still unclaimed, and read back; a concurrent claim makes both give way.

Nothing is waited for (address objects have no deployment), and the writes go one after another
(allocations share the prefixes they pick from): the Reconciler observes again and plans again, which
proves the owner now holds what it asked for.
"""

import random
import time

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from ._pool import REFUSED, flat, rdns_text, reread
from ._plan import pick
from .._engine._errors import EngineError
from .._model._ipam import (
    UNCLAIMED_ROLES, UNCLAIMED_STATUS, canonical, description)
from .._model._failure import Failure
from .._model._ownership import foreign_tags, owner_from_tags, owner_tag
from .._model._kind import TAG, Operations

ATTEMPTS = 5


def in_use(exc, ip):
    """Whether a refused create says the address is taken: a 400/409/422 whose message or validation
    names the address. Anything else (a bad prefix, access, a quota) is not a collision and fails."""
    if exc.status not in (400, 409, 422):
        return False
    forms = set([ip, str(netaddr.IPAddress(ip).format(netaddr.ipv6_verbose)) if ":" in ip else ip])
    texts = [exc.message or ""] + list(exc.validation.values())
    return any(form in str(text).lower() for form in forms for text in texts)


class AddressOperations(Operations):
    """``state`` is the observation the plan was made from (its prefixes, allocators and claimable objects).
    Every failure fails the run (nothing here is an open outcome: a lost create is looked for at once)."""

    sequential = True

    def __init__(self, client, state, owner, tag_prefix, strategy="first", sleep=time.sleep, rdns_name=None):
        self.client = client
        self.state = state
        self.owner = owner
        self.tag_prefix = tag_prefix
        self.tag_name = owner_tag(owner, tag_prefix)
        self.strategy = strategy
        self.sleep = sleep
        self.rdns_name = rdns_name   # as the user wrote it; None: the Engine's default (none) on new addresses
        self.claims = dict(state.claims)

    def create(self, applier, action, body):
        return self.allocate(body)["id"], None   # an address answers nothing the run shows

    def tag(self, applier, action, ident):
        if action.effect == TAG:   # an allocation is tagged before its collision check (``_create``)
            self.client.tag_add(ident, self.tag_name)

    def update(self, applier, action, body):
        obj = self.client.address_get(action.id)   # the update sends every text: keep the others as they are
        self.client.address_update(action.id, obj["name"], description=obj.get("description_customer") or "",
                                   role=obj.get("role_text") or "Default", rdns_name=self._rdns(body["rdns_name"]))
        return None

    def _rdns(self, planned):
        """The name to send for the planned (compared) one: the user's spelling when it is that name."""
        if self.rdns_name is not None and rdns_text(self.rdns_name) == planned:
            return self.rdns_name.strip()
        return planned

    def delete(self, applier, action):
        self.client.address_delete(action.id)

    # ---- allocation --------------------------------------------------------------------------------
    def allocate(self, planned):
        """Creates (or claims) the planned address, or the next free one if another run took it meanwhile."""
        pools = self.state.pools
        prefix = [pr for pr, _pool in pools if pr.id == planned["prefix_id"]][0]
        ip = planned["address"]
        for attempt in range(1, ATTEMPTS + 1):
            claim = self.claims.get((prefix.id, ip))
            got = self._claim(prefix, ip, claim) if claim else self._create(prefix, ip)
            if got is not None:
                prefix.addresses[ip] = [got]
                return flat(prefix, ip, got["identifier"], self.owner)
            prefix.take(ip, {"identifier": REFUSED, "name": ip})
            self.sleep(random.uniform(0.05, 0.25) * attempt)   # two losers must not collide again in step
            # Whoever beat us may not be alone: read the prefix again so the next pick skips them all.
            reread(self.client, prefix)
            self.claims.update(((prefix.id, cip), s) for cip, s in prefix.claimable.items())
            prefix, ip = pick(pools, self.strategy)
        raise Failure("could not allocate an address for %s: %d attempts collided with concurrent allocations in pool %s"
                      % (self.owner, ATTEMPTS, ", ".join(pr.cidr for pr, _pool in pools)))

    def _create(self, prefix, ip):
        """A new address object at ``ip``, tagged and confirmed as the only one there; None if the
        address turned out to be taken."""
        client = self.client
        try:
            named = {"rdns_name": self.rdns_name.strip()} if self.rdns_name else {}   # else the Engine's default: none
            created = client.address_create(prefix.id, ip, description=description(self.owner), **named)
        except EngineError as exc:
            if exc.may_have_landed:
                # Never sent twice: the object is ours if the prefix now holds it with our description.
                created = self._landed(prefix, ip)
                if created is None:
                    raise
            elif in_use(exc, ip):
                return None   # the Engine says the address is in use: another run was faster
            else:
                raise
        ident = created["identifier"]
        client.tag_add(ident, self.tag_name)
        same = [s for s in client.address_list(prefix=prefix.id, search=ip) if canonical(s["name"]) == ip]
        if all(s["identifier"] == ident for s in same):
            return created
        client.address_delete(ident)   # two objects at one address: give it up, as the later one
        return None

    def _landed(self, prefix, ip):
        """The object a create whose answer was lost made: exact address and our description."""
        ours = description(self.owner)
        found = [s for s in self.client.address_list(prefix=prefix.id, search=ip)
                 if canonical(s["name"]) == ip and s.get("description_customer") == ours]
        return found[0] if len(found) == 1 else None

    def _claim(self, prefix, ip, summary):
        """Claims an existing unclaimed address object (a ``create_empty=false`` prefix): confirmed
        unclaimed on the object itself, described and tagged, then read back; None if someone else
        holds it (then our claim is undone)."""
        client = self.client
        ident = summary["identifier"]
        ours = description(self.owner)
        obj = client.address_get(ident)
        if (obj.get("status") != UNCLAIMED_STATUS or (obj.get("role_text") or "") not in UNCLAIMED_ROLES
                or (obj.get("description_customer") or "") not in ("", ours)
                or foreign_tags(client.resource_tags(ident))):   # an owner tag of any prefix: someone's
            return None
        rdns = obj.get("rdns_name") if self.rdns_name is None else self.rdns_name.strip()
        client.address_update(ident, obj["name"], description=ours, role=obj.get("role_text") or "Default",
                              rdns_name=rdns or "")
        client.tag_add(ident, self.tag_name)
        owners = owner_from_tags(client.resource_tags(ident), self.tag_prefix)
        now = client.address_get(ident)
        if owners == [self.owner] and now.get("description_customer") == ours:
            return dict(summary, description_customer=ours)
        # Another run claimed it at the same time: both give way, as with leases.
        client.tag_remove(ident, self.tag_name)
        if now.get("description_customer") == ours:
            client.address_update(ident, now["name"], description="", role=now.get("role_text") or "Default",
                                  rdns_name=now.get("rdns_name") or "")
        return None
