# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A service declaration -> the LBaaS objects it needs on each load balancer (pure, no I/O).

One Backend and one Frontend per port, a Bind per external address x port, a Server per server x
port, named as the Kubernetes cloud controller names them so operators recognise them (suffix
S = ``<service>[.<name_suffix>]``): Backend/Frontend ``<port>.S``, Bind ``<v4|v6>.<port>.S``,
Server ``<server>.<port>.S``. Everything is sorted, so plans and diffs are deterministic.

``allow_sources`` (on the service, or per port) restricts a frontend to source networks, by ``src`` ACLs
and ``connection`` rules under it (docs/user-guide.md, "Who may connect"): per network an ACL and an
``accept if`` rule (index 0), both named from the network, ``allow-<network>.<port>.S`` ('.' and ':'
written '-', '/' written '_'), so a changed list only creates and deletes the networks that changed;
then ACLs ``deny-v4.<port>.S`` (0.0.0.0/0) and ``deny-v6.<port>.S`` (::/0) with ``reject`` rules
(index 1). One network per ACL and accept rules followed by a reject are what go-anxcloud's own clients
send (pkg/apis/lbaas/v1/e2e_test.go); ``unless`` is not used.
"""

import re

from .._model._durations import to_ms
from .._model._failure import Failure
from .._model._health_check import HTTP_CHECK, TCP_CHECK, render, server_check
from .._model._names import check_name_part
from ._request import ServiceRequest
from .._model._kinds import normalize_cidr, normalize_ip, one_host_ip
from ._desired import Desired, network_key

SUFFIX_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]{0,126}[A-Za-z0-9])?$")
MAX_NAME = 255
# The reject-all networks closing an allow-list, per family, and the rule indexes: accepts before rejects.
DENY = (("deny-v4", "0.0.0.0/0"), ("deny-v6", "::/0"))
ACCEPT_INDEX, REJECT_INDEX = 0, 1
# At most this many networks in one allow-list. Each is an ACL and a rule on every frontend the list applies to,
# one write each, and a line HAProxy checks on every connection: 100 (202 objects a frontend) is past any list
# people maintain by hand, while 3000 would be 6002 objects and writes a port. Longer lists belong in wider
# networks (10.0.0.0/8 rather than its /24s) or in a firewall in front of the load balancer.
MAX_SOURCES = 100

# The whole declared state is owned: every field below is reconciled, and an option the declaration
# leaves out stands for the value a fresh create gives. These are those values, in one place
# (documented in the service module and docs/how-reconciliation-works.md). Health checks follow the
# mode, so a port switched from tcp to http ends up exactly as a fresh http port; both defaults are
# go-anxcloud's legacy package defaults (docs/engine-api-facts.md, "Backend health checks"), which the Engine stores verbatim.
HEALTH_CHECKS = {"tcp": TCP_CHECK, "http": HTTP_CHECK}
PORT_DEFAULTS = {"mode": "tcp", "server_timeout": None, "client_timeout": None, "ssl": False,
                 "ssl_certificate_path": None, "check": "enabled"}


def _check_name(value, option):
    return check_name_part(value, option)


def _check_port(value, option):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise Failure("%s must be a port number between 1 and 65535, got %r" % (option, value))
    return value


def _check_switch(value, option):
    """``enabled`` of the service or a port: a bool (the module's argument spec made it one), or unset (None)."""
    if value is not None and not isinstance(value, bool):
        raise Failure("%s must be true or false, got %r" % (option, value))
    return value


def warnings(service):
    """Texts worth a warning in an otherwise valid declaration (a timeout that looks like seconds)."""
    out = []
    for index, port in enumerate(service.get("ports") or []):
        for name in ("server_timeout", "client_timeout"):
            warning = to_ms(port.get(name), "ports[%d].%s" % (index, name))[1]
            if warning:
                out.append(warning)
    return out


def build(service):
    """Validates a declaration (a dict of the module's options) and returns ``Desired``."""
    name = _check_name(service.get("name"), "name")
    suffix = name
    if service.get("name_suffix"):
        if not SUFFIX_RE.match(service["name_suffix"]):
            raise Failure("name_suffix: '%s' is not a valid name suffix" % service["name_suffix"])
        suffix = "%s.%s" % (name, service["name_suffix"])
    ports = service.get("ports") or []
    _check_ports(ports)
    enabled = _check_switch(service.get("enabled"), "enabled")
    addresses = _check_addresses(service.get("addresses") or [])
    servers = _check_servers(service.get("servers") or [])
    allowed = check_sources(service.get("allow_sources"), "allow_sources")
    desired = Desired(suffix)
    for index, port in sorted(enumerate(ports), key=lambda item: str(item[1].get("name") or item[1]["port"])):
        _add_port(desired, port, addresses, servers, True if enabled is None else enabled)
        own = check_sources(port.get("allow_sources"), "ports[%d].allow_sources" % index)
        _add_allow_list(desired, str(port.get("name") or port["port"]), allowed if own is None else own)
    return desired


class ServiceDeclaration(ServiceRequest):
    """A service as a run takes it: the ``service`` module's options (``ServiceRequest``) read once
    (``from_params``), or the removal of an owner wherever its tag is (``removal``, gc). The service's parts
    and its guard read these attributes, never a module's params; ``objects()`` is the part ``build`` turns into
    ``Desired``. Validation stays with the run (``ServiceObjects.validate``), before any request."""

    anywhere = False   # no load balancer declared: the owner's objects are found wherever its tag is, and removed (gc)

    def __init__(self, **values):
        super().__init__(**values)
        for option in ("load_balancers", "ports", "addresses", "servers"):
            setattr(self, option, list(getattr(self, option) or []))

    @classmethod
    def removal(cls, owner, **options):
        """``owner``'s removal everywhere (gc): ``state=absent`` with no load balancer declared, which finds the
        owner's objects wherever its tag is; ``options``: the tag prefix, lease and wait options gc runs with."""
        out = cls(name=owner, load_balancers=[], state="absent", **options)
        out.anywhere = True
        return out

    def objects(self):
        """The options that declare objects, as ``build`` and ``warnings`` read them."""
        return dict(name=self.name, name_suffix=self.name_suffix, ports=self.ports, addresses=self.addresses,
                    servers=self.servers, allow_sources=self.allow_sources, enabled=self.enabled)


def check_sources(declared, option):
    """An allow-list: None when unset, else its networks canonical (netaddr), deduplicated and sorted
    (IPv4 first); a plain address stands for its host network (/32, /128)."""
    if declared is None:
        return None
    if not isinstance(declared, (list, tuple)):
        raise Failure("%s must be a list of networks, got %r" % (option, declared))
    out = set()
    for index, value in enumerate(declared):
        if value is None or not str(value).strip():
            raise Failure("%s[%d] must not be empty" % (option, index))
        out.add(normalize_cidr(value, "%s[%d]" % (option, index)))
    if len(out) > MAX_SOURCES:
        raise Failure("%s has %d networks; at most %d are allowed (each is an ACL and a rule on every frontend it "
                      "applies to): merge them into wider networks" % (option, len(out), MAX_SOURCES))
    return sorted(out, key=network_key)


def source_token(network):
    """The name part of a network: stable whatever the list around it ('.' and ':' -> '-', '/' -> '_')."""
    return network.replace(".", "-").replace(":", "-").replace("/", "_")


def _add_allow_list(desired, port_name, networks):
    """A port's ACLs and rules: per network an ACL and an accept rule, then reject rules for both families."""
    if not networks:
        return
    suffix = "%s.%s" % (port_name, desired.suffix)
    entries = [("allow-" + source_token(n), n, "accept", ACCEPT_INDEX) for n in networks]
    entries += [(prefix, n, "reject", REJECT_INDEX) for prefix, n in DENY]
    for prefix, network, action, index in entries:
        name = _full("%s.%s" % (prefix, suffix))
        if (port_name, name) in desired.by_kind["acl"]:   # an IPv4-mapped IPv6 network written like an IPv6 one
            raise Failure("allow_sources: %s and another network give the same name %s; list one of them"
                          % (network, name))
        desired.by_kind["acl"][(port_name, name)] = dict(name=name, parent_type="frontend", criterion="src",
                                                         value=network, index=0)
        desired.by_kind["rule"][(port_name, name)] = dict(name=name, parent_type="frontend", index=index,
                                                          condition="if", condition_test=name, type="connection",
                                                          action=action, redirection_type=None, redirection_code=None,
                                                          redirection_value=None, rule_type=None)


def _check_ports(ports):
    seen_names, seen_ports = {}, {}
    for index, port in enumerate(ports):
        option = "ports[%d]" % index
        number = _check_port(port.get("port"), option + ".port")
        port_name = _check_name(str(port.get("name") or number), option + ".name")
        _check_port(port.get("target_port") or number, option + ".target_port")
        if port_name in seen_names:
            raise Failure("ports: the port name '%s' is used twice (ports[%d] and ports[%d])"
                          % (port_name, seen_names[port_name], index))
        if number in seen_ports:
            raise Failure("ports: the external port %d is declared twice (ports[%d] and ports[%d])"
                          % (number, seen_ports[number], index))
        seen_names[port_name], seen_ports[number] = index, index
        _check_port_fields(port, option)


def _check_addresses(declared):
    """The external addresses, canonical; at most one per family (bind names carry only v4/v6)."""
    addresses = []
    families = {}
    for index, address in enumerate(declared):
        option = "addresses[%d]" % index
        if address is None or not str(address).strip():
            # An empty template variable would make a wildcard bind that no conflict check sees.
            raise Failure("%s must not be empty (a bind without an address listens on every address)" % option)
        canonical = one_host_ip(normalize_ip(str(address).strip(), option), option)
        family = "v6" if ":" in canonical else "v4"
        if canonical in addresses:
            raise Failure("addresses: %s is listed twice" % canonical)
        if family in families:
            # Bind names carry only the family (v4/v6), as the cloud controller's do.
            raise Failure("addresses: at most one IP%s address per service, got %s and %s"
                          % (family, families[family], canonical))
        families[family] = canonical
        addresses.append(canonical)
    return addresses


def _check_servers(declared):
    """``[(name, canonical address, check)]``."""
    servers = []
    for index, server in enumerate(declared):
        option = "servers[%d]" % index
        server_name = _check_name(server.get("name"), option + ".name")
        if server_name in [s[0] for s in servers]:
            raise Failure("servers: the server name '%s' is used twice" % server_name)
        check = server_check(server.get("check"), option + ".check") or PORT_DEFAULTS["check"]
        address = server.get("address")
        if address is None or not str(address).strip():
            raise Failure("%s.address must not be empty" % option)
        servers.append((server_name, one_host_ip(normalize_ip(str(address).strip(), option + ".address"), option + ".address"),
                        check))
    return servers


def _add_port(desired, port, addresses, servers, enabled):
    """One port's backend and frontend, a bind per address and a server per server. The frontend is in service as the
    port says, else as the service says (``enabled``); the backend's switch is not the service's to set (a backend
    someone disabled stays so, a new one is created on)."""
    suffix = desired.suffix
    port_name = str(port.get("name") or port["port"])
    fields = dict(PORT_DEFAULTS, **dict((k, v) for k, v in port.items() if v is not None))
    mode = fields["mode"]
    object_name = _full("%s.%s" % (port_name, suffix))
    server_timeout = to_ms(fields["server_timeout"], "server_timeout")[0]
    client_timeout = to_ms(fields["client_timeout"], "client_timeout")[0]
    desired.by_kind["backend"][port_name] = dict(
        name=object_name, mode=mode, health_check=render(fields.get("health_check")) or HEALTH_CHECKS[mode],
        server_timeout=server_timeout or None)
    # Frontend.client_timeout is a string of digits on the Engine, Backend.server_timeout an integer.
    switch = enabled if port.get("enabled") is None else port["enabled"]
    desired.by_kind["frontend"][port_name] = dict(name=object_name, mode=mode, client_timeout=_text(client_timeout or None),
                                                  enabled=switch)
    for address in sorted(addresses):
        family = "v6" if ":" in address else "v4"
        desired.by_kind["bind"][(port_name, address)] = dict(
            name=_full("%s.%s.%s" % (family, port_name, suffix)), address=address, port=port["port"],
            ssl=bool(fields["ssl"]), ssl_certificate_path=fields["ssl_certificate_path"] or None)
    for server_name, ip, check in sorted(servers):
        desired.by_kind["server"][(port_name, server_name)] = dict(
            name=_full("%s.%s.%s" % (server_name, port_name, suffix)), ip=ip,
            port=port.get("target_port") or port["port"], check=check)


def _check_port_fields(port, option):
    """Values the Engine would refuse, or that would silently mean something else, named by option."""
    mode = port.get("mode") or PORT_DEFAULTS["mode"]
    if mode not in HEALTH_CHECKS:
        raise Failure("%s.mode must be tcp or http, got '%s'" % (option, mode))
    render(port.get("health_check"), option + ".health_check")
    for name in ("server_timeout", "client_timeout"):
        to_ms(port.get(name), "%s.%s" % (option, name))
    _check_switch(port.get("enabled"), option + ".enabled")
    path = port.get("ssl_certificate_path")
    if port.get("ssl") and not (path and str(path).strip()):
        raise Failure("%s.ssl_certificate_path is required when %s.ssl is true" % (option, option))
    if path is not None and not port.get("ssl"):
        raise Failure("%s.ssl_certificate_path is set but %s.ssl is false; set ssl: true or remove the path"
                      % (option, option))


def _full(name):
    if len(name) > MAX_NAME:
        raise Failure("the object name '%s...' would be longer than %d characters" % (name[:40], MAX_NAME))
    return name


def _text(value):
    return None if value is None else str(value)
