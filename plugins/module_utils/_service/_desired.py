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
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from ._managed import MANAGED

# Parts of object names: no dots (they separate the parts), no spaces or slashes.
NAME_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$")


def _hashed(kind, fields):
    """A desired object as the declaration hash covers it: without its switch when that is on (``as_data``)."""
    return dict((f, v) for f, v in fields.items() if f != kind.switch or v is not True)


def network_key(text):
    """Sort key of a network: IPv4 first, then by first address and prefix length."""
    network = netaddr.IPNetwork(text)
    return (network.version, network.first, network.prefixlen)


class Desired:
    """The objects a service needs on one load balancer, parents referenced by port name.

    ``by_kind``: kind name -> key -> fields, for every kind the service manages (``_managed.MANAGED``); the
    keys of a backend or frontend are its port name, those of a child (port name, its own key): a bind's
    address, a server's name, an ACL's or rule's name. Frontends' ``default_backend`` and the children's
    parents are filled by the planner with the identifiers it finds or will create.
    """

    def __init__(self, suffix=None):
        self.suffix = suffix   # S in the names ``<port>.S`` of the service's backends and frontends
        self.by_kind = dict((kind.name, {}) for kind in MANAGED)

    def names_a_parent(self, name):
        """Whether ``name`` is a backend or frontend name of this service's scheme (``<port>.S``), for
        any port: what a create of ours made, also when its tag write never landed."""
        head, dot, rest = (name or "").partition(".")
        return bool(self.suffix and dot and rest == self.suffix and NAME_RE.match(head))

    def count(self):
        return sum(len(objs) for objs in self.by_kind.values())

    def controls_access(self):
        """Whether the declaration has an allow-list (objects of an ``access_control`` kind: ACLs, rules)."""
        return any(self.by_kind[kind.name] for kind in MANAGED if kind.access_control)

    def as_data(self):
        """The desired objects as plain data sorted by name (what the declaration hash covers), keyed by the
        kinds' plural names; those of ``access_control`` kinds only when there are some, so a service without
        allow_sources hashes as before they existed, and a switch only when off (``Kind.switch``), so a service
        that takes nothing out of service hashes as before switches existed."""
        access = self.controls_access()
        return dict((kind.name + "s", sorted((_hashed(kind, o) for o in self.by_kind[kind.name].values()),
                                             key=lambda o: o["name"]))
                    for kind in MANAGED if access or not kind.access_control)

    def allow_sources(self, port):
        """The networks a port's frontend admits (None: open to all), from its desired ACLs."""
        nets = [a["value"] for (p, _n), a in self.by_kind["acl"].items() if p == port and a["name"].startswith("allow-")]
        return sorted(nets, key=network_key) if nets else None
