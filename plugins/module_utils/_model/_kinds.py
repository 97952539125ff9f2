# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What each LBaaS object type looks like: its parent, its links, its fields and how to compare them.

Everything that compares Engine objects goes through ``normalize()`` first, so that the text form
the Engine returns (an IPv6 address shortened, a timeout as a string) never looks like a change.
"""

import re

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from ._failure import Failure
from ._kind import Kind, register, registered

ID_RE = re.compile(r"^[0-9a-f]{32}$")

# Engine deployment states (docs/engine-api-facts.md, "Deployment states"): id -> title; type 0 error, 1 OK, 2 pending.
STATE_TITLES = {"0": "Updating", "1": "Updated", "2": "DeploymentError", "3": "Deployed", "4": "NewlyCreated"}


def looks_like_id(value):
    return bool(value) and bool(ID_RE.match(value))


def normalize_ip(value, option="address"):
    """Canonical text of an IP address (IPv6 compressed, lower case); '' stays ''."""
    if value in (None, ""):
        return value
    try:
        return str(netaddr.IPAddress(str(value).strip()))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise Failure("%s: '%s' is not a valid IP address" % (option, value))


def one_host_ip(value, option="address"):
    """``value`` (normalized by ``normalize_ip``) if it names one host. The unspecified address (0.0.0.0, ::)
    means every address, and an IPv4-mapped IPv6 address (::ffff:a.b.c.d) would escape the comparison with
    its IPv4 form (conflict checks, bind names by family): both are refused, naming ``option``."""
    if value in (None, ""):
        return value
    ip = netaddr.IPAddress(value)
    if ip.value == 0:
        raise Failure("%s: '%s' is the unspecified address, which means every address; give one address" % (option, value))
    if ip.version == 6 and ip.is_ipv4_mapped():
        raise Failure("%s: '%s' is an IPv4-mapped IPv6 address; write the IPv4 address %s" % (option, value, ip.ipv4()))
    return value


def _str(value):
    return None if value is None else str(value)


def _int(value):
    return None if value in (None, "") else int(value)


def _bool(value):
    return None if value is None else bool(value)


def _switch(value):
    """An Engine ``enable`` as read: a JSON bool (go-anxsdk ``v1/lbaas/frontend.go``, ``backend.go``: ``Enable bool``);
    the integers go-anxcloud's legacy client writes (0, 1) read alike. An answer without it reads as on: every object
    created without it carries traffic (docs/engine-api-facts.md, "Maintenance switch")."""
    return True if value is None else bool(value)


def _switch_written(value):
    """``enable`` as the one client that writes it sends it: an integer, 0 or 1 (go-anxcloud ``pkg/lbaas/frontend/
    definition.go`` ``Enable common.EnableState``; ``pkg/lbaas/common/common.go`` ``IsDisabled = 0``, ``IsEnabled = 1``)."""
    return int(bool(value))


def _timeout_text(value):
    # Frontend.client_timeout is a string on the Engine, Backend.server_timeout an integer.
    return None if value in (None, "") else str(value)


def _opt_text(value):
    # The Engine omits (or answers "") an optional text it does not hold: all mean "unset".
    return None if value in (None, "") else str(value)


def normalize_cidr(value, option="value"):
    """A network as netaddr writes it (``10.0.0.0/8``, ``2001:db8::/32``; one address as ``/32`` or ``/128``).
    Host bits set (``10.0.0.1/8``) are refused, as the Engine refuses them: HAProxy would match the network
    anyway, and the text would never compare equal to what the Engine keeps."""
    text = str(value).strip()
    try:
        network = netaddr.IPNetwork(text)
        netaddr.IPAddress(text.partition("/")[0])   # "10/8": no abbreviated addresses
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise Failure("%s: '%s' is not an IPv4 or IPv6 network (like 10.0.0.0/8 or 2001:db8::/32)" % (option, value))
    refuse_host_bits(network, value, option)
    return str(network.cidr)


def refuse_host_bits(network, value, option):
    """A Failure naming ``option`` and the network meant when the netaddr ``network`` (as ``value`` wrote it) has
    host bits set: ``10.0.0.1/8`` is taken as 10.0.0.0/8 by netaddr and HAProxy alike, so a typo would pass."""
    if network.ip != network.network:
        raise Failure("%s: '%s' has host bits set; write the network %s" % (option, value, network.cidr))


def normalize_port_text(value, option="value"):
    """A port as the decimal string an ACL value holds (go-anxcloud's e2e test sends ``"8080"``)."""
    text = str(value).strip()
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise Failure("%s: '%s' is not a port from 1 to 65535" % (option, value))
    return str(int(text))


# An ACL's value by its criterion: the criteria go-anxcloud's clients are known to send
# (pkg/apis/lbaas/v1/e2e_test.go; the Engine's Kubernetes product uses src). Other criteria pass through.
ACL_VALUES = {"src": normalize_cidr, "dst_port": normalize_port_text}


def normalize_acl_value(criterion, value, option="value"):
    """``value`` in the form its ``criterion`` compares in; raises Failure naming ``option``."""
    if value in (None, ""):
        return None
    check = ACL_VALUES.get(criterion)
    return check(value, option) if check else str(value)


def _acl_fields(flat):
    """from_engine of an ACL: its value read as its criterion compares it; kept as stored if it is not one."""
    try:
        flat["value"] = normalize_acl_value(flat.get("criterion"), flat.get("value"))
    except Failure:
        pass


def _opt_count(value):
    # server_timeout is "omitted when 0" by go-anxcloud: 0 and absent both mean "unset".
    return None if value in (None, "", 0, "0") else int(value)


# The Ansible option type a module takes a field in, by the field's normaliser; every other field is text.
OPTION_TYPES = {_int: "int", _opt_count: "int", _bool: "bool", _switch: "bool"}

# Fields holding one IP address, compared in canonical form (normalize_ip): a bind's address, a server's ip, a load
# balancer's ip_address.
IP_FIELDS = ("address", "ip", "ip_address")

# Keys of an Engine answer a client never sends back (go-anxcloud drops them from request bodies).
READ_ONLY = ("customer_identifier", "reseller_identifier", "state", "automation_rules")


class LbaasKind(Kind):
    """One LBaaS object type (the interface: ``_model._kind.Kind``)."""

    def __init__(self, name, parent, parent_kind, fields, links=None, resource_type=None, defaults=None,
                 required=(), derive=None, names=(), noun=None, service_managed=True, access_control=False,
                 conflicts_by=(), options=None, service_omits=(), unowned_delete=None, wire=None, switch=None):
        super().__init__(name, parent, parent_kind, fields, links, resource_type)
        # What messages call one object of the kind ("load balancer", "ACL"). Not ``label``: that is the
        # interface's method naming an action (_model._kind.Kind.label), which an attribute would hide.
        self.noun = noun or name
        self.defaults = defaults or {}    # field -> value a create sends when the task leaves it unset
        self.required = tuple(required)   # fields a create must have (the Engine refuses it without)
        self.derive = derive              # fn(flat): fields normalized by another field (an ACL's value)
        self.names = tuple(names)         # kinds this kind names by their name, not by a link (a rule its ACL)
        self.variants = {}                # parent kind -> this kind under it, for a kind with several (under())
        self.variant_field = None         # the field saying which variant an object is (parent_type)
        # How a per-object module takes a field, where it differs from the field (``field_options``): ``name``,
        # the option's name; ``type``, where the module reads it otherwise than the normaliser says (``raw``: a
        # duration, a structured health check); ``choices``; ``aliases``.
        self.options = options or {}
        # What the service module (_service) does with the kind, declared here so the service names no kind:
        # service_managed: it observes, plans and removes objects of the kind (as this variant) under its parents;
        # access_control: they decide who may connect (allow_sources: ACLs and rules), so a frontend its marker
        # vouches has none of the service's is not listed for them, and their deletes keep a frontend closed;
        # conflicts_by: fields two objects of the kind must not share on one load balancer (a bind's address
        # and port): another owner's are kept from observation for conflict detection.
        self.service_managed = service_managed
        self.access_control = access_control
        self.conflicts_by = tuple(conflicts_by)
        # service_omits: fields the service always writes unset (a rule's redirection): its tree and diff leave them out.
        self.service_omits = tuple(service_omits)
        # unowned_delete: the option a task must set to delete an object of the kind that does not carry its owner
        # tag (a load balancer: a host someone registered outside the collection); None: a task deletes an object
        # carrying no owner tag at all, a user's own (_lbaas._object_module.check_owner).
        self.unowned_delete = unowned_delete
        # wire: field -> (the Engine's key, fn(value) -> the value a write sends) for a field whose key or written form
        # is not the field's own (``enabled``: read as the bool ``enable``, written 0/1). Such a field is sent on every
        # PUT, whether it changes or not (``update_body``).
        self.wire = dict(wire or {})
        # switch: the field that takes an object out of service without deleting it (``Kind.switch``).
        self.switch = switch

    def option_type(self, field):
        """The type of the module option that sets ``field``: as declared in ``options``, else from its
        normaliser (int, bool or str)."""
        return self.options.get(field, {}).get("type") or OPTION_TYPES.get(self.fields[field], "str")

    def option_name(self, field):
        """The name of the module option that sets ``field`` (a server's ``ip`` is set by ``address``)."""
        return self.options.get(field, {}).get("name", field)

    def option_spec(self, field):
        """The argument spec of the option that sets ``field``: its type, and its declared choices and aliases."""
        spec = dict(type=self.option_type(field))
        spec.update((k, list(v)) for k, v in self.options.get(field, {}).items() if k in ("choices", "aliases"))
        return spec

    def engine_key(self, field):
        """The key of ``field`` in the Engine's objects (``wire``; else the field's own name, ``Kind.engine_key``)."""
        return self.wire[field][0] if field in self.wire else field

    def written(self, field, value):
        """``value`` of ``field`` as a write sends it (``wire``); unset stays unset."""
        return self.wire[field][1](value) if field in self.wire and value is not None else value

    def variant_fields(self):
        """The fields that say which variant an object is (``parent_type``, and each variant's parent link): set
        by the parent a task names, not by an option of their own."""
        picks = [self.variant_field] if self.variant_field else []
        return picks + [form.parent for form in self.variants.values() if form.parent not in picks]

    def under(self, parent_kind):
        """This kind as a child of ``parent_kind``: ACLs and rules have a frontend or a backend as parent,
        chosen by their ``parent_type``; every other kind has one parent kind and is itself."""
        return self.variants.get(parent_kind, self)

    def identity(self, obj):
        """Parent and name; an ACL's or rule's parent is the link its ``parent_type`` names."""
        kind = self.under(obj.get("parent_type"))
        return (obj.get(kind.parent), obj.get("name"))

    def dependencies(self):
        """Parent kinds and link targets of every variant (an ACL needs its frontend or backend), and the
        kinds it names (a rule's condition names an ACL): the plan order follows them (``_model._kind``)."""
        out = []
        for form in list(self.variants.values()) or [self]:
            for kind in [form.parent_kind] + list(form.links.values()) + list(form.names):
                if kind and kind != self.name and kind not in out:
                    out.append(kind)
        return out

    @property
    def delete_level(self):
        """0 for a kind no other kind names (binds, servers); else one above the highest kind naming it
        (every LBaaS kind declared, so one declared tomorrow waits for its children too)."""
        referrers = [k for k in registered() if isinstance(k, LbaasKind) and self.name in k.dependencies()]
        return 1 + max(k.delete_level for k in referrers) if referrers else 0

    def normalize_field(self, field, value, option=None):
        if field in self.links or field == self.parent:
            return link_id(value)
        if field in IP_FIELDS:
            return normalize_ip(value, option or field)
        return self.fields[field](value)

    @property
    def answer_keys(self):
        """What ``from_engine`` reads of an answer: identifier, name, the parent link, every field (links
        included), and the state."""
        return super().answer_keys + ("state",)

    def from_engine(self, obj):
        """Flatten an Engine GET/POST/PUT response into the shape every comparison uses."""
        out = {"kind": self.name, "id": obj.get("identifier"), "name": obj.get("name")}
        if self.parent:
            out[self.parent] = link_id(obj.get(self.parent))
        for field in self.fields:
            value = obj.get(self.engine_key(field))
            if field in IP_FIELDS:
                # Keep what the Engine stores if it is no address; comparison then shows the change.
                try:
                    value = normalize_ip(value, field)
                except Failure:
                    pass
            elif field in self.links:
                value = link_id(value)
            else:
                value = self.fields[field](value)
            out[field] = value
        if self.derive:
            self.derive(out)
        out["state"] = state_of(obj)
        out["raw"] = dict(obj)   # the Engine's own answer: the base of a whole-object PUT
        return out

    def to_engine(self, desired):
        """A create body: links as identifier strings, unset (None) fields left out."""
        body = {}
        for key in ["name", self.parent] + list(self.fields):
            if key and desired.get(key) is not None:
                body[self.engine_key(key)] = self.written(key, desired[key])
        return body

    def update_body(self, obj, changes=None):
        """The whole object for a PUT, as go-anxcloud's generic client sends it (pkg/apis/lbaas/v1/helper.go):
        the Engine's last answer without its read-only keys, links as identifiers, ``changes``
        (field -> new value) applied. A field set back to unset travels as JSON null: omitting it would
        leave the old value in place on an Engine that merges PUT bodies.

        A ``wire`` field (``enabled``) is always sent, in its written form (``enable`` 0/1), as the object holds it
        unless ``changes`` change it: whether a PUT without it keeps it or resets it is not known
        (docs/engine-api-facts.md, "Maintenance switch"), so a PUT made for another field never flips it."""
        body = dict((k, v) for k, v in (obj.get("raw") or {}).items() if k not in READ_ONLY)
        body["identifier"] = obj["id"]
        body["name"] = obj.get("name")
        for key in [self.parent] + list(self.fields):
            if key and (key in self.wire or self.engine_key(key) not in body):
                body[self.engine_key(key)] = self.written(key, obj.get(key))
        for key in [self.parent] + list(self.links):
            if key:
                body[key] = link_id(body.get(key))
        for field, value in (changes or {}).items():
            body[self.engine_key(field)] = self.written(field, value)
        return body


def link_id(value):
    """The identifier of a linked object, whether given as ``{identifier, name}`` or a string."""
    if isinstance(value, dict):
        return value.get("identifier")
    return value or None


def state_of(obj):
    state = obj.get("state") or {}
    if not isinstance(state, dict):
        state = {"id": str(state)}
    sid = str(state.get("id", ""))
    title = state.get("title") or state.get("text") or STATE_TITLES.get(sid, "Unknown")
    return {"id": sid, "title": title, "type": state.get("type")}


def state_class(state):
    """'ok', 'pending' or 'error'. Updating is type OK on the Engine but not finished yet."""
    if state.get("type") == 0 or state.get("title") == "DeploymentError":
        return "error"
    if state.get("type") == 2 or state.get("id") == "0":
        return "pending"
    return "ok"


# The modes a backend or frontend takes (the Engine's; HAProxy's tcp and http).
MODES = ("tcp", "http")
# A duration option takes milliseconds or a text like 30s (_durations); a health check option takes a
# structured check or the Engine's text (_health_check): both are read by the module, not by the normaliser.
READ_BY_MODULE = {"type": "raw"}

# The maintenance switch of backends and frontends (docs/engine-api-facts.md, "Maintenance switch"): the field
# ``enabled``, the Engine's ``enable``, read as a bool and written 0/1 on every write (``LbaasKind.update_body``). A
# create that leaves it unset sends it on (objects created without it carry traffic); a task that leaves it unset
# keeps what the Engine holds. Bind, server, ACL, rule and load balancer have no such field.
SWITCH = "enabled"
SWITCHED = dict(wire={SWITCH: ("enable", _switch_written)}, switch=SWITCH, defaults={SWITCH: True})

# A load balancer is registered, not provisioned: POST {name, ip_address} makes the Engine manage an HAProxy host that
# exists already (terraform-provider-anxcloud anxcloud/resource_lbaas_loadbalancer.go, schema_lbaas.go: both
# required); ip_address is the address of the host's management API. The collection did not make the host, so it
# deregisters one only when it carries this task's owner tag (it registered or adopted it) or the task says so.
LOADBALANCER = LbaasKind("loadbalancer", None, None, {"ip_address": _str}, noun="load balancer",
                         required=("ip_address",), unowned_delete="deregister_unowned")
BACKEND = LbaasKind("backend", "load_balancer", "loadbalancer",
                    {"mode": _str, "health_check": _opt_text, "server_timeout": _opt_count, SWITCH: _switch},
                    resource_type="33164a3066a04a52be43c607f0c5dd8c",
                    options={"mode": {"choices": MODES}, "health_check": READ_BY_MODULE, "server_timeout": READ_BY_MODULE},
                    **SWITCHED)
FRONTEND = LbaasKind("frontend", "load_balancer", "loadbalancer",
                     {"mode": _str, "default_backend": link_id, "client_timeout": _timeout_text, SWITCH: _switch},
                     links={"default_backend": "backend"},
                     resource_type="da9d14b9d95840c08213de67f9cee6e2",
                     options={"mode": {"choices": MODES}, "client_timeout": READ_BY_MODULE}, **SWITCHED)
BIND = LbaasKind("bind", "frontend", "frontend",
                 {"address": _str, "port": _int, "ssl": _bool, "ssl_certificate_path": _opt_text},
                 resource_type="bd24def982aa478fb3352cb5f49aab47", conflicts_by=("address", "port"))
# A server's ``check`` is enabled/disabled or a boolean (_health_check.server_check); its ``ip`` is set by the
# option ``address`` (as a bind's), ``ip`` staying an alias.
SERVER = LbaasKind("server", "backend", "backend",
                   {"ip": _str, "port": _int, "check": _str},
                   resource_type="01f321a4875446409d7d8469503a905f",
                   options={"ip": {"name": "address", "aliases": ("ip",)}, "check": READ_BY_MODULE})


def parent_typed(name, fields, resource_type, **options):
    """A kind whose parent is a frontend or a backend, as its ``parent_type`` says (go-anxcloud
    pkg/apis/lbaas/v1/acl_types.go, rule_types.go: both links exist, the one of the other type stays
    empty). One Kind per parent type, each with the other link as a link field, so every object of the
    kind reads, compares and updates the same under either; ``under(parent)`` picks the one whose
    ``parent`` is the link to list, look up and create by. ``KINDS`` holds the frontend one."""
    variants = {}
    for parent, other in (("frontend", "backend"), ("backend", "frontend")):
        own = {"parent_type": _str, other: link_id}
        own.update(fields)
        variants[parent] = LbaasKind(name, parent, parent, own, links={other: other}, resource_type=resource_type,
                                     defaults=dict(options.get("defaults") or {}, parent_type=parent),
                                     required=options.get("required", ()), derive=options.get("derive"),
                                     names=options.get("names", ()), noun=options.get("noun"),
                                     service_managed=parent in options.get("service_under", ()),
                                     access_control=options.get("access_control", False),
                                     options=options.get("options"), service_omits=options.get("service_omits", ()))
    for kind in variants.values():
        kind.variants = variants
        kind.variant_field = "parent_type"
    return register(variants["frontend"])   # the one known by name, as in KINDS


# ACL and Rule: the Engine keeps ``index`` for their order (always sent, 0 allowed: go-anxcloud's
# Index is *int for that); the texts the Engine's clients are known to send are checked by the modules.
# Their core resource type identifiers are not published: no resource_type, found by their own listing.
ACL = parent_typed("acl", {"criterion": _str, "value": _opt_text, "index": _int},
                   None, defaults={"index": 0}, noun="ACL",
                   required=("criterion", "value"), derive=_acl_fields,
                   service_under=("frontend",), access_control=True)
# A rule's fields in the order its line reads in the service's diff ("index 1: connection accept if allow-x").
RULE = parent_typed("rule", {"index": _int, "type": _str, "action": _str, "condition": _str, "condition_test": _str,
                             "redirection_type": _opt_text, "redirection_code": _opt_text,
                             "redirection_value": _opt_text, "rule_type": _opt_text},
                    None, defaults={"index": 0, "condition": "if", "type": "connection"},
                    required=("condition_test", "action"), names=("acl",),
                    service_under=("frontend",), access_control=True,
                    service_omits=("redirection_type", "redirection_code", "redirection_value", "rule_type"))

KINDS = dict((k.name, k) for k in (LOADBALANCER, BACKEND, FRONTEND, BIND, SERVER, ACL, RULE))
# The plan order follows from the declarations above (``Kind.dependencies``; ``_model._kind.create_order``):
# parents, then what links to them; a rule names an ACL of its parent (condition_test), so ACLs come
# before rules and go after them.
