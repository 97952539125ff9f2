"""A seeded fault soak of dns_record_sets (issue 41): two owners write record sets in one zone at the same moment (two
module processes at once), while the local Engine fails in the ways it knows and runs crash mid-way.

Each owner's values are its own (alpha's A records in 127.0.1.0/24 and TXT values ``alpha-...``, beta's in 127.0.2.0/24
and ``beta-...``), so every record and every changeset entry says whose it is. Both write into the apex TXT rrset
(``others: keep``, a shared rrset) and prune now and then. After every round (both runs ended, converged, failed or
killed) the zone is read back, and these must hold:
- no changeset of the round mixes the two owners' values, nor names a record of neither: neither touches the other's
  records, nor the hand-made, immutable and third-owner records the zone holds besides theirs (which read back
  unchanged);
- no record of an owner is held twice (a changeset whose answer was lost is never applied twice);
- a run that converged left its owner's record sets exactly as declared (with prune, and nothing else of its owner's);
- a run that failed says why, without a traceback.
When the faults stop, one run of each owner converges and the next sends no write; knot serves the shared rrset with
both owners' values. Seed and round count are printed (``DNS_SOAK_SEED`` / ``DNS_SOAK_ROUNDS`` override them).
"""
import json
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor

from localengine.testing import MUTATING

from .conftest import ModuleForkServer
from .dns_harness import RECORDS, ZONE, dns_engine, dns_seed, resolve, zone_live  # noqa: F401  pylint: disable=unused-import
from .test_fault_soak import run_module, say

SEED = int(os.environ.get("DNS_SOAK_SEED", "20261205"))
ROUNDS = int(os.environ.get("DNS_SOAK_ROUNDS", "12"))
OWNERS = {"alpha": 1, "beta": 2}   # the owner, and its A records' third octet
FOREIGN = [dict(name="blog", type="A", rdata="127.0.0.30", comment="anxlb-svc=gamma"),
           dict(name="@", type="TXT", rdata="hand-verification=1", comment=None),
           dict(name="alpha0", type="TXT", rdata="team-notes", comment="other-svc=alpha")]


def owner_of_value(rdata):
    """Whose value this is, by its namespace; None for one of neither."""
    for owner, octet in OWNERS.items():
        if rdata.startswith("127.0.%d." % octet) or rdata.strip('"').startswith(owner + "-"):
            return owner
    return None


def declaration(rng, owner):
    sets = []
    for index in rng.sample(range(6), rng.randint(1, 5)):
        if rng.random() < 0.7:
            values = ["127.0.%d.%d" % (OWNERS[owner], rng.randint(1, 40)) for _v in range(rng.randint(1, 2))]
            sets.append(dict(name="%s%d" % (owner, index), type="A", values=sorted(set(values)), ttl=rng.choice([None, 300])))
        else:
            sets.append(dict(name="%s%d" % (owner, index), type="TXT", values=["%s-%d" % (owner, rng.randint(1, 9))]))
    if rng.random() < 0.7:
        sets.append(dict(name="@", type="TXT", values=["%s-apex-%d" % (owner, rng.randint(1, 3))], others="keep"))
    return dict(zone=ZONE, owner=owner, record_sets=sets, prune=rng.random() < 0.6, max_delete=50)


def faults(rng):
    """Gateway errors and dropped connections on reads and writes, and one of: a changeset committed and then
    answered 504 or dropped, a rate limit with Retry-After, a revision that fails to deploy, nothing more."""
    out = {"seed": rng.randint(0, 10 ** 6), "errors": {}, "script": [], "deploy": []}
    for method in ("GET", "POST"):
        if rng.random() < 0.6:
            out["errors"][method] = {rng.choice(["500", "502", "503", "504", "drop"]): rng.choice([0.03, 0.08])}
    kind = rng.choice(["commit", "commit", "rate", "deploy", "none"])
    if kind == "commit":
        out["script"].append({"method": "POST", "path": "/changeset", "commit_then": rng.choice([504, "drop"]),
                              "count": rng.randint(1, 2)})
    elif kind == "rate":
        out["retry_after"] = 0.2
        out["script"].append({"method": "*", "path": "/api/clouddns", "status": 429, "count": rng.randint(1, 2)})
    elif kind == "deploy":
        out["deploy"].append({"match": ZONE, "outcome": "error", "count": 1})
    return out


def module_args(engine, decl):
    return dict(decl, api_url=engine.url, api_token=engine.token, wait_timeout=8, api_retries=2,
                _ansible_check_mode=False, _ansible_diff=False)


def zone_records(engine):
    """(name, type, rdata, ttl, comment) of every record but SOA and NS, read through the API with no fault on."""
    return sorted((r["name"], r["type"], r["rdata"], r["ttl"], r["comment"]) for r in engine.api("GET", RECORDS).json()
                  if r["type"] not in ("SOA", "NS"))


def of_owner(records, owner):
    return [r for r in records if r[4] and r[4].split(";")[0] == "anxlb-svc=" + owner]


def converged(records, decl):
    """Whether the owner's records are exactly its declaration (its record sets; with prune nothing else of its)."""
    mine = of_owner(records, decl["owner"])
    wanted = set()
    for entry in decl["record_sets"]:
        for value in entry["values"]:
            rdata = '"%s"' % value if entry["type"] == "TXT" else value
            wanted.add((entry["name"], entry["type"], rdata, entry.get("ttl")))
    named = set((e["name"], e["type"]) for e in decl["record_sets"])
    held = set((r[0], r[1], r[2], r[3]) for r in mine if (r[0], r[1]) in named or decl["prune"])
    ttls_free = set((n, t, v) for n, t, v, ttl in wanted if ttl is None)
    return set((n, t, v) for n, t, v, _ttl in held) == set((n, t, v) for n, t, v, _ttl in wanted) and all(
        (n, t, v) in ttls_free or (n, t, v, ttl) in wanted for n, t, v, ttl in held)


def mixed_changesets(log):
    """The changesets of a round whose entries are not all of one owner's values."""
    out = []
    for entry in log:
        if entry["method"] == "POST" and entry["path"].endswith("/changeset") and isinstance(entry.get("body"), dict):
            whose = set(owner_of_value(e["rdata"]) for side in ("create", "delete") for e in entry["body"].get(side) or [])
            if len(whose) != 1 or None in whose:
                out.append(entry["body"])
    return out


def test_two_owners_writing_one_zone_at_once_under_faults(dns_engine, module_fork_server, record_property):
    rng = random.Random(SEED)
    say(record_property, "dns soak: seed %d, %d rounds of two owners (DNS_SOAK_SEED / DNS_SOAK_ROUNDS to change)"
        % (SEED, ROUNDS))
    created = dns_engine.api("POST", RECORDS.rsplit("/", 1)[0] + "/changeset", json={"create": [
        dict(r, region="default", ttl=0) for r in FOREIGN]})
    assert created.status_code == 200, created.text
    zone_live(dns_engine)
    foreign = [r for r in zone_records(dns_engine) if not of_owner([r], "alpha") and not of_owner([r], "beta")]
    servers = {"alpha": module_fork_server, "beta": ModuleForkServer()}
    outcomes = dict((owner, {"converged": 0, "failed": 0, "crashed": 0}) for owner in OWNERS)
    counts = {"changesets landed": 0, "changesets refused (zone not editable) or lost": 0, "rounds the runs overlapped": 0}
    last = {}
    reasons = set()   # how failed runs began their messages

    def timed(owner, args, timeout):
        started = time.monotonic()
        result = run_module(servers[owner], args, timeout, "dns_record_sets")[0]
        return result, (started, time.monotonic())
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for number in range(ROUNDS):
                decls = dict((owner, declaration(rng, owner)) for owner in OWNERS)
                last.update(decls)
                crash = dict((owner, rng.uniform(0.3, 1.5) if rng.random() < 0.15 else 120) for owner in OWNERS)
                dns_engine.reset_requests()
                dns_engine.set_faults(faults(rng))
                futures = dict((owner, pool.submit(timed, owner, module_args(dns_engine, decls[owner]), crash[owner]))
                               for owner in OWNERS)
                results = dict((owner, f.result()[0]) for owner, f in futures.items())
                (a_start, a_end), (b_start, b_end) = [futures[o].result()[1] for o in OWNERS]
                counts["rounds the runs overlapped"] += a_start < b_end and b_start < a_end
                dns_engine.clear_faults()
                zone_live(dns_engine, timeout=30)
                log = dns_engine.requests()["log"]
                sent = [e["status"] for e in log if e["method"] == "POST" and e["path"].endswith("/changeset")]
                counts["changesets landed"] += sent.count(200)
                counts["changesets refused (zone not editable) or lost"] += len(sent) - sent.count(200)
                records = zone_records(dns_engine)
                where = "round %d (seed %d)" % (number, SEED)
                assert mixed_changesets(log) == [], "%s: a changeset mixed owners or named a foreign record" % where
                assert [r for r in records if r in foreign] == foreign, "%s: a foreign record changed" % where
                for owner in OWNERS:
                    mine = [r[:3] for r in of_owner(records, owner)]
                    assert len(mine) == len(set(mine)), "%s: %s holds a record twice: %s" % (where, owner, mine)
                    result = results[owner]
                    if result is None:
                        outcomes[owner]["crashed"] += 1
                    elif result.get("failed"):
                        outcomes[owner]["failed"] += 1
                        msg = result.get("msg") or ""
                        reasons.add(msg[:90])
                        assert msg and "Traceback" not in msg and "MODULE FAILURE" not in msg, "%s: %r" % (where, result)
                    else:
                        outcomes[owner]["converged"] += 1
                        assert converged(records, decls[owner]), "%s: %s did not converge: %s" % (
                            where, owner, of_owner(records, owner))
    finally:
        servers["beta"].close()
    say(record_property, "dns soak outcomes: %s; %s" % (json.dumps(outcomes, sort_keys=True), json.dumps(counts)))
    say(record_property, "dns soak failures began: %s" % " | ".join(sorted(reasons)))
    # faults over: each owner converges in one run, the next writes nothing; knot serves the shared apex TXT
    for owner, decl in sorted(last.items()):
        result, _out = run_module(module_fork_server, module_args(dns_engine, decl), 120, "dns_record_sets")
        assert not result.get("failed") and converged(zone_records(dns_engine), decl), result
        dns_engine.reset_requests()
        result, _out = run_module(module_fork_server, module_args(dns_engine, decl), 120, "dns_record_sets")
        assert not result.get("failed") and result["changed"] is False, result
        assert [e for e in dns_engine.requests()["log"] if e["method"] in MUTATING] == []
    apex = set(resolve(dns_engine, ZONE, "TXT")[1])
    for owner, decl in last.items():
        for entry in decl["record_sets"]:
            if entry["name"] == "@":
                assert set('"%s"' % v for v in entry["values"]) <= apex, (owner, apex)
    assert '"hand-verification=1"' in apex
    assert [r for r in zone_records(dns_engine) if r in foreign] == foreign
    assert all(o["converged"] for o in outcomes.values()) and any(o["failed"] + o["crashed"] for o in outcomes.values())
    assert counts["changesets landed"] and counts["rounds the runs overlapped"]
