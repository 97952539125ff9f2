# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Binds put on an address that no IPAM prefix of the account holds: a warning, not a refusal.

Such an address is most likely a typo or another customer's: the Engine routes to a load balancer only the
addresses of the account's prefixes, so the bind deploys and carries no traffic. It is not refused, as an
account may use addresses whose prefixes it cannot list (a shared or a provider's network), and loopback
tests bind what no IPAM holds. Asking costs a request (the account's prefix listing), so it is asked only
when a plan creates a bind or moves one to another address, once per run, and never on a run that finds
everything in place.

Nothing waits for the answer but the warning, so a real run of the service (``ahead``) sends the listing on
the client's pool and goes on (its lease, its writes); the warnings follow when the listing has answered, at
the latest when the run ends (``settle``). Check mode asks in planning, as it has nothing to overlap.
"""

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from .._engine._errors import AccessDeniedError, EngineError, NotFoundError
from .._model._kind import CREATE, UPDATE
from .._reconcile._plan import Plan
from .._reconcile._run import Part


def bind_addresses(plan):
    """The addresses the binds of ``plan`` are created on or moved to."""
    out = set()
    for action in plan:
        if action.kind.name == "bind" and action.effect in (CREATE, UPDATE) and "address" in action.changes:
            address = action.changes["address"][1]
            if address:
                out.add(address)
    return sorted(out)


def _network(prefix):
    try:
        return netaddr.IPNetwork(str(prefix.get("name")))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None   # a prefix the Engine names oddly holds nothing we could tell


class OutsidePrefixes:
    """Warns, through ``warn``, about each address a plan binds that is in no prefix of the account. ``option``
    names the module option the address comes from (``address``, ``addresses``)."""

    def __init__(self, client, warn, option="address", ahead=False):
        """``ahead``: the listing goes out in the background (``client.start``) and ``settle`` ends it."""
        self.client = client
        self.warn = warn
        self.option = option
        self.ahead = ahead
        self.networks = None    # the account's prefixes, listed at the first plan that binds an address (False: refused)
        self.seen = set()       # addresses already checked in this run (a rerun of the plan asks nothing)
        self.listing = None     # ahead: the listing sent and not yet settled
        self.waiting = []       # ahead: the addresses to check once it has answered

    def check(self, plan):
        """``plan``, unchanged, after the warnings for the addresses it binds (``ahead``: the first time, once
        ``settle`` is called)."""
        addresses = [a for a in bind_addresses(plan) if a not in self.seen]
        if not addresses or self.networks is False:   # nothing new, or the listing was refused already
            return plan
        self.seen.update(addresses)
        if self.networks is None and self.ahead:
            if self.listing is None:
                self.listing = self.client.start(lambda _none: self._listed(EngineError), [None])
            self.waiting.extend(addresses)
            return plan
        if self.networks is None:
            self._settled(self._listed((AccessDeniedError, NotFoundError)), addresses)
        self._tell(addresses)
        return plan

    def settle(self):
        """Waits for a listing sent ``ahead`` and warns about the addresses it was sent for. Never raises for the
        Engine: the run did not wait for the listing, so one that failed is a warning, as for a token without
        IPAM rights."""
        if self.listing is None:
            return
        listing, self.listing = self.listing, None
        addresses, self.waiting = self.waiting, []
        answer = listing.results()[0]
        self._settled(answer if answer is not None else self._listed(EngineError), addresses)   # None: never ran
        self._tell(addresses)

    def _listed(self, errors):
        """(the account's prefixes as networks, None), or (False, the error) for the ``errors`` caught."""
        try:
            return [n for n in (_network(p) for p in self.client.prefix_list()) if n is not None], None
        except errors as exc:
            return False, exc

    def _settled(self, answer, addresses):
        self.networks, exc = answer
        if exc is not None:   # a token without IPAM rights (ahead: any failure): said, and the run goes on
            self.warn("%s: could not list the account's IPAM prefixes to check %s (%s)"
                      % (self.option, ", ".join(addresses), exc))

    def _tell(self, addresses):
        """The warnings for ``addresses`` outside every listed prefix (none when the listing failed)."""
        if self.networks is False:
            return
        for address in addresses:
            ip = netaddr.IPAddress(address)
            if not any(ip in network for network in self.networks):
                self.warn("%s: %s is in no IPAM prefix of this account, so the Engine will most likely not route it "
                          "to the load balancer; the bind is made anyway. Check the address for a typo, or take one "
                          "from a prefix of the account (anxcloud.lbaas.ip_address)" % (self.option, address))


class Unobserved:
    world = {}


class OutsideCheck(Part):
    """The check as a part of a run (the service's): it plans nothing, it reads the plan of the parts before it and
    warns (``OutsidePrefixes.check``), and settles a listing sent ahead when the run ends."""

    key = "outside prefixes"

    def __init__(self, outside):
        self.outside = outside

    def observe(self, earlier):
        return Unobserved()

    def plan(self, state, planned):
        self.outside.check(planned)
        return Plan()

    def end(self):
        self.outside.settle()
