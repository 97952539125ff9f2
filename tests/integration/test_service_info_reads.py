"""What service_info reads (issue 31, issue 30 point 4), each module run as its own process against the local
Engine, its requests read from the Engine's log:

* under every tag matching the local Engine offers (a lenient one lists ``xanxlb-svc=web``'s and
  ``anxlb-svc=web2``'s objects for ``anxlb-svc=web``), a service's objects, addresses and listeners are its own,
  confirmed on each object's tags, as gc counts them;
* a frontend's ACLs and rules are listed only where the service's marker does not say "no allow-list";
* with ``only_undeclared``, the declared owners are found but not read, and the others are named in one warning.
"""
from ..bench.chain import label
from .conftest import warning_texts
from .test_ip_address import V4

WEB = {"name": "web", "load_balancers": ["lb1"], "ports": [{"name": "http", "port": 8080, "target_port": 18080}],
       "addresses": ["127.0.10.40"], "servers": [{"name": "n1", "address": "127.0.0.1"}]}
# another team's web (another prefix) and a web2 of ours: both inside a lenient listing of anxlb-svc=web
XWEB = dict(WEB, tag_prefix="xanxlb", name_suffix="b", addresses=["127.0.10.41"], servers=[{"name": "n2", "address": "127.0.0.2"}])
WEB2 = dict(WEB, name="web2", addresses=["127.0.10.42"], ports=[{"name": "http", "port": 8082}],
            servers=[{"name": "n3", "address": "127.0.0.3"}, {"name": "n4", "address": "127.0.0.4"}])
MODES = ["exact", "substring", "prefix", "casefold"]   # every tag matching the local Engine offers
API = dict(WEB, name="api", addresses=["127.0.10.43"], ports=[{"name": "grpc", "port": 9090}],
           allow_sources=["10.0.0.0/8"])


def ok(run):
    assert not run.failed, run
    return run


def paths(run, engine):
    """Requests per path (method and what, without identifiers) that the module process sent."""
    counts = {}
    for entry in run.requests(engine):
        counts[label(entry)] = counts.get(label(entry), 0) + 1
    return counts


def test_a_lenient_tag_listing_does_not_lend_a_service_other_owners_objects(engine, module):
    # The scene is made once, under exact matching, and read under each matching: that the writing modules never
    # take another owner's objects under a lenient listing is test_tag_match.py's subject, not this file's.
    for declaration in (WEB, XWEB, WEB2):
        ok(module("service", declaration))
    for owner, prefix in (("web", "anxlb"), ("web2", "anxlb"), ("xanxlb", "xanxlb")):
        ok(module("ip_address", {"pool": [V4], "owner": owner, "family": "v4", "tag_prefix": prefix}))
    for mode in MODES:
        engine.set_options(tag_match=mode)
        reads_only_its_own(module, mode)


def reads_only_its_own(module, mode):
    found = ok(module("service_info", {"names": ["web"]}))["services"]
    assert [s["name"] for s in found] == ["web"], mode
    web = found[0]
    assert web["objects"] == {"lb1": {"backends": 1, "frontends": 1, "binds": 1, "servers": 1, "acls": 0, "rules": 0}}, mode
    assert web["listening"] == {"lb1": {"127.0.10.40": [8080]}} and web["addresses"] == ["127.0.10.40"], mode
    assert [a["address"] for a in web["allocated"]] == ["127.0.10.2"] and web["orphans"] == 0, mode
    # the other team's web, under its own prefix: its own objects only
    (xweb,) = ok(module("service_info", {"tag_prefix": "xanxlb", "names": ["web"]}))["services"]
    assert xweb["listening"] == {"lb1": {"127.0.10.41": [8080]}} and xweb["objects"]["lb1"]["servers"] == 1, mode


def test_allow_list_listings_follow_the_marker_and_only_undeclared_reads_only_the_others(engine, module):
    for declaration in (WEB, WEB2, API):
        ok(module("service", declaration))
    engine.reset_requests()
    every = ok(module("service_info", {}))
    assert [s["name"] for s in every["services"]] == ["api", "web", "web2"]
    # web's and web2's markers say their declarations have no allow-list: their frontends' ACLs and rules are not
    # listed; api's are, and reported
    per_path = paths(every, engine)
    inventory_cost = len(every.requests(engine))
    assert inventory_cost <= 46, per_path   # 6 to find the owners and 13 to 14 per service (ACLs and rules: api)
    assert per_path.get("list ACL") == 1 and per_path.get("list rule") == 1, per_path
    api = every["services"][0]
    assert api["allow_sources"] == {"lb1": {"grpc.api": ["10.0.0.0/8"]}}
    assert (api["objects"]["lb1"]["acls"], api["objects"]["lb1"]["rules"]) == (3, 3)   # one network: allow, deny v4, deny v6
    assert warning_texts(every.result) == [] and "undeclared" not in every.result

    # only_undeclared: web and web2 are found (tag entities, markers) but not read; api is, as in the full inventory
    engine.reset_requests()
    report = ok(module("service_info", {"load_balancers": ["lb1"], "declared": ["web", "web2"], "only_undeclared": True}))
    assert report["services"] == [api]
    assert [u["name"] for u in report["undeclared"]] == ["api"]
    assert report["undeclared"][0]["message"] == "api: not declared, still on lb1 with 127.0.10.43:9090"
    assert warning_texts(report.result) == [
        "service api of tag prefix 'anxlb' is not declared but still on lb1 with 127.0.10.43:9090; collect it if it was "
        "renamed or removed (anxcloud.lbaas.gc), or name it in declared if another playbook manages it (role "
        "service_loadbalancer: lbaas_keep_owners)"]
    read = report.requests(engine)
    assert [e["path"] for e in read if "tag_name=" in e["path"]] and not [
        e["path"] for e in read if "tag_name=" in e["path"] and "api" not in e["path"]]
    # what the report costs: what reading api alone costs (names), against the whole inventory's
    report_paths = paths(report, engine)
    engine.reset_requests()
    alone = ok(module("service_info", {"names": ["api"]}))
    assert report_paths == paths(alone, engine) and len(read) < inventory_cost / 1.9, (len(read), inventory_cost)
    # nothing declared but api: nothing to report, and the three found cost what finding owners costs
    engine.reset_requests()
    quiet = ok(module("service_info", {"declared": ["web", "web2", "api"], "only_undeclared": True}))
    assert quiet["services"] == [] and quiet["undeclared"] == [] and warning_texts(quiet.result) == []
    assert len(quiet.requests(engine)) <= 8, paths(quiet, engine)

    engine.reset_requests()
    refused = module("service_info", {"only_undeclared": True})
    assert refused.message() == "only_undeclared: true needs declared, the owners not to read; nothing was read"
    assert engine.requests()["total"] == 0
