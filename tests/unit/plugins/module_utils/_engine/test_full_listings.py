"""Full listings over real HTTP (_engine/_listings.py): LBaaS listings ask for ``attributes=all`` (go-anxsdk's
``ListFull``), an entry carrying what its kind's observation reads stands for its GET, and the client learns per run
what the Engine does with the parameter: honours it, ignores it (the local Engine's default), or refuses it."""
import threading
import time
from urllib.parse import parse_qs

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import ServerError, ValidationFailedError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._listings import listed_objects
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS

from ..conftest import LB1, engine_log, reset_log

BACKENDS = "/api/LBaaS/v1/backend.json"


def make_tree(client, servers=3):
    """A backend on lb1 with ``servers`` servers and a frontend with one bind; the backend's identifier."""
    backend = client.lbaas_create("backend", {"name": "web", "mode": "tcp", "load_balancer": LB1})["identifier"]
    for i in range(servers):
        client.lbaas_create("server", {"name": "n%d" % i, "ip": "127.0.0.%d" % (i + 1), "port": 8080, "check": "enabled",
                                       "backend": backend})
    frontend = client.lbaas_create("frontend", {"name": "web", "mode": "tcp", "load_balancer": LB1,
                                                "default_backend": backend})["identifier"]
    client.lbaas_create("bind", {"name": "v4", "address": "127.0.10.5", "port": 80, "ssl": False, "frontend": frontend})
    return backend


def sent(engine):
    """(method, path without query, whether it asked attributes=all) of each request the Engine logged."""
    out = []
    for entry in engine_log(engine)["log"]:
        path, _sep, query = entry["path"].partition("?")
        out.append((entry["method"], path, parse_qs(query).get("attributes") == ["all"], entry["status"]))
    return out


def test_an_honouring_engine_answers_whole_objects_that_stand_for_their_gets(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    backend = make_tree(client)
    reset_log(engine)
    servers = listed_objects(client, KINDS["server"], client.lbaas_list("server", backend=backend))
    assert [(m, p, asked) for m, p, asked, _s in sent(engine)] == [("GET", "/api/LBaaS/v1/server.json", True)]
    assert servers == [client.lbaas_get("server", s["identifier"]) for s in servers] and len(servers) == 3
    assert client.full_listings.lacking == set()


def test_an_engine_that_ignores_it_costs_nothing_and_is_asked_once_per_kind(engine, make_client):
    client = make_client()
    backend = make_tree(client)
    reset_log(engine)
    first = listed_objects(client, KINDS["server"], client.lbaas_list("server", backend=backend))
    assert [(m, asked) for m, _p, asked, _s in sent(engine)] == [("GET", True)] + [("GET", False)] * 3   # 3 GETs
    assert first == [client.lbaas_get("server", s["identifier"]) for s in first]
    assert client.full_listings.lacking == {"server"}
    reset_log(engine)
    client.lbaas_list("server", backend=backend)   # the kind is known not to be listed whole: not asked again
    client.lbaas_list("backend", load_balancer=LB1)   # another kind still is
    assert [(p, asked) for _m, p, asked, _s in sent(engine)] == [("/api/LBaaS/v1/server.json", False), (BACKENDS, True)]


def test_an_entry_lacking_a_key_its_kind_reads_is_read_by_its_get_alone(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    backend = make_tree(client)
    engine.set_faults({"listing_omits": [{"match": "n1", "field": "port"}]})
    reset_log(engine)
    servers = listed_objects(client, KINDS["server"], client.lbaas_list("server", backend=backend))
    log = sent(engine)
    n1 = [s["identifier"] for s in servers if s["name"] == "n1"]
    assert [(m, p) for m, p, _a, _s in log] == [("GET", "/api/LBaaS/v1/server.json"), ("GET", "/api/LBaaS/v1/server.json/" + n1[0])]
    assert [s["name"] for s in servers] == ["n0", "n1", "n2"] and servers[1]["port"] == 8080   # in order, read whole
    assert client.full_listings.lacking == {"server"}


def test_a_refusing_engine_costs_one_listing_per_run_however_many_go_out_at_once(engine, make_client):
    engine.set_options(full_listings="refuse")
    client = make_client(max_workers=8)
    backend = make_tree(client)
    reset_log(engine)
    kinds = [("server", {"backend": backend}), ("backend", {"load_balancer": LB1}), ("frontend", {"load_balancer": LB1})] * 3
    found = client.map(lambda job: client.lbaas_list(job[0], **job[1]), kinds)
    assert [len(f) for f in found] == [3, 1, 1] * 3
    log = sent(engine)
    assert [s for _m, _p, asked, s in log if asked] == [400]   # the first one asked alone, and was refused
    assert len(log) == len(kinds) + 1 and client.full_listings.refused
    reset_log(engine)
    client.lbaas_list("loadbalancer")
    assert [asked for _m, _p, asked, _s in sent(engine)] == [False]   # never asked again in the run


def test_turned_off_it_never_asks_and_reads_every_object(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client(full_listings=False)
    backend = make_tree(client)
    reset_log(engine)
    servers = listed_objects(client, KINDS["server"], client.lbaas_list("server", backend=backend))
    assert [(m, asked) for m, _p, asked, _s in sent(engine)] == [("GET", False)] + [("GET", False)] * 3
    assert len(servers) == 3


def test_identifiers_known_otherwise_are_read_and_say_nothing_about_listings(engine, make_client):
    engine.set_options(full_listings="honour")
    client = make_client()
    backend = make_tree(client, servers=1)
    reset_log(engine)
    assert [o["identifier"] for o in listed_objects(client, KINDS["backend"], [backend])] == [backend]
    assert [m for m, _p, _a, _s in sent(engine)] == ["GET"] and client.full_listings.lacking == set()


# ---- answers the local Engine does not give: a stub on loopback -------------------------------------
def page(items):
    return 200, {"state": "success", "messages": [], "data": {"page": 1, "total_pages": 1, "total_items": len(items),
                                                              "limit": 100, "data": items}}


REFUSALS = [(400, {"attributes": "Unknown parameter."}, "bad"), (422, {}, "Unknown query parameter attributes")]


@pytest.mark.parametrize("status, validation, message", REFUSALS)
def test_a_refusal_is_an_answer_naming_the_parameter(stub, status, validation, message):
    def respond(req):
        if "attributes" in req["query"]:
            return status, {"error": {"code": status, "message": message, "validation": validation}}
        return page([{"identifier": "a" * 32, "name": "x"}])
    stub.respond = respond
    client = stub.client()
    assert [i["name"] for i in client.lbaas_list("backend")] == ["x"]
    assert [("attributes" in r["query"]) for r in stub.seen] == [True, False] and client.full_listings.refused


def test_an_error_not_naming_the_parameter_is_raised_and_the_next_listing_asks_again(stub):
    answers = iter([(400, {"error": {"code": 400, "message": "filters are malformed", "validation": {"filters": "x"}}}),
                    (503, {"error": {"code": 503, "message": "down", "validation": {}}})])
    stub.respond = lambda req: next(answers, page([]))
    client = stub.client(retries=0)
    with pytest.raises(ValidationFailedError):
        client.lbaas_list("backend")
    with pytest.raises(ServerError):
        client.lbaas_list("backend")
    assert client.lbaas_list("backend") == []
    assert all("attributes" in r["query"] for r in stub.seen) and not client.full_listings.refused


def test_the_first_asking_listing_goes_alone_until_its_answer_is_known(stub):
    times, lock = {}, threading.Lock()

    def respond(req):
        began = time.monotonic()
        time.sleep(0.3 if req["query"]["filters"] == ["load_balancer=first"] else 0.2)
        with lock:
            times[req["query"]["filters"][0]] = (began, time.monotonic())
        return page([])
    stub.respond = respond
    client = stub.client(max_workers=8)
    first = threading.Thread(target=client.lbaas_list, args=("backend",), kwargs={"load_balancer": "first"})
    first.start()
    time.sleep(0.1)   # the first listing is in flight: the others wait for its answer
    client.map(lambda i: client.lbaas_list("frontend", load_balancer="lb%d" % i), range(6))
    first.join()
    assert len(stub.seen) == 7 and all("attributes" in r["query"] for r in stub.seen)
    answered = times.pop("load_balancer=first")[1]
    assert min(began for began, _end in times.values()) >= answered - 0.01   # none went out before its answer
    assert max(began for began, _end in times.values()) < min(end for _began, end in times.values())   # then together


def test_a_switched_kind_listed_whole_stands_for_its_gets_under_the_engines_key(engine, make_client):
    """A backend's ``enabled`` is the Engine's ``enable`` (``Kind.engine_key``): a whole entry carries ``enable``,
    and that is what it is checked for (checking for ``enabled`` would read every backend by its GET)."""
    engine.set_options(full_listings="honour")
    client = make_client()
    make_tree(client, servers=0)
    assert "enable" in KINDS["backend"].answer_keys and "enabled" not in KINDS["backend"].answer_keys
    reset_log(engine)
    backends = listed_objects(client, KINDS["backend"], client.lbaas_list("backend", load_balancer=LB1))
    assert [(m, p) for m, p, _asked, _s in sent(engine)] == [("GET", BACKENDS)]
    assert [b["enable"] for b in backends] == [True] and client.full_listings.lacking == set()
