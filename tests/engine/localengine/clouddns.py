"""CloudDNS v1 (docs/engine-api-facts.md, CloudDNS; README.md, "CloudDNS"): zones, their records and
changesets under /api/clouddns/v1/zone.json. Revisions and their levels are in clouddns_revisions.py,
record checks and rewrites in clouddns_rdata.py.

The zone name is the zone's identifier (in the path of GET and DELETE; in the body of POST and PUT, as
``zone_name`` from the legacy client or ``zoneName`` from the generic one). Records have no GET of
their own, answer writes with the whole zone, and get new identifiers with every revision. Whatever
CloudDNS refuses in a body is a 400 (its changeset answers 400, so the API is taken to be one that
answers 400 to bad input), with the Engine's error body.
"""
import time

from . import clouddns_rdata as rdata
from . import clouddns_revisions as revisions
from .account import CUSTOMER
from .errors import ApiError, not_allowed, not_found, require_object
from .pages import first
from .store import new_id
from .validation import is_bool, is_int, parse_ip

SOA_FIELDS = ("refresh", "retry", "expire", "ttl")
DNSSEC_MODES = ("managed", "unvalidated")
TTL_RANGE = (60, 604800)
COMMENT_MAX = 255
RECORD_KEYS = ("name", "type", "rdata", "region", "ttl", "comment")


def bad_request(message, validation=None):
    return ApiError(400, message, validation)


def record_problems(body):
    """(the record as stored, without identifier; {field: problem})."""
    if not isinstance(body, dict):
        return None, {"record": "Must be an object with name, type, rdata, region, ttl, comment."}
    problems, record = {}, {"immutable": False}
    try:
        record["name"] = rdata.record_name(body.get("name"))
    except rdata.RdataError as exc:
        problems["name"] = str(exc)
    kind = body.get("type")
    if kind in rdata.ZONE_OWNED:
        problems["type"] = "The SOA record belongs to the zone; change the zone's SOA values instead."
    elif kind not in rdata.SUPPORTED:
        problems["type"] = "Must be one of %s; got %r." % (", ".join(rdata.SUPPORTED), kind)
    else:
        record["type"] = kind
        try:
            record["rdata"] = rdata.stored(kind, body.get("rdata"))
        except rdata.RdataError as exc:
            problems["rdata"] = str(exc)
    if kind == "NS" and record.get("name") == "@":
        problems["name"] = "The NS records of the apex belong to the zone (its dns_servers)."
    ttl = body.get("ttl")
    if ttl in (None, 0):
        record["ttl"] = None   # the zone's default; go-anxcloud's generic client sends 0 for "not set"
    elif not is_int(ttl) or not TTL_RANGE[0] <= ttl <= TTL_RANGE[1]:
        problems["ttl"] = "Must be null or 0 (the zone's TTL) or an integer from %d to %d; got %r." % (TTL_RANGE + (ttl,))
    else:
        record["ttl"] = ttl
    region = body.get("region")
    if region not in (None, "") and not isinstance(region, str):
        problems["region"] = "Must be a string (default: default)."
    record["region"] = region or "default"
    comment = body.get("comment")
    if comment is not None and (not isinstance(comment, str) or len(comment) > COMMENT_MAX
                                or any(ord(c) < 32 for c in comment)):
        problems["comment"] = "Must be null or a single-line string of at most %d characters." % COMMENT_MAX
    record["comment"] = comment
    return record, problems


def cname_conflicts(records):
    """Names where a CNAME shares the name with any other record (RFC 1034 3.6.2; knot refuses such a zone),
    and a CNAME at the apex."""
    by_name = {}
    for r in records:
        if r["region"] == "default":
            by_name.setdefault(r["name"], []).append(r["type"])
    return set(name for name, kinds in by_name.items()
               if "CNAME" in kinds and (len(kinds) > 1 or name == "@"))


def matches(record, wanted):
    """A delete entry (normalised) names this record: name, type, rdata, region and ttl equal."""
    return all(record[k] == wanted[k] for k in ("name", "type", "rdata", "region", "ttl"))


def stored_zone_name(body):
    legacy, generic = body.get("zone_name"), body.get("zoneName")
    if legacy and generic and legacy != generic:
        raise bad_request("zone_name and zoneName differ.", {"zone_name": "Send the zone's name once."})
    try:
        return rdata.zone_name(legacy or generic)
    except rdata.RdataError as exc:
        raise bad_request("Validation failed: zone_name.", {"zone_name": "Required (zone_name or zoneName): %s" % exc})


def soa_problems(body):
    problems = {}
    if body.get("master") is not True:
        problems["master"] = ("Required: true (CloudDNS as master; slave zones are not emulated)."
                              if not is_bool(body.get("master")) else "Slave zones are not emulated here.")
    if body.get("dnssec_mode") not in DNSSEC_MODES:
        problems["dnssec_mode"] = "Required: one of %s." % ", ".join(DNSSEC_MODES)
    email = body.get("admin_email")
    if not isinstance(email, str) or email.count("@") != 1 or not email.split("@")[0]:
        problems["admin_email"] = "Required: an e-mail address (the SOA's RNAME)."
    for key in SOA_FIELDS:
        if not is_int(body.get(key)) or not 1 <= body[key] <= 2147483647:
            problems[key] = "Required: a positive integer (seconds)."
    return problems


def server_problems(body):
    """master_ns, notify_allowed_ips, dns_servers: optional, checked when given."""
    problems = {}
    ips = body.get("notify_allowed_ips") or []
    if not isinstance(ips, list) or not all(parse_ip(ip) for ip in ips):
        problems["notify_allowed_ips"] = "Must be a list of IP addresses."
    servers = body.get("dns_servers") or []
    if not isinstance(servers, list) or not all(isinstance(s, dict) and isinstance(s.get("server"), str) for s in servers):
        problems["dns_servers"] = "Must be a list of {server, alias}."
        servers = []
    for key, value in [("master_ns", body.get("master_ns"))] + [("dns_servers", s["server"]) for s in servers]:
        try:
            if value is not None and (value or key == "dns_servers"):
                rdata.host_name(value, "a name server's host name")
        except rdata.RdataError as exc:
            problems[key] = str(exc)
    return problems


class CloudDns:
    def __init__(self, engine):
        self.engine = engine
        self.store = engine.store
        self.version = 0   # counts zone writes, so --dns (knot.py) reads the zones only after one

    def changed(self):
        self.version += 1

    def save(self, zone):
        self.store.put("dnszone", zone)
        self.changed()

    @property
    def delay(self):
        return self.engine.dns_deploy_delay

    # ---- zones ---------------------------------------------------------------------------------
    def zones(self):
        return self.store.all("dnszone")

    def find(self, name):
        wanted = (name or "").lower().rstrip(".")
        for zone in self.zones():
            if zone["name"] == wanted:
                return zone
        return None

    def zone(self, name):
        zone = self.find(name)
        if zone is None:
            raise not_found("zone", name)
        return zone

    def levels(self, zone, now=None):
        """(validation_level, deployment_level, state) of the newest revision; with --dns, 99 until knot
        serves a revision that is done by the clock (failed if knot refuses it)."""
        newest = zone["_revisions"][-1]
        validation, deployment, state = revisions.levels(newest, self.delay, now)
        dns = self.engine.dns
        if deployment == 100 and dns is not None:
            seen = dns.outcome(zone["name"], newest["identifier"])
            if seen == "refused":
                return validation, 0, "failed"
            if seen == "pending":
                return validation, 99, "deploying"
        return validation, deployment, state

    def editable(self, zone):
        _validation, deployment, state = self.levels(zone)
        return deployment == 100 or state == "failed"

    def view(self, zone):
        now = time.time()
        validation, deployment, state = self.levels(zone, now)
        live = revisions.live(zone, self.delay, now)
        newest = zone["_revisions"][-1]
        states = dict((r["identifier"], "active" if live is r else "inactive") for r in zone["_revisions"])
        states[newest["identifier"]] = state
        out = dict((k, v) for k, v in zone.items() if not k.startswith("_") and k != "identifier")
        out.update({
            "created_at": revisions.rfc3339(zone["_created"]), "updated_at": revisions.rfc3339(zone["_updated"]),
            "published_at": revisions.rfc3339(live["_created"] + max(self.delay, 0)) if live else None,
            "is_editable": deployment == 100 or state == "failed", "validation_level": validation,
            "deployment_level": deployment, "current_revision": newest["identifier"],
            "revisions": [revisions.view(r, states[r["identifier"]]) for r in reversed(zone["_revisions"])],
        })
        return out

    def zone_fields(self, body):
        """The zone's settings from a POST or PUT body (all SOA values required, as in go-anxcloud's
        Definition); 400 naming each problem."""
        body = require_object(body)
        name = stored_zone_name(body)
        problems = dict(soa_problems(body), **server_problems(body))
        if problems:
            raise bad_request("Validation failed: %s." % ", ".join(sorted(problems)), problems)
        fields = {"name": name}
        fields.update(dict((k, body[k]) for k in ("master", "dnssec_mode", "admin_email") + SOA_FIELDS))
        fields.update({"master_ns": body.get("master_ns") or "", "notify_allowed_ips": body.get("notify_allowed_ips") or [],
                       "dns_servers": [{"server": s["server"], "alias": s.get("alias") or ""}
                                       for s in body.get("dns_servers") or []]})
        return fields

    def create_zone(self, body, seeded_records=None):
        fields = self.zone_fields(body)
        if self.find(fields["name"]):
            raise bad_request("Zone %s exists already." % fields["name"], {"zone_name": "A zone of this name exists."})
        now = time.time()
        zone = dict(fields, identifier=new_id(), customer=CUSTOMER, _created=now, _updated=now,
                    _revisions=[])
        if seeded_records is not None:   # seeded zones were deployed long ago
            revisions.add(zone, seeded_records, "ok", now=0)
            zone["_created"] = zone["_updated"] = now
        else:
            self.new_revision(zone, [])
        self.save(zone)
        return self.view(zone)

    def new_revision(self, zone, records):
        outcome = self.engine.faults.deploy_outcome(zone["identifier"], zone["name"])
        return revisions.add(zone, records, outcome)

    def writable(self, name):
        """The zone, if a write may change it now; else 400 (README.md: a write while the zone is not editable)."""
        zone = self.zone(name)
        if not self.editable(zone):
            _validation, deployment, state = self.levels(zone)
            raise bad_request(
                "Zone %s is not editable: revision %d is %s (deployment_level %d); wait until is_editable is true."
                % (zone["name"], zone["_revisions"][-1]["serial"], state, deployment),
                {"zone": "Not editable while a revision is validated and deployed."})
        return zone

    def update_zone(self, body):
        fields = self.zone_fields(body)
        zone = self.writable(fields["name"])
        zone.update(fields)
        self.new_revision(zone, revisions.user_records(zone["_revisions"][-1]))
        self.save(zone)
        return self.view(zone)

    def delete_zone(self, name):
        zone = self.writable(name)
        self.store.remove(zone["identifier"])
        self.changed()
        return {}

    def handle_zones(self, method, name, query, body):
        if name is None and method == "GET":
            zones = [self.view(z) for z in self.zones()]
            # paging keys present but not functional (gac zone_genclient.go strips all but results)
            return {"page": 1, "total_pages": 1, "total_items": len(zones), "limit": max(len(zones), 1),
                    "results": zones}
        if name is None and method == "POST":
            return self.create_zone(body)
        if name is None and method == "PUT":
            return self.update_zone(body)   # the name is in the body, never in the path
        if name is not None and method == "GET":
            return self.view(self.zone(name))
        if name is not None and method == "DELETE":
            return self.delete_zone(name)
        raise not_allowed(method)

    # ---- records -------------------------------------------------------------------------------
    def records(self, name, query):
        """The newest revision's records, a plain array (no paging); filters name, type, data compare for
        equality with the stored (rewritten) forms."""
        records = self.zone(name)["_revisions"][-1]["records"]
        for key, field in (("name", "name"), ("type", "type"), ("data", "rdata")):
            wanted = first(query, key)
            if wanted:
                records = [r for r in records if r[field] == wanted]
        return records

    def checked(self, zone, records, new):
        """400 when the zone would hold a CNAME beside other data; ``new`` are the records this write adds."""
        conflicts = cname_conflicts(records)
        clashing = [r for r in new if r["name"] in conflicts]
        if clashing:
            raise bad_request("Validation failed: name.", {"name": "A CNAME must be the only record of its name, and "
                                                                   "not at the apex: %s." % clashing[0]["name"]})

    def create_record(self, name, body):
        zone = self.writable(name)
        record, problems = record_problems(require_object(body))
        if problems:
            raise bad_request("Validation failed: %s." % ", ".join(sorted(problems)), problems)
        records = revisions.user_records(zone["_revisions"][-1]) + [record]
        self.checked(zone, records, [record])
        self.new_revision(zone, records)
        self.save(zone)
        return self.view(zone)

    def _own(self, zone, ident):
        """Index of record ``ident`` among the newest revision's user records; 404 for ids of older revisions."""
        current = zone["_revisions"][-1]["records"]
        found = [r for r in current if r["identifier"] == ident]
        if not found:
            raise ApiError(404, "Record %s not found in the current revision of zone %s (record identifiers change "
                                "with every revision)." % (ident, zone["name"]))
        if found[0]["immutable"]:
            raise bad_request("Record %s is immutable." % ident, {"record": "Immutable records cannot be changed."})
        users = [r for r in current if not (r["immutable"] and r["type"] in ("SOA", "NS") and r["name"] == "@")]
        return users.index(found[0])

    def update_record(self, name, ident, body):
        zone = self.writable(name)
        index = self._own(zone, ident)
        record, problems = record_problems(require_object(body))
        if problems:
            raise bad_request("Validation failed: %s." % ", ".join(sorted(problems)), problems)
        records = revisions.user_records(zone["_revisions"][-1])
        records[index] = record
        self.checked(zone, records, [record])
        self.new_revision(zone, records)
        self.save(zone)
        return self.view(zone)

    def delete_record(self, name, ident):
        zone = self.writable(name)
        index = self._own(zone, ident)
        records = revisions.user_records(zone["_revisions"][-1])
        del records[index]
        self.new_revision(zone, records)
        self.save(zone)
        return self.view(zone)

    # ---- changesets ----------------------------------------------------------------------------
    def changeset(self, name, body):
        """All or nothing: the deletes name existing records (each entry one record), the creates are
        valid; else 400 with per-entry problems aligned by index (terraform resource_dns_record.go
        dnsZoneChangeSetError). 200 answers the new revision's records."""
        zone = self.writable(name)
        body = require_object(body)
        creates, deletes = body.get("create") or [], body.get("delete") or []
        if not isinstance(creates, list) or not isinstance(deletes, list) or not (creates or deletes):
            raise bad_request('A changeset is an object with a "create" and a "delete" list of records, at least one entry.',
                              {"changeset": "Send create and/or delete lists of records."})
        records = revisions.user_records(zone["_revisions"][-1])
        delete_errors = [self._delete_entry(records, entry) for entry in deletes]
        create_errors, created = [], []
        for entry in creates:
            record, problems = record_problems(entry)
            create_errors.append(dict((k, [v]) for k, v in problems.items()))
            if not problems:
                created.append((len(create_errors) - 1, record))
        conflicts = cname_conflicts(records + [r for _i, r in created])
        for index, record in created:
            if record["name"] in conflicts:
                create_errors[index]["name"] = ["A CNAME must be the only record of its name, and not at the apex."]
        if any(create_errors) or any(delete_errors):
            validation = dict(("%s[%d].%s" % (op, i, field), "; ".join(texts))
                              for op, errors in (("create", create_errors), ("delete", delete_errors))
                              for i, problems in enumerate(errors) for field, texts in problems.items())
            error = ApiError(400, "The changeset was not applied: %s." % ", ".join(sorted(validation)), validation)
            error.extra = {"create": create_errors, "delete": delete_errors}
            raise error
        records += [r for _i, r in created]
        revision = self.new_revision(zone, records)
        self.save(zone)
        return revision["records"]

    @staticmethod
    def _delete_entry(records, entry):
        """Removes the first record the entry names from ``records``; {field: [problems]} if none."""
        wanted, problems = record_problems(entry)
        if problems:
            return dict((k, [v]) for k, v in problems.items())
        for i, record in enumerate(records):
            if matches(record, wanted):
                if record["immutable"]:
                    return {"record": ["Immutable records cannot be deleted."]}
                del records[i]
                return {}
        return {"record": ["No such record (name, type, rdata, region and ttl must all match one record; a ttl "
                           "of null or 0 is the zone's default)."]}

    def handle(self, method, name, sub, ident, query, body):
        if sub is None:
            return self.handle_zones(method, name, query, body)
        if sub == "changeset":
            if ident is not None or method != "POST":
                raise not_allowed(method)
            return self.changeset(name, body)
        if ident is None and method == "GET":
            return self.records(name, query)
        if ident is None and method == "POST":
            return self.create_record(name, body)
        if ident is not None and method == "PUT":
            return self.update_record(name, ident, body)
        if ident is not None and method == "DELETE":
            return self.delete_record(name, ident)
        raise not_allowed(method)   # no GET of a single record (gac record_genclient.go EndpointURL)
