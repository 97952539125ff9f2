# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a service needs on a load balancer (``Desired``), as data, apart from the declaration that builds it.

Observation takes a ``Desired`` (the names it looks for); ``service_info`` and gc observe with an empty
one. Kept out of ``_declaration`` (validation, defaults, health checks), so what only observes does not
import (and, from a module's zip, compile on every run) the whole declaration.
"""

import re

try:
    import netaddr
except ImportError:  # pragma: no cover - reported by the module base class
    netaddr = None

# Parts of object names: no dots (they separate the parts), no spaces or slashes.
NAME_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$")


def network_key(text):
    """Sort key of a network: IPv4 first, then by first address and prefix length."""
    network = netaddr.IPNetwork(text)
    return (network.version, network.first, network.prefixlen)


class Desired:
    """The objects a service needs on one load balancer, parents referenced by port name.

    ``backends``/``frontends``: port name -> fields; ``binds``: (port, address) -> fields;
    ``servers``: (port, server) -> fields. Frontends' ``default_backend`` and binds'/servers'
    parents are filled by the planner with the identifiers it finds or will create.
    """

    def __init__(self, suffix=None):
        self.suffix = suffix   # S in the names ``<port>.S`` of the service's backends and frontends
        self.backends = {}
        self.frontends = {}
        self.binds = {}
        self.servers = {}
        self.acls = {}       # (port, name) -> fields of a src ACL of the port's frontend (allow_sources)
        self.rules = {}      # (port, name) -> fields of a connection rule naming it

    def names_a_parent(self, name):
        """Whether ``name`` is a backend or frontend name of this service's scheme (``<port>.S``), for
        any port: what a create of ours made, also when its tag write never landed."""
        head, dot, rest = (name or "").partition(".")
        return bool(self.suffix and dot and rest == self.suffix and NAME_RE.match(head))

    def count(self):
        return len(self.backends) + len(self.frontends) + len(self.binds) + len(self.servers) + \
            len(self.acls) + len(self.rules)

    def as_data(self):
        """The desired objects as plain data sorted by name (what the declaration hash covers); ACLs and
        rules only when there are some, so a service without allow_sources hashes as before."""
        kinds = ("backends", "frontends", "binds", "servers") + (("acls", "rules") if self.acls else ())
        return dict((kind, sorted(getattr(self, kind).values(), key=lambda o: o["name"])) for kind in kinds)

    def allow_sources(self, port):
        """The networks a port's frontend admits (None: open to all), from its desired ACLs."""
        nets = [a["value"] for (p, _n), a in self.acls.items() if p == port and a["name"].startswith("allow-")]
        return sorted(nets, key=network_key) if nets else None
