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
"""

# netaddr is imported in the functions that parse addresses, not with this file: a module refused for its
# arguments never pays for it (AnxcloudModule.main imports it, or reports it missing, before a run starts).

from .._engine._errors import AccessDeniedError, NotFoundError
from .._model._kind import CREATE, UPDATE


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
    import netaddr
    try:
        return netaddr.IPNetwork(str(prefix.get("name")))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None   # a prefix the Engine names oddly holds nothing we could tell


class OutsidePrefixes:
    """Warns, through ``warn``, about each address a plan binds that is in no prefix of the account. ``option``
    names the module option the address comes from (``address``, ``addresses``)."""

    def __init__(self, client, warn, option="address"):
        self.client = client
        self.warn = warn
        self.option = option
        self.networks = None    # the account's prefixes, listed at the first plan that binds an address (False: refused)
        self.seen = set()       # addresses already checked in this run (a rerun of the plan asks nothing)

    def check(self, plan):
        """``plan``, unchanged, after the warnings for the addresses it binds."""
        import netaddr
        addresses = [a for a in bind_addresses(plan) if a not in self.seen]
        if not addresses or self.networks is False:   # nothing new, or the listing was refused already
            return plan
        self.seen.update(addresses)
        if self.networks is None:
            try:
                self.networks = [n for n in (_network(p) for p in self.client.prefix_list()) if n is not None]
            except (AccessDeniedError, NotFoundError) as exc:   # a token without IPAM rights: say so, go on
                self.networks = False
                self.warn("%s: could not list the account's IPAM prefixes to check %s (%s)"
                          % (self.option, ", ".join(addresses), exc))
                return plan
        for address in addresses:
            ip = netaddr.IPAddress(address)
            if not any(ip in network for network in self.networks):
                self.warn("%s: %s is in no IPAM prefix of this account, so the Engine will most likely not route it "
                          "to the load balancer; the bind is made anyway. Check the address for a typo, or take one "
                          "from a prefix of the account (anxcloud.lbaas.ip_address)" % (self.option, address))
        return plan
