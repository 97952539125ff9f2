"""Every ``*-svc=`` owner tag is an owner (issue 18 point 2): two teams use the same service name ``web``
under the prefixes ``anxlb`` and ``xanxlb`` on the same load balancer. Neither team's runs (service, the
per-object modules, gc; check mode and real) adopt, change, move, tag or delete the other's objects: the
other's objects read back byte-identical from the local Engine's admin dump, and its request log shows no
write naming one of their ids (in the path or the body). The Engine's tag listing matches by substring
here (``anxlb-svc=web`` is inside ``xanxlb-svc=web``), the lenient matching docs/engine-api-facts.md
(Tag listings) cannot rule out. Against today's Engine and one that lists whole objects (``listings``).
The subject is each module's own ownership check, so every task runs as a
module process of its own (``module_tasks``); a check-mode one gets no earlier task's predictions."""
import json

from localengine.testing import MUTATING

from .conftest import module_tasks
from .test_ip_address import V4
from .test_service import objects_of

WEB = {"name": "web", "load_balancers": ["lb1"], "ports": [{"name": "http", "port": 8080, "target_port": 18080}],
       "addresses": ["127.0.10.40"], "servers": [{"name": "n1", "address": "127.0.0.1"}]}
# The other team: same service name, its own prefix and address.
XWEB = dict(WEB, tag_prefix="xanxlb", addresses=["127.0.10.41"], servers=[{"name": "n2", "address": "127.0.0.2"}])


def service(decl, **extra):
    return {"anxcloud.lbaas.service": dict(decl, **extra)}


def ip(prefix, **extra):
    return {"anxcloud.lbaas.ip_address": dict({"pool": [V4], "owner": "web", "family": "v4", "tag_prefix": prefix}, **extra)}


def carrying(engine, tag):
    """{id: dump entry} of every LBaaS and address object owned by ``tag`` (from the admin dump): carrying it
    exactly, or a bind or server inside a backend or frontend carrying it and carrying no owner tag of its own
    (ownership by containment: binds and servers are not owner-tagged)."""
    objects = engine.dump()["objects"]
    tagged = dict((o["identifier"], o) for o in objects
                  if o["_kind"] in ("backend", "frontend", "bind", "server", "address") and tag in o["_tags"])

    def parent(o):
        link = o.get("frontend" if o["_kind"] == "bind" else "backend")
        return link.get("identifier") if isinstance(link, dict) else link
    contained = dict((o["identifier"], o) for o in objects if o["_kind"] in ("bind", "server")
                     and parent(o) in tagged and not any("-svc=" in t for t in o["_tags"]))
    return dict(tagged, **contained)


def writes_to(engine, ids):
    """Mutating requests in the local Engine's log that name one of ``ids`` in their path or body."""
    return [(e["method"], e["path"]) for e in engine.requests()["log"] if e["method"] in MUTATING
            and any(i in e["path"] or i in json.dumps(e.get("body")) for i in ids)]


def test_two_prefixes_same_service_name_never_touch_each_other(engine, listings, module):
    engine.set_options(tag_match="substring")
    xanxlb = [
        dict(service(XWEB), check_mode=True),
        service(XWEB),
        service(XWEB, name_suffix="b"),
        {"anxcloud.lbaas.frontend": {"load_balancer": "lb1", "name": "http.web", "client_timeout": "9000"}},
        {"anxcloud.lbaas.bind": {"load_balancer": "lb1", "frontend": "http.web", "name": "v4.extra",
                                 "address": "127.0.10.41", "port": 8080, "owner": "web", "tag_prefix": "xanxlb"}},
        {"anxcloud.lbaas.backend": {"load_balancer": "lb1", "name": "http.web", "state": "absent"}},
        dict({"anxcloud.lbaas.backend": {"load_balancer": "lb1", "name": "http.web", "state": "absent",
                                         "owner": "web", "tag_prefix": "xanxlb"}}, check_mode=True),
        {"anxcloud.lbaas.server": {"load_balancer": "lb1", "backend": "http.web", "name": "n1.http.web",
                                   "address": "127.0.0.3", "port": 18080}},
        dict(ip("xanxlb"), check_mode=True),   # the same owner name, the same description: not adopted
        ip("xanxlb"),
    ]
    both = [
        service(WEB),
        service(XWEB, name_suffix="b"),
        dict({"anxcloud.lbaas.gc": {"keep": ["web"], "tag_prefix": "xanxlb"}}, check_mode=True),
        {"anxcloud.lbaas.gc": {"keep": ["web"], "tag_prefix": "xanxlb"}},
        dict({"anxcloud.lbaas.gc": {"remove": ["web"]}}, check_mode=True),
        {"anxcloud.lbaas.gc": {"remove": ["web"]}},
    ]
    run = module_tasks(module, [service(WEB), ip("anxlb")])
    assert not run.failed(0) and not run.failed(1), run
    their_address = run[1]["addresses"][0]["address"]
    theirs = carrying(engine, "anxlb-svc=web")
    assert sorted(o["name"] for o in theirs.values()) == sorted(
        ["http.web", "http.web", "n1.http.web", "v4.http.web", their_address])
    vip = [i for i, o in theirs.items() if o["_kind"] == "bind"][0]
    frontend = [i for i, o in theirs.items() if o["_kind"] == "frontend"][0]
    engine.reset_requests()

    # The xanxlb team: the same names are taken (check mode and real: a failure before any write, naming
    # the owner tag found and name_suffix); with name_suffix its own objects. The per-object modules
    # refuse the other team's objects with and without owner.
    run = module_tasks(module, xanxlb)
    assert [run.failed(i) for i in range(10)] == [True, True, False, True, True, True, True, True, False, False], run
    assert run.writes(engine, 8) == 0 and run[8]["changed"] is True
    assert run[9]["addresses"][0]["address"] not in (their_address, None)
    for index in (0, 1):
        msg = run[index]["msg"]
        assert "frontend 'http.web' on load balancer lb1: its name is taken by frontend 'http.web' (%s) carrying " \
               "anxlb-svc=web" % frontend in msg, msg
        assert "backend 'http.web'" in msg and "name_suffix" in msg and "owner tag xanxlb-svc=web" in msg
        assert run.writes(engine, index) == 0
    assert run[2]["changed"] is True
    assert sorted(a["name"] for a in objects_of(run[2])) == ["http.web.b", "http.web.b", "n2.http.web.b", "v4.http.web.b"]
    assert "carries the owner tag anxlb-svc=web; refusing to change it" in run[3]["msg"]
    assert "set owner: web and tag_prefix: anxlb" in run[3]["msg"] and "another name" in run[3]["msg"]
    assert ("frontend 'http.web' (%s) carries the owner tag anxlb-svc=web, not xanxlb-svc=web; refusing to write a "
            "bind in it" % frontend) in run[4]["msg"]
    assert "carries the owner tag anxlb-svc=web; refusing to write a server in it" in run[7]["msg"]
    assert "refusing to delete it" in run[5]["msg"] and "anxlb-svc=web" in run[5]["msg"]
    assert "refusing to delete it" in run[6]["msg"] and "anxlb-svc=web" in run[6]["msg"]
    for index in (3, 4, 5, 6, 7):
        assert run.writes(engine, index) == 0, index
    assert writes_to(engine, theirs) == []
    assert carrying(engine, "anxlb-svc=web") == theirs, "the anxlb team's objects changed"
    mine = carrying(engine, "xanxlb-svc=web")
    assert len(mine) == 5 and not set(mine) & set(theirs)
    assert theirs[vip]["address"] == "127.0.10.40"

    # The anxlb team reconciles (a no-op) and then collects web; the xanxlb team's run again is a no-op;
    # gc of xanxlb with web in its live set keeps everything. Neither writes the other's objects.
    engine.reset_requests()
    run = module_tasks(module, both)
    assert not any(run.failed(i) for i in range(6)), run
    assert [run[i]["changed"] for i in range(4)] == [False, False, False, False]
    assert run.writes(engine, 0) == run.writes(engine, 1) == run.writes(engine, 3) == 0
    for index in (4, 5):
        assert sorted(r["id"] for r in run[index]["removed"] if r["type"] != "marker") == sorted(theirs)
    assert writes_to(engine, mine) == []
    assert carrying(engine, "xanxlb-svc=web") == mine, "the xanxlb team's objects changed"
    assert carrying(engine, "anxlb-svc=web") == {}


def test_gc_kept_counts_only_objects_carrying_the_owner_tag_exactly(engine, listings, module):
    """The substring listing for ``anxlb-svc=web`` also returns ``xanxlb-svc=web``'s and ``anxlb-svc=web2``'s
    objects; gc's ``kept`` counts, of either prefix, in check mode and real, equal the truth of the admin dump."""
    engine.set_options(tag_match="substring")
    web2 = dict(WEB, name="web2", addresses=["127.0.10.42"], ports=[{"name": "http", "port": 8082}],
                servers=[{"name": "n3", "address": "127.0.0.3"}])
    gc = {"keep": ["web", "web2"]}
    run = module_tasks(module, [service(WEB), ip("anxlb"), service(XWEB, name_suffix="b"), ip("xanxlb"), service(web2),
                                {"anxcloud.lbaas.ip_address": {"pool": [V4], "owner": "gone", "family": "v4"}}])
    assert not any(run.failed(i) for i in range(6)), run

    def truth(tag):
        return len([o for o in engine.dump()["objects"] if tag in o["_tags"]])

    def lenient(tag):   # what the listing returns under substring matching
        return len([o for o in engine.dump()["objects"] if any(tag in t for t in o["_tags"])])

    before = dict((p + "-svc=" + o, truth(p + "-svc=" + o)) for p in ("anxlb", "xanxlb") for o in ("web", "web2"))
    assert lenient("anxlb-svc=web") > before["anxlb-svc=web"] > 0   # the scenario is the lenient one
    engine.reset_requests()
    run = module_tasks(module, [dict({"anxcloud.lbaas.gc": gc}, check_mode=True), {"anxcloud.lbaas.gc": gc},
                                {"anxcloud.lbaas.gc": dict(gc, tag_prefix="xanxlb", keep=["web"])}])
    assert not any(run.failed(i) for i in range(3)), run
    for index in (0, 1):
        assert run[index]["kept"] == {"web": before["anxlb-svc=web"], "web2": before["anxlb-svc=web2"]}
        assert [r["owner"] for r in run[index]["removed"]] == ["gone"]
    assert run[2]["kept"] == {"web": before["xanxlb-svc=web"]}
    # nothing a kept owner's tag is on was written: the truth read back is what it was
    assert dict((tag, truth(tag)) for tag in before) == before
    # the cost: each resource the kept owners' listings return is read (GET) at most once per run
    listed = [o["identifier"] for o in engine.dump()["objects"] if any("anxlb-svc=web" in t for t in o["_tags"])]
    for index in (0, 1):
        gets = [e["path"].rsplit("/", 1)[-1] for e in run.requests(engine, index)
                if e["method"] == "GET" and e["path"].startswith("/api/core/v1/resource.json/")]
        assert max(gets.count(i) for i in listed) == 1, gets
