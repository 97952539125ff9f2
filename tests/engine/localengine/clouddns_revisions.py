"""CloudDNS revisions (docs/engine-api-facts.md, CloudDNS): every write makes a new revision of the zone with
new record identifiers, which is validated and deployed before it is live. Computed lazily from
timestamps, like the LBaaS states (states.py): no thread moves the levels.

A revision made at time t with --dns-deploy-delay d is validated during the first half of d
(``validation_level`` 0 -> 100) and deployed during the second (``deployment_level`` 0 -> 100); until
both are 100 the zone is not editable. With --dns the levels stop at 99 until knot serves the
revision (knot.py), so a client that waited for 100 finds it in DNS. A deploy fault (faults.py, rule
``match`` on the zone name) makes it ``stuck`` (deployment_level 50 forever) or ``error`` (state
``failed`` after the validation half: editable again, never live; DNS keeps the last live revision).
Revision states are this emulator's words: validating, deploying, active (the live one), failed,
inactive.
"""
import time

from .store import new_id

KEEP = 3   # revisions kept (and answered) per zone, newest first: the live one, the one before, a new one
FIELDS = ("name", "type", "rdata", "region", "ttl", "comment", "immutable")


def rfc3339(epoch):
    """What go-anxcloud's time.Time fields decode."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def levels(revision, delay, now=None):
    """(validation_level, deployment_level, state) of a revision by the clock."""
    elapsed = (time.time() if now is None else now) - revision["_created"]
    outcome = revision.get("_outcome", "ok")
    half = delay / 2.0
    validation = 100 if delay <= 0 or elapsed >= half else int(100 * elapsed / half)
    if validation < 100:
        return validation, 0, "validating"
    if outcome == "error":
        return 100, 0, "failed"
    if outcome == "stuck":
        return 100, 50, "deploying"
    deployment = 100 if delay <= 0 or elapsed >= delay else int(100 * (elapsed - half) / half)
    return 100, deployment, "active" if deployment == 100 else "deploying"


def ready(revision, delay, now=None):
    """Deployed by the clock (knot.py serves the newest such revision)."""
    return levels(revision, delay, now)[1] == 100


def live(zone, delay, now=None):
    """The newest revision deployed by the clock, or None."""
    for revision in reversed(zone["_revisions"]):
        if ready(revision, delay, now):
            return revision
    return None


def add(zone, records, outcome, now=None):
    """A new revision holding ``records`` (user records, without identifiers) and the zone's own SOA and
    NS records; every record gets a new identifier. Serials grow by at least one per revision."""
    now = time.time() if now is None else now
    last = zone["_revisions"][-1]["serial"] if zone["_revisions"] else 0
    serial = max(last + 1, int(now))
    owned = zone_records(zone, serial)
    revision = {"identifier": new_id(), "serial": serial, "_created": now, "_outcome": outcome,
                "records": [ordered(r) for r in owned + records]}
    zone["_revisions"] = (zone["_revisions"] + [revision])[-KEEP:]
    zone["_updated"] = now
    return revision


def ordered(record):
    """A record as answered, with a new identifier: the keys of go-anxcloud's Record plus comment."""
    return dict([("identifier", new_id())] + [(k, record[k]) for k in FIELDS])


def name_servers(zone):
    """The zone's NS targets: its dns_servers, else the local Engine's defaults (invented names)."""
    servers = [s["server"] for s in zone.get("dns_servers") or []]
    return [s.rstrip(".") + "." for s in servers] or ["ns1.local.test.", "ns2.local.test."]


def zone_records(zone, serial):
    """SOA and apex NS: the zone's own, immutable."""
    mname = (zone.get("master_ns") or name_servers(zone)[0]).rstrip(".") + "."
    rname = zone["admin_email"].replace("@", ".").rstrip(".") + "."
    soa = "%s %s %d %d %d %d %d" % (mname, rname, serial, zone["refresh"], zone["retry"], zone["expire"], zone["ttl"])
    common = {"name": "@", "region": "default", "ttl": None, "comment": None, "immutable": True}
    return [dict(common, type="SOA", rdata=soa)] + [dict(common, type="NS", rdata=ns) for ns in name_servers(zone)]


def user_records(revision):
    """The records of a revision without their identifiers and without the zone's own."""
    return [dict((k, v) for k, v in r.items() if k != "identifier") for r in revision["records"] if not r["immutable"]
            or r["type"] not in ("SOA", "NS") or r["name"] != "@"]


def view(revision, state):
    return {"identifier": revision["identifier"], "serial": revision["serial"], "state": state,
            "records": revision["records"], "created_at": rfc3339(revision["_created"]),
            "modified_at": rfc3339(revision["_created"])}
