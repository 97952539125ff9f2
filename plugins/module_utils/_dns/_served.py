# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``wait: served``: the task ends when the zone's authoritative servers answer its records, not only when CloudDNS
says the revision is live (ACME DNS-01, cut-overs).

After the revision is live, each server is asked (dnspython: UDP, TCP when the answer is truncated or UDP gets no
answer) for each record set the task names, until every server answers it authoritatively with the task's data: the
values of the rrset (all of them; with ``others: keep`` the owner's values, and none of those it removed), its TTL when
the task gives one, no data for an rrset deleted. A run that changes nothing checks too: a run before it may have ended
before its data was served. Bounded by a deadline (the task's ``wait_timeout``); when it passes, the task fails with
each server's last answer to each record set still wrong.

The servers: the task's ``nameservers`` (``host``, ``host@port`` or ``host:port``, ``[v6]:port``; a host is an
address or a name this host resolves), else the zone's NS records, each target resolved here to its addresses (port
53). A server that does not answer its first query at all, over UDP nor TCP (port 53 blocked, nothing listening),
fails the task at once, naming it and the option that skips the check: a wait could not end otherwise.

``served_outcome`` is what a run calls after its Reconciler (``dns_record``, ``dns_record_sets``; the service's ``dns``
names can, with its A and AAAA ``DesiredRrset``): the checks of the rrsets it planned (``checks_of``), asked of the
``nameservers`` option or the zone's NS records.
"""

import socket
import time
from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.parsing.convert_bool import boolean

from ._clouddns import CloudDNS
from ._plan import KEEP
from ._values import fqdn, normal_value
from .._model._failure import Failure

SERVED = "served"
DEFAULT_PORT = 53
SKIP = "set wait: true to end the task when the revision is live, without asking the servers"
SHOWN = 5   # record sets named per server in a failure's message; the result has them all


def wait_mode(value):
    """The ``wait`` option as ``True`` (until the revision is live), ``False`` or ``SERVED``; a Failure otherwise."""
    if isinstance(value, str) and value.strip().lower() == SERVED:
        return SERVED
    try:
        return boolean(value, strict=True)
    except TypeError:
        raise Failure("wait must be true, false or served, got %r" % (value,))


def parse_nameserver(text, option):
    """``(host, port)`` of one ``nameservers`` entry: ``host``, ``host@port``, ``host:port``, ``[v6]`` or ``[v6]:port``,
    ``v6@port`` (a bare IPv6 address has colons of its own, so its port comes after ``@`` or brackets)."""
    host, port = _host_port(str(text or "").strip())
    host = (host or "").strip().strip("[]")
    if not host or " " in host or (port is not None and not (port.isdigit() and 0 < int(port) < 65536)):
        raise Failure("%s %r is not a name server: give host, host@port or host:port ([v6]:port or v6@port for an IPv6 "
                      "address), the host an address or a name, the port 1-65535 (default 53)" % (option, text))
    return host, int(port) if port is not None else DEFAULT_PORT


def _host_port(entry):
    """(host, port text or None) of an entry as written; host None when its brackets are broken."""
    if "@" in entry:
        return tuple(entry.rsplit("@", 1))
    if entry.startswith("["):
        close = entry.find("]")
        rest = entry[close + 1:] if close > 0 else ""
        if close < 0 or (rest and not rest.startswith(":")):
            return None, None
        return entry[1:close], rest[1:] if rest else None
    if entry.count(":") == 1:
        return tuple(entry.split(":"))
    return entry, None


def check_nameservers(entries, mode, option="nameservers"):
    """The ``nameservers`` option as ``[(host, port, option[i])]``, checked before any request."""
    if entries and mode != SERVED:
        raise Failure("%s is only used with wait: served (the servers asked whether they answer the task's records); "
                      "set wait: served or leave %s out" % (option, option))
    return [parse_nameserver(e, "%s[%d]" % (option, i)) + ("%s[%d]" % (option, i),) for i, e in enumerate(entries or [])]


class Server:
    def __init__(self, address, port, source):
        self.address, self.port, self.source = address, port, source
        self.label = "%s@%d" % (address, port)

    def __repr__(self):
        return "%s (%s)" % (self.label, self.source)


def resolve(host, port, source, resolver=socket.getaddrinfo):
    """The servers of one host: an address as it is, a name as this host resolves it (each address once)."""
    try:
        found = resolver(host, port, 0, socket.SOCK_DGRAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Failure("wait: served: the name server %s (%s) does not resolve on this host (%s); give the servers to ask "
                      "as addresses in nameservers, or %s" % (host, source, exc, SKIP))
    addresses = []
    for _family, _type, _proto, _name, sockaddr in found:
        if sockaddr[0] not in addresses:
            addresses.append(sockaddr[0])
    return [Server(a, port, source) for a in addresses]


def servers_of(nameservers, ns_targets, resolver=socket.getaddrinfo):
    """The servers to ask: the ``nameservers`` entries, else the zone's NS targets (port 53)."""
    if nameservers:
        entries = nameservers
    else:
        entries = [(t.rstrip(".") or t, DEFAULT_PORT, "NS %s" % t) for t in ns_targets]
    if not entries:
        raise Failure("wait: served: the zone has no NS records to ask; give the servers in nameservers, or %s" % SKIP)
    out = []
    for host, port, source in entries:
        out.extend(s for s in resolve(host, port, source, resolver) if s.label not in [o.label for o in out])
    return out


class ServedCheck:
    """What one server must answer for one rrset: ``values`` (normal forms) exactly (``exact``; none: no data), or at
    least ``values`` and none of ``gone`` (``others: keep``: other owners' values may come and go); ``ttl`` when given."""

    def __init__(self, fqdn, rtype, values, exact=True, gone=(), ttl=None):
        self.fqdn, self.type = fqdn, rtype
        self.values, self.exact = sorted(set(values)), exact
        self.gone, self.ttl = sorted(set(gone) - set(values)), ttl

    def satisfied(self, answer):
        if not answer.authoritative or answer.rcode not in ("NOERROR", "NXDOMAIN"):
            return False
        held = set(answer.values)
        if self.exact and held != set(self.values):
            return False
        if not self.exact and (not set(self.values) <= held or held & set(self.gone)):
            return False
        return self.ttl is None or not held or answer.ttl == self.ttl

    def wanted(self):
        if self.exact and not self.values:
            return "no %s record" % self.type
        text = ", ".join(self.values) + (" (ttl %d)" % self.ttl if self.ttl is not None else "")
        if not self.exact:
            text = "at least " + text + (" and not " + ", ".join(self.gone) if self.gone else "")
        return text

    def __repr__(self):
        return "%s %s" % (self.fqdn, self.type)


class Answer:
    def __init__(self, rcode, values=(), ttl=None, authoritative=True):
        self.rcode, self.values, self.ttl, self.authoritative = rcode, sorted(values), ttl, authoritative

    def __str__(self):
        if not self.authoritative:
            return "%s, not authoritative (the server does not serve the zone)" % self.rcode
        if self.values:
            return "%s %s (ttl %s)" % (self.rcode, ", ".join(self.values), self.ttl)
        return self.rcode if self.rcode != "NOERROR" else "NOERROR, no such record"


class Unreachable(Exception):
    pass


def ask(server, fqdn, rtype, timeout):
    """One server's ``Answer`` for an rrset: UDP, TCP when the answer is truncated or UDP brought none;
    ``Unreachable`` when neither answers."""
    import dns.exception
    import dns.flags
    import dns.message
    import dns.query
    import dns.rcode
    import dns.rdatatype
    query = dns.message.make_query(fqdn, rtype)
    query.flags &= ~dns.flags.RD   # an authoritative server's own data, never a recursion
    try:
        response = dns.query.udp(query, server.address, port=server.port, timeout=timeout)
        if response.flags & dns.flags.TC:
            response = dns.query.tcp(query, server.address, port=server.port, timeout=timeout)
    except (dns.exception.DNSException, OSError) as first:
        try:
            response = dns.query.tcp(query, server.address, port=server.port, timeout=timeout)
        except (dns.exception.DNSException, OSError) as exc:
            raise Unreachable("UDP: %s; TCP: %s" % (str(first).rstrip(".") or first.__class__.__name__,
                                                    str(exc).rstrip(".") or exc.__class__.__name__))
    wanted = dns.rdatatype.from_text(rtype)
    rrsets = [r for r in response.answer if r.rdtype == wanted and r.name.to_text().lower() == fqdn.lower()]
    values = [normal_value(rtype, rdata.to_text()) for rrset in rrsets for rdata in rrset]
    return Answer(dns.rcode.to_text(response.rcode()), values, rrsets[0].ttl if rrsets else None,
                  bool(response.flags & dns.flags.AA))


class ServedWait:
    """Asks every server for every check until each answers it (see the module); ``report`` per server afterwards."""

    def __init__(self, servers, deadline, ask=ask, clock=time.monotonic, sleep=time.sleep, interval=0.2, cap=2.0,
                 query_timeout=2.0):
        self.servers, self.deadline = servers, deadline
        self.ask, self.clock, self.sleep = ask, clock, sleep
        self.interval, self.cap, self.query_timeout = interval, cap, query_timeout
        self.last = dict((s.label, {}) for s in servers)       # server -> {check: the last answer's text}
        self.queries = dict((s.label, 0) for s in servers)
        self.done_at = {}
        self.contacted = set()

    def wait(self, checks):
        started = self.clock()
        pending = dict((s.label, list(checks)) for s in self.servers)
        delay = self.interval
        with ThreadPoolExecutor(max_workers=max(1, min(8, len(self.servers)))) as pool:
            while True:
                rounds = [pool.submit(self._round, s, pending[s.label]) for s in self.servers if pending[s.label]]
                for server, future in zip([s for s in self.servers if pending[s.label]], rounds):
                    pending[server.label] = future.result()
                    if not pending[server.label]:
                        self.done_at.setdefault(server.label, round(self.clock() - started, 3))
                if not any(pending.values()):
                    return self.report()
                if self.clock() > self.deadline:
                    raise self._timed_out(pending, started)
                self.sleep(delay)
                delay = min(delay * 1.5, self.cap)

    def _round(self, server, checks):
        """The checks ``server`` does not answer yet, after asking it each once."""
        left = []
        for check in checks:
            timeout = max(0.5, min(self.query_timeout, self.deadline - self.clock()))
            self.queries[server.label] += 1
            try:
                answer = self.ask(server, check.fqdn, check.type, timeout)
            except Unreachable as exc:
                if server.label not in self.contacted:
                    raise Failure("wait: served: the name server %s (%s) does not answer over UDP or TCP (%s): it cannot "
                                  "be reached from this host (a firewall, port %d blocked?). Give servers this host reaches "
                                  "in nameservers, or %s" % (server.label, server.source, exc, server.port, SKIP))
                self.last[server.label][repr(check)] = "no answer (%s)" % exc
                left.append(check)
                continue
            self.contacted.add(server.label)
            if not check.satisfied(answer):
                self.last[server.label][repr(check)] = "answered %s, wanted %s" % (answer, check.wanted())
                left.append(check)
            else:
                self.last[server.label].pop(repr(check), None)
        return left

    def report(self):
        return [dict(server=s.label, source=s.source, queries=self.queries[s.label],
                     seconds=self.done_at.get(s.label), waiting=sorted(self.last[s.label].items()) or None)
                for s in self.servers]

    def _timed_out(self, pending, started):
        lines = []
        for server in self.servers:
            wrong = pending[server.label]
            if not wrong:
                continue
            texts = ["%s %s" % (repr(c), self.last[server.label].get(repr(c), "not asked")) for c in wrong[:SHOWN]]
            more = " and %d more" % (len(wrong) - SHOWN) if len(wrong) > SHOWN else ""
            lines.append("%s (%s): %s%s" % (server.label, server.source, "; ".join(texts), more))
        return Failure("wait: served: after %.0fs not every name server answers the task's records: %s. Raise wait_timeout, "
                       "or %s" % (self.clock() - started, " | ".join(lines), SKIP), served=self.report())


def wait_served(checks, nameservers, ns_targets, deadline, resolver=socket.getaddrinfo, **options):
    """Waits until every server answers ``checks``; returns the report per server (``served`` of a module's result).
    ``nameservers``: the option as ``check_nameservers`` made it (empty: the zone's NS, ``ns_targets``); ``options``
    those of ``ServedWait``."""
    return ServedWait(servers_of(nameservers, ns_targets, resolver), deadline, **options).wait(checks)


def check_of(desired, after, deleted):
    """The ``ServedCheck`` of a planned rrset: ``after`` its records after the run, ``deleted`` the values the task's
    changeset removed. The whole rrset when it is the task's alone (an rrset left without records: no data), else
    (``others: keep``) the task's values and none of those it removed that no one else holds."""
    values_after = set(r["value"] for r in after)
    name = fqdn(desired.name, desired.zone)
    if desired.others != KEEP:
        return ServedCheck(name, desired.type, values_after, exact=True, ttl=desired.ttl if desired.present else None)
    mine = set(desired.values or ()) if desired.present else set()
    return ServedCheck(name, desired.type, mine, exact=False, gone=set(deleted) - values_after,
                       ttl=desired.ttl if desired.present else None)


def checks_of(desireds, outcome):
    """The ``ServedCheck`` of each ``DesiredRrset`` a Reconciler's ``outcome`` planned: from its action (the rrset
    after it, the values it deleted) when it changed, else from the records the run observed (a run that changed
    nothing checks too: an earlier one may have ended before its data was served)."""
    planned = dict(((a.obj["name"], a.obj["type"]), a) for a in outcome.plan)
    after = dict(((o["name"], o["type"]), o) for o in outcome.after.values())
    checks = []
    for desired in desireds:
        action = planned.get((desired.name, desired.type))
        if action is not None:
            records, deleted = action.records_after, [r["value"] for r in action.deletes]
        else:
            records, deleted = (after.get((desired.name, desired.type)) or {}).get("records") or [], []
        checks.append(check_of(desired, records, deleted))
    return checks


def served_outcome(client, zone, desireds, outcome, nameservers, deadline, listed_ns=None):
    """``wait: served`` after a Reconciler's run of the rrsets ``desireds`` of ``zone`` (``dns_record`` one,
    ``dns_record_sets`` many, a service's ``dns`` names its A and AAAA): every server answers each, or a Failure.
    ``nameservers``: the option as ``check_nameservers`` made it; without, the zone's NS (``listed_ns``: the apex NS
    records the run read anyway, else one GET of them). Returns the report per server (``served`` of a result)."""
    targets = [] if nameservers else ns_targets(client, zone, listed_ns)
    return wait_served(checks_of(desireds, outcome), nameservers, targets, deadline)


def ns_targets(client, zone, listed=None):
    """The targets of the zone's NS records at the apex: from ``listed`` (the apex NS records a run read anyway), else
    one GET of them."""
    if listed is None:
        listed = CloudDNS(client).records(zone, name="@", rtype="NS")
    return sorted(r["rdata"] for r in listed if r.get("type") == "NS")
