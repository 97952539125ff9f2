"""Full listings change how the service reads, never what it plans or writes (issue 42).

The same change of a service (a node added, a node's address changed, a port's target port changed) runs in check
mode and for real against three Engines: one that ignores ``attributes=all`` (what the local Engine always did:
every object read by its GET), one that honours it, and one that honours it but leaves a field out of two entries
(``listing_omits``: a server the change updates and a frontend). The plans, the diffs, the LBaaS writes (method,
path, body; identifiers read as the names of their objects) and the state read back afterwards are the same under
all three; under the honouring Engine observation sends no GET of an object at all, and where entries lack a
field it sends exactly the GETs of those two objects."""
import copy
import json
import re

from localengine.testing import MUTATING

from . import engine_state as es
from .test_service import SERVICE, apply

CHANGED = copy.deepcopy(SERVICE)
CHANGED["servers"] = [{"name": "n1", "address": "127.0.0.11"}, {"name": "n2", "address": "127.0.0.2"},
                      {"name": "n3", "address": "127.0.0.3"}]
CHANGED["ports"][1]["target_port"] = 28443
# entries of an updated server and of a frontend that lack a key the observation reads
OMITS = [{"match": "n1.https.web", "field": "port"}, {"match": "http.web", "field": "default_backend"}]
IDENT = re.compile(r"[0-9a-f]{32}")
OBJECT = re.compile(r"^/api/LBaaS/v1/(\w+)\.json/([0-9a-f]{32})$")


def names(engine):
    """identifier -> name of every load balancer and LBaaS object (read through the Engine's own API)."""
    kinds = ("loadbalancer", "backend", "frontend", "bind", "server")
    return dict((o["identifier"], "%s %s" % (kind, o["name"])) for kind in kinds for o in es.objects(engine, kind))


def named(value, known):
    """``value`` (JSON-able) with every identifier replaced by the name of its object."""
    return json.loads(IDENT.sub(lambda m: known.get(m.group(0), "?"), json.dumps(value, sort_keys=True)))


def change(engine, module, mode, omits=()):
    """The change above from the same start, the Engine honouring full listings or not: (what to compare, the
    names of the LBaaS objects observation read by their GET)."""
    engine.reset()
    apply(module, SERVICE)
    engine.set_options(full_listings=mode)
    engine.set_faults({"listing_omits": list(omits)})
    known = names(engine)
    check = module("service", CHANGED, check=True, diff=True)
    real = module("service", CHANGED, diff=True)
    assert not check.failed and not real.failed, (check, real)
    assert check.writes(engine) == 0
    log = real.requests(engine)
    first_write = min(i for i, e in enumerate(log) if e["method"] in MUTATING)
    read = sorted(known[OBJECT.match(e["path"].split("?")[0]).group(2)] for e in log[:first_write]
                  if e["method"] == "GET" and OBJECT.match(e["path"].split("?")[0]))
    known.update(names(engine))   # and the objects the run created
    lbaas_writes = [[e["method"], e["path"], e["body"]] for e in log if e["method"] in MUTATING and "/LBaaS/" in e["path"]]
    state = dict((kind, sorted((named(dict((k, v) for k, v in o.items() if k not in ("identifier", "state")), known)
                                for o in es.objects(engine, kind)), key=lambda o: o["name"]))
                 for kind in ("backend", "frontend", "bind", "server"))
    seen = {"plan": named(real["plan"], known), "check plan": named(check["plan"], known), "diff": real["diff"],
            "check diff": check["diff"], "writes": sorted(named(lbaas_writes, known), key=json.dumps), "state": state}
    return seen, read


def test_entries_lacking_a_field_are_read_by_their_get_and_the_plan_and_writes_stay_as_today(engine, module):
    today, read_today = change(engine, module, "ignore")
    whole, read_whole = change(engine, module, "honour")
    lacking, read_lacking = change(engine, module, "honour", OMITS)
    assert today["plan"] == today["check plan"] and today["writes"]
    assert [a["action"] for a in today["plan"] if a["type"] == "server"].count("update") == 3   # n1 twice, n2's https
    for seen in (whole, lacking):
        assert seen == today
    assert len(read_today) == 10   # every object of the service, each by its GET (R = 2 ports x (2 + 1 + 2))
    assert read_whole == []
    assert read_lacking == ["frontend http.web", "server n1.https.web"]
