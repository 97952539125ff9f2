# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""IP pools on Engine IPAM prefixes: the usable range of a prefix and first-free allocation (pure, no I/O).

Semantics follow whereabouts' allocator (k8snetworkplumbingwg/whereabouts, pkg/allocate: first free address in
the usable range, exclusions skipped) with its defects fixed: out-of-range bounds are
errors rather than silently ignored, and every address is a Python integer, so the upper half of a
/64 is as allocatable as the lower one.

Usable range:
- IPv4: network and broadcast excluded; a /31 has both addresses usable (RFC 3021), a /32 its one.
- IPv6: the subnet-router anycast (network) address and the last address excluded, matching the
  IPv4 rule and the cloud controller's "one below the top" address; a /127 has both addresses usable
  (RFC 6164), a /128 its one.
"""

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from .._model._failure import Failure

STRATEGIES = ("first", "last")


def _address(value, option):
    try:
        return netaddr.IPAddress(str(value).strip())
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise Failure("%s: '%s' is not a valid IP address" % (option, value))


def _network(value, option):
    try:
        return netaddr.IPNetwork(str(value).strip())
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise Failure("%s: '%s' is not a valid address or CIDR" % (option, value))


class Pool:
    """One prefix's allocatable range: ``[start, end]`` minus exclusions."""

    def __init__(self, cidr, range_start=None, range_end=None, exclude=(), name=None):
        self.network = _network(cidr, "pool").cidr
        self.name = name or str(self.network)
        self.version = self.network.version
        net = self.network
        host_bits = (32 if self.version == 4 else 128) - net.prefixlen
        first, last = int(net.first), int(net.last)
        if host_bits >= 2:
            first, last = first + 1, last - 1
        self.first, self.last = first, last
        self.start = self._bound(range_start, "range_start", first)
        self.end = self._bound(range_end, "range_end", last)
        if self.start > self.end:
            raise Failure("range_start %s lies above range_end %s in pool %s"
                          % (self.ip(self.start), self.ip(self.end), self.name))
        self.exclude = []
        for entry in exclude or ():
            excluded = _network(entry, "exclude")
            if excluded.version != self.version:
                raise Failure("exclude: '%s' is not an IPv%d address or CIDR like pool %s" % (entry, self.version, self.name))
            self.exclude.append(excluded)

    def _bound(self, value, option, default):
        if value in (None, ""):
            return default
        addr = _address(value, option)
        if addr.version != self.version or not self.first <= int(addr) <= self.last:
            raise Failure("%s: %s is outside the usable range %s-%s of pool %s"
                          % (option, addr, self.ip(self.first), self.ip(self.last), self.name))
        return int(addr)

    def ip(self, value):
        return str(netaddr.IPAddress(value, self.version))

    def contains(self, address):
        addr = netaddr.IPAddress(address)
        return addr.version == self.version and self.start <= int(addr) <= self.end

    @property
    def size(self):
        """Addresses in the prefix."""
        return self.network.size

    @property
    def usable(self):
        """Addresses allocation may hand out: the range minus exclusions (taken ones included)."""
        return self.end - self.start + 1 - sum(hi - lo + 1 for lo, hi in self._blocked(()))

    def _blocked(self, taken):
        """Merged, sorted integer intervals inside [start, end] that cannot be handed out."""
        spans = [(int(n.first), int(n.last)) for n in self.exclude]
        spans.extend((int(t), int(t)) for t in taken)
        spans = sorted((max(lo, self.start), min(hi, self.end)) for lo, hi in spans if hi >= self.start and lo <= self.end)
        merged = []
        for lo, hi in spans:
            if merged and lo <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        return merged

    def allocate(self, taken, strategy="first"):
        """The first (or last) address in the range that is neither taken nor excluded."""
        addrs = [netaddr.IPAddress(t) for t in taken]
        taken_ints = [int(a) for a in addrs if a.version == self.version]
        blocked = self._blocked(taken_ints)
        if strategy == "first":
            candidate = self.start
            for lo, hi in blocked:
                if candidate < lo:
                    break
                candidate = max(candidate, hi + 1)
            found = candidate <= self.end
        else:
            candidate = self.end
            for lo, hi in reversed(blocked):
                if candidate > hi:
                    break
                candidate = min(candidate, lo - 1)
            found = candidate >= self.start
        if not found:
            raise Failure("pool %s is exhausted: no free address in %s-%s (%d of them taken, excluded: %s)"
                          % (self.name, self.ip(self.start), self.ip(self.end),
                             len(set(t for t in taken_ints if self.start <= t <= self.end)),
                             ", ".join(str(n) for n in self.exclude) or "none"))
        return self.ip(candidate)
