"""Seeding from YAML (--seed; format in README.md): load balancers with optional LBaaS children, IPAM
prefixes with their VLAN and location, and CloudDNS zones with their records.

Seeding creates what is missing and never changes what exists, so seeding a state file again adds
nothing twice: an entry matches an existing object by ``identifier`` when it has one, else by name
(and parent; prefixes by CIDR; zones by name). Tags are attached when the object is created. Seeded
objects are deployed (LBaaS, zones) or active (IPAM) at once. Unknown keys are errors, to catch typos.
"""
import ipaddress
import re

import yaml

from . import clouddns
from .errors import ApiError
from .lbaas_types import FIELDS
from .tags import name_problem

# kind -> (seed key of the children, their kind), parents first so a frontend can name its default backend
# (ACLs before the rules that name them)
CHILDREN = {"loadbalancer": (("backends", "backend"), ("frontends", "frontend")),
            "backend": (("servers", "server"), ("acls", "acl")),
            "frontend": (("binds", "bind"), ("acls", "acl"), ("rules", "rule"))}
# ACLs and rules link to the kind of the entry they are under (parent_type)
PARENT_FIELD = {"backend": "load_balancer", "frontend": "load_balancer", "server": "backend", "bind": "frontend"}
PARENT_TYPED = ("acl", "rule")
PREFIX_KEYS = ("cidr", "identifier", "description", "create_empty", "type", "location", "vlan", "tags")
LOCATION_KEYS = ("code", "identifier", "name", "country", "city_code", "lat", "lon")
VLAN_KEYS = ("name", "identifier", "description")
IDENTIFIER = re.compile(r"^[0-9a-f]{32}$")
ZONE_KEYS = ("name", "admin_email", "refresh", "retry", "expire", "ttl", "dnssec_mode", "master_ns", "dns_servers",
             "records", "fill")
FILL_MAX = 100000
ZONE_DEFAULTS = {"master": True, "dnssec_mode": "unvalidated", "refresh": 3600, "retry": 600, "expire": 604800,
                 "ttl": 300}
RECORD_KEYS = ("name", "type", "rdata", "ttl", "region", "comment", "immutable")


class SeedError(ValueError):
    pass


def _check_keys(spec, allowed, where):
    if not isinstance(spec, dict):
        raise SeedError("%s: must be a mapping" % where)
    unknown = sorted(set(spec) - set(allowed))
    if unknown:
        raise SeedError("%s: unknown keys %s (known: %s)" % (where, ", ".join(unknown), ", ".join(allowed)))
    if spec.get("identifier") is not None and not IDENTIFIER.match(str(spec["identifier"])):
        raise SeedError("%s: identifier must be 32 lowercase hex characters" % where)
    tags = spec.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        raise SeedError("%s: tags must be a list of non-empty strings" % where)


def _list(data, key, where):
    value = data.get(key) or []
    if not isinstance(value, list):
        raise SeedError("%s%s: must be a list" % (where, key))
    return value


def _failed(where, exc):
    details = "; ".join("%s: %s" % item for item in sorted(exc.validation.items())) or exc.message
    return SeedError("%s: %s" % (where, details))


def load(engine, path):
    try:
        with open(path) as handle:
            data = yaml.safe_load(handle) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise SeedError("cannot read seed %s: %s" % (path, exc))
    apply(engine, data)


def apply(engine, data):
    _check_keys(data, ("loadbalancers", "prefixes", "zones"), "seed")
    with engine.store.transaction():
        for i, spec in enumerate(_list(data, "loadbalancers", "")):
            _lbaas(engine, "loadbalancer", spec, "loadbalancers[%d]" % i, None)
        for i, spec in enumerate(_list(data, "prefixes", "")):
            _prefix(engine, spec, "prefixes[%d]" % i)
        for i, spec in enumerate(_list(data, "zones", "")):
            _zone(engine, spec, "zones[%d]" % i)


def _zone(engine, spec, where):
    """A CloudDNS zone with its records, deployed long ago; SOA defaults as below. A record may be
    ``immutable: true`` (cannot be changed through the API)."""
    _check_keys(spec, ZONE_KEYS, where)
    if engine.clouddns.find(str(spec.get("name"))):
        return
    body = dict(ZONE_DEFAULTS, zone_name=spec.get("name"), admin_email="hostmaster@%s" % spec.get("name"))
    body.update(dict((k, v) for k, v in spec.items() if k not in ("name", "records")))
    records = []
    for i, entry in enumerate(_list(spec, "records", where + ".")):
        at = "%s.records[%d]" % (where, i)
        _check_keys(entry, RECORD_KEYS, at)
        record, problems = clouddns.record_problems(dict((k, v) for k, v in entry.items() if k != "immutable"))
        if problems:
            raise SeedError("%s: %s" % (at, "; ".join("%s: %s" % item for item in sorted(problems.items()))))
        record["immutable"] = bool(entry.get("immutable", False))
        records.append(record)
    records += _fill(spec.get("fill"), where)
    try:
        engine.clouddns.create_zone(body, seeded_records=records)
    except ApiError as exc:
        raise _failed(where, exc)


def _fill(count, where):
    """``fill: N``: N A records a large zone holds besides the listed ones (benchmarks, scale tests): ``fill-<i>`` ->
    10.x.y.z, no comment (no owner's mark: made by hand, as far as a client can tell), the zone's default TTL."""
    if count is None:
        return []
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= FILL_MAX:
        raise SeedError("%s: fill must be a number of records from 0 to %d" % (where, FILL_MAX))
    return [{"name": "fill-%d" % i, "type": "A", "rdata": "10.%d.%d.%d" % (i >> 16 & 255, i >> 8 & 255, i & 255),
             "region": "default", "ttl": None, "comment": None, "immutable": False} for i in range(count)]


def _existing(store, kind, spec, parent_field, parent_id, where):
    if spec.get("identifier"):
        kind_found = store.kind_of(spec["identifier"])
        if kind_found not in (None, kind):
            raise SeedError("%s: identifier %s belongs to a %s" % (where, spec["identifier"], kind_found))
        return store.get(spec["identifier"])
    for doc in store.all(kind):
        if doc["name"] == spec.get("name") and (parent_field is None or doc[parent_field] == parent_id):
            return doc
    return None


def _tag(engine, ident, spec, service, where):
    """Attaches the entry's tags; their names obey --tag-names as on the API."""
    for tag in spec.get("tags", []):
        problem = name_problem(tag, engine.options["tag_names"])
        if problem:
            raise SeedError("%s: tags: %s" % (where, problem))
        engine.tags.attach(ident, tag, service)


def _lbaas(engine, kind, spec, where, parent_id, parent_kind=None):
    store = engine.store
    typed = kind in PARENT_TYPED
    parent_field = parent_kind if typed else PARENT_FIELD.get(kind)
    implied = ("parent_type", "frontend", "backend") if typed else (parent_field,)
    children = CHILDREN.get(kind, ())
    _check_keys(spec, ("name", "identifier", "tags") + tuple(f for f in FIELDS[kind] if f not in implied) +
                tuple(key for key, _kind in children), where)
    doc = _existing(store, kind, spec, parent_field, parent_id, where)
    if doc is None:
        fields = dict((f, spec[f]) for f in FIELDS[kind] if f in spec)
        fields["name"] = spec.get("name")
        if parent_field:
            fields[parent_field] = parent_id
        if typed:
            fields["parent_type"] = parent_kind
        if kind == "loadbalancer":
            fields.setdefault("ip_address", "%s.local.test" % spec.get("name"))
        if kind == "frontend" and spec.get("default_backend"):
            named = [b["identifier"] for b in store.all("backend")
                     if b["load_balancer"] == parent_id and spec["default_backend"] in (b["name"], b["identifier"])]
            if not named:
                raise SeedError("%s: default_backend %s is no backend of this load balancer" % (
                    where, spec["default_backend"]))
            fields["default_backend"] = named[0]
        try:
            doc = engine.lbaas.insert(kind, fields, identifier=spec.get("identifier"), seeded=True)
        except ApiError as exc:
            raise _failed(where, exc)
        _tag(engine, doc["identifier"], spec, "LBaaS", where)
    for key, child_kind in children:
        for i, child in enumerate(_list(spec, key, where + ".")):
            _lbaas(engine, child_kind, child, "%s.%s[%d]" % (where, key, i), doc["identifier"], kind)


def _vlan(engine, spec, location, where):
    spec = {"name": spec} if isinstance(spec, str) else spec or {"name": "local"}
    _check_keys(spec, VLAN_KEYS, where)
    for doc in engine.store.all("vlan"):
        if doc["identifier"] == spec.get("identifier") or (not spec.get("identifier") and doc["name"] == spec.get("name")):
            return doc
    return engine.ipam.add_vlan(spec.get("name") or "local", location, identifier=spec.get("identifier"),
                                description=spec.get("description", ""))


def _prefix(engine, spec, where):
    _check_keys(spec, PREFIX_KEYS, where)
    try:
        cidr = str(ipaddress.ip_network(str(spec.get("cidr"))))
    except ValueError as exc:
        raise SeedError("%s: cidr: %s" % (where, exc))
    if spec.get("type", 0) not in (0, 1) or not isinstance(spec.get("create_empty", True), bool):
        raise SeedError("%s: type must be 0 or 1, create_empty true or false" % where)
    store = engine.store
    if any(p["identifier"] == spec.get("identifier") or p["name"] == cidr for p in store.all("prefix")):
        return
    location = spec.get("location")
    if isinstance(location, dict):
        _check_keys(location, LOCATION_KEYS, where + ".location")
        if not location.get("code"):
            raise SeedError("%s.location: needs a code" % where)
    location = engine.ipam.ensure_location(location)
    vlan = _vlan(engine, spec.get("vlan"), location, where + ".vlan")
    try:
        doc = engine.ipam.add_prefix(cidr, vlan, location, identifier=spec.get("identifier"),
                                     create_empty=spec.get("create_empty", True),
                                     description=spec.get("description", ""), prefix_type=spec.get("type", 0))
    except ApiError as exc:
        raise _failed(where, exc)
    _tag(engine, doc["identifier"], spec, "IPAM", where)
