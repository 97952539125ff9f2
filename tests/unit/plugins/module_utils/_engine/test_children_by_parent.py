"""One account-wide child listing for a load balancer's parents, over real HTTP (_engine/_listings.py,
``children_by_parent``; _service/_observe.py, ``_children``): where the Engine lists whole objects and the listing is
short, a child kind is listed once for all parents instead of once per parent; a big account costs one first page more
and falls back to the per-parent listings; an Engine that ignores ``attributes=all`` sees no change at all."""
from urllib.parse import parse_qs

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._listings import children_by_parent, listed_objects
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._predicted import LbaasOverlay
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._desired import Desired
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._observe import ServiceObserver

from ..conftest import LB1, LB2, engine_log, reset_log

SERVERS = "/api/LBaaS/v1/server.json"
BINDS = "/api/LBaaS/v1/bind.json"


def make_tree(client, backends=3, servers=2, other=3):
    """``backends`` backends on lb1 with ``servers`` servers each, a frontend with two binds per backend, and a backend
    on lb2 with ``other`` servers: (lb1's backend listing entries, lb2's backend id)."""
    def backend(lb, name, count, n):
        ident = client.lbaas_create("backend", {"name": name, "mode": "tcp", "load_balancer": lb})["identifier"]
        for i in range(count):
            client.lbaas_create("server", {"name": "n%d" % i, "ip": "127.0.%d.%d" % (n, i + 1), "port": 8080,
                                           "check": "enabled", "backend": ident})
        frontend = client.lbaas_create("frontend", {"name": name, "mode": "tcp", "load_balancer": lb,
                                                    "default_backend": ident})["identifier"]
        for port in (80, 443):
            client.lbaas_create("bind", {"name": "v4-%d" % port, "address": "127.0.10.%d" % (n + 1),
                                         "port": port, "ssl": False, "frontend": frontend})
        return ident
    for b in range(backends):
        backend(LB1, "web%d" % b, servers, b)
    other_id = backend(LB2, "other", other, backends)
    return client.lbaas_list("backend", load_balancer=LB1), other_id


def sent(engine):
    """(method, path, filters, whether it asked attributes=all) of each request the Engine logged."""
    out = []
    for entry in engine_log(engine)["log"]:
        path, _sep, query = entry["path"].partition("?")
        params = parse_qs(query, keep_blank_values=True)
        out.append((entry["method"], path, (params.get("filters") or [None])[0], params.get("attributes") == ["all"]))
    return out


def per_parent(client, parents, kind="server", link="backend"):
    return dict((p["identifier"], client.lbaas_list(kind, **{link: p["identifier"]})) for p in parents)


def observer(client):
    return ServiceObserver(client, Desired(), "anxlb-svc=test", "anxlb")


def test_one_listing_answers_every_parents_children_and_other_parents_are_never_read(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    parents, other = make_tree(client)
    reset_log(engine)
    grouped = children_by_parent(client, KINDS["server"], KINDS["backend"], parents)
    assert sent(engine) == [("GET", SERVERS, "", True)]   # one listing, no parent filter
    expected = per_parent(client, parents)
    assert grouped == expected and [len(v) for v in grouped.values()] == [2, 2, 2]
    assert other not in grouped
    reset_log(engine)
    found = listed_objects(client, KINDS["server"], [e for p in parents for e in grouped[p["identifier"]]])
    assert sent(engine) == [] and len(found) == 6   # whole entries stand for their GETs; lb2's servers not read


def test_the_observation_lists_each_child_kind_once_for_all_parents(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    parents, _other = make_tree(client)
    frontends = client.lbaas_list("frontend", load_balancer=LB1)
    watcher = observer(client)
    reset_log(engine)
    servers = watcher._children("server", "backend", parents, set())
    binds = watcher._children("bind", "frontend", frontends, set())
    log = sent(engine)
    assert sorted((p, f) for _m, p, f, _a in log) == [(BINDS, ""), (SERVERS, "")]
    reset_log(engine)
    alone = observer(make_client(full_listings=False))   # the same parents' children, listed and read one by one
    assert servers == alone._children("server", "backend", parents, set())
    assert binds == alone._children("bind", "frontend", frontends, set())
    assert [len(found) for _p, found in binds] == [2, 2, 2]


def test_a_listing_longer_than_the_parents_costs_one_first_page_then_the_per_parent_listings(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client(page_size=2)
    parents, _other = make_tree(client)   # 9 servers in the account: 5 pages of 2, for 3 parents
    reset_log(engine)
    servers = observer(client)._children("server", "backend", parents, set())
    log = sent(engine)
    assert log[0] == ("GET", SERVERS, "", True)   # the first page only
    assert sorted(f for _m, _p, f, _a in log[1:]) == sorted("backend=" + p["identifier"] for p in parents)
    assert [[o["id"] for o in found] for _p, found in servers] == [
        [e["identifier"] for e in entries] for entries in per_parent(client, parents).values()]


def test_entries_without_the_parent_link_fall_back_to_the_per_parent_listings(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    parents, _other = make_tree(client)
    engine.set_faults({"listing_omits": [{"match": "n1", "field": "backend"}]})
    reset_log(engine)
    assert children_by_parent(client, KINDS["server"], KINDS["backend"], parents) is None
    assert sent(engine) == [("GET", SERVERS, "", True)] and client.full_listings.lacking == {"server"}
    reset_log(engine)
    servers = observer(client)._children("server", "backend", parents, set())   # as a listing lacking a key leaves it
    log = sent(engine)
    assert sorted(f for _m, p, f, _a in log if p == SERVERS) == sorted("backend=" + p["identifier"] for p in parents)
    assert len([p for _m, p, _f, _a in log if p.startswith(SERVERS + "/")]) == 6   # not asked whole: each read
    assert [[o["name"] for o in found] for _p, found in servers] == [["n0", "n1"]] * 3


def test_an_engine_that_ignores_the_parameter_sees_only_the_per_parent_listings(engine, make_client):
    client = make_client()   # the local Engine's default: attributes=all ignored
    parents, _other = make_tree(client)
    reset_log(engine)
    assert children_by_parent(client, KINDS["server"], KINDS["backend"], parents) is None
    assert sent(engine) == []   # parents listed as identifier and name: no account-wide listing tried
    servers = observer(client)._children("server", "backend", parents, set())
    assert sorted(f for _m, p, f, _a in sent(engine) if p == SERVERS) == sorted("backend=" + p["identifier"] for p in parents)
    assert [len(found) for _p, found in servers] == [2, 2, 2]


def test_one_parent_and_a_refusing_or_unwanted_engine_list_per_parent(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    parents, _other = make_tree(client)
    reset_log(engine)
    assert children_by_parent(client, KINDS["server"], KINDS["backend"], parents[:1]) is None
    off = make_client(full_listings=False)
    assert children_by_parent(off, KINDS["server"], KINDS["backend"], parents) is None
    assert sent(engine) == []
    engine.set_options(full_listings="refuse")
    refused = make_client()
    refused.lbaas_list("backend", load_balancer=LB1)
    assert refused.full_listings.refused
    reset_log(engine)
    assert children_by_parent(refused, KINDS["server"], KINDS["backend"], parents) is None and sent(engine) == []


def test_binds_outside_our_frontends_are_listed_once_for_all_of_them(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    make_tree(client)
    watcher = observer(client)
    watcher.listings[LB1] = {"frontend": client.lbaas_list("frontend", load_balancer=LB1)}
    reset_log(engine)
    binds = watcher._binds_outside({"id": LB1}, ours=set())
    assert sent(engine) == [("GET", BINDS, "", True)]
    assert len(binds) == 6 and set(b["port"] for b in binds) == {80, 443}


def test_check_mode_with_predictions_lists_per_parent_and_without_them_as_a_real_run(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    parents, _other = make_tree(client)
    nothing = LbaasOverlay({})
    nothing.attach(client, None)
    predicted = LbaasOverlay({"deleted": [{"id": parents[0]["identifier"], "kind": "backend"}]})
    predicted.attach(client, None)
    reset_log(engine)
    assert predicted.lbaas_list_within("server", 3) is None and sent(engine) == []
    assert [e["identifier"] for e in nothing.lbaas_list_within("server", 3)] == [
        e["identifier"] for e in client.lbaas_list("server")]


def test_a_listing_found_too_long_is_not_asked_again_in_the_run_for_as_few_parents(engine, make_client):
    """The first page said 5 pages: a second load balancer's 3 parents (a service on several) go straight to the
    per-parent listings, without that first page again; 5 parents or more would still try it (it may pay there)."""
    engine.set_options(full_listings="honour")
    client = make_client(page_size=2)
    parents, _other = make_tree(client)   # 9 servers in the account: 5 pages of 2, for 3 parents
    observer(client)._children("server", "backend", parents, set())
    assert client.full_listings.too_long("server", 3) and not client.full_listings.too_long("server", 5)
    reset_log(engine)
    servers = observer(client)._children("server", "backend", parents, set())
    assert sorted(f for _m, _p, f, _a in sent(engine)) == sorted("backend=" + p["identifier"] for p in parents)
    assert [[o["id"] for o in found] for _p, found in servers] == [
        [e["identifier"] for e in entries] for entries in per_parent(client, parents).values()]


def test_parents_declaring_more_children_than_their_pages_hold_list_per_parent_without_a_look(engine, make_client):
    """Declared children alone would fill more pages than there are parents (a service of 500 servers per backend):
    the account-wide listing cannot pay, so not even its first page is read."""
    engine.set_options(full_listings="honour")
    client = make_client(page_size=2)
    parents, _other = make_tree(client)   # 3 parents (their listing asked: the Engine takes the parameter)
    reset_log(engine)
    assert children_by_parent(client, KINDS["server"], KINDS["backend"], parents, expected=7) is None   # 4 pages of 2
    assert sent(engine) == []
    assert children_by_parent(client, KINDS["server"], KINDS["backend"], parents, expected=6) is None   # 5 pages
    assert [(m, p, f) for m, p, f, _a in sent(engine)] == [("GET", SERVERS, "")]   # 6 fit 3 pages: looked at
