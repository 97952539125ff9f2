"""Contract: the admin API under /_local/ (README.md)."""
import time

import requests

from .helpers import LB1, backend, error_of, lbaas, ok, tag_path


def admin(engine, method, path, **kw):
    return requests.request(method, engine.url + "/_local/" + path, timeout=5, **kw)


def test_the_request_log_counts_every_engine_request(engine):
    backend(engine)
    engine.api("GET", lbaas("loadbalancer"), params={"filters": "", "page": 1, "limit": 10})
    requests.get(engine.url + lbaas("loadbalancer", LB1), timeout=5)   # no token
    engine.api("GET", lbaas("backend", "0" * 32))
    engine.api("POST", tag_path(LB1, "a%3Db"), json="")
    log = engine.requests()
    assert log["total"] == 5 and log["by_method"] == {"POST": 2, "GET": 3}
    assert [dict((k, e[k]) for k in ("method", "path", "status")) for e in log["log"]] == [
        {"method": "POST", "path": lbaas("backend"), "status": 200},
        {"method": "GET", "path": lbaas("loadbalancer") + "?filters=&page=1&limit=10", "status": 200},
        {"method": "GET", "path": lbaas("loadbalancer", LB1), "status": 401},
        {"method": "GET", "path": lbaas("backend", "0" * 32), "status": 404},
        {"method": "POST", "path": tag_path(LB1, "a%3Db"), "status": 200},   # as sent, not decoded
    ]
    assert engine.mutating_requests() == 2


def test_the_request_log_has_times_and_the_json_bodies_of_posts_and_puts(engine):
    """Tests assert exact PUT bodies (the generic client's, gac:pkg/apis/lbaas/v1/helper.go requestBody)
    and benchmarks compute round trips in a row from start and end."""
    began = time.time()
    b = backend(engine)
    put = {"name": "web", "load_balancer": LB1, "mode": "http", "state": "0"}
    ok(engine.api("PUT", lbaas("backend", b["identifier"]), json=put))
    engine.api("GET", lbaas("backend", b["identifier"]))
    engine.api("POST", tag_path(LB1, "t"), json="")
    engine.api("POST", lbaas("backend"), data=b"{not json", headers={"Content-Type": "application/json"})
    ended = time.time()
    log = engine.requests()["log"]
    assert [e["body"] for e in log] == [{"name": "web", "mode": "tcp", "load_balancer": LB1}, put, None, "", None]
    assert all(began <= e["start"] <= e["end"] <= ended for e in log)
    assert all(a["end"] <= b["start"] for a, b in zip(log, log[1:]))   # one after the other: no overlap


def test_admin_requests_are_not_logged_and_the_log_resets(engine):
    backend(engine)
    engine.dump()
    engine.admin("GET", "faults")
    assert engine.requests()["total"] == 1
    assert engine.reset_requests() == {}
    assert engine.requests() == {"total": 0, "by_method": {}, "log": []}


def test_reset_wipes_reseeds_and_clears_log_and_faults(engine):
    b = backend(engine)
    ok(engine.api("POST", tag_path(LB1, "t"), json=""))
    ok(engine.api("DELETE", lbaas("loadbalancer", "0a11ba1a000000000000000000000002")))
    engine.set_faults({"latency": 0.01})
    assert engine.reset() == {}
    error_of(engine.api("GET", lbaas("backend", b["identifier"])), 404)
    assert ok(engine.api("GET", lbaas("loadbalancer")))["data"]["total_items"] == 2
    assert ok(engine.api("GET", "/api/core/v1/resource.json/" + LB1))["tags"] == []
    assert engine.admin("GET", "faults")["latency"] == 0
    assert engine.requests()["total"] == 3


def test_dump_shows_every_object_with_kind_tags_and_bookkeeping(engine):
    b = backend(engine)
    ok(engine.api("POST", tag_path(b["identifier"], "t"), json=""))
    objects = engine.dump()["objects"]
    mine = [o for o in objects if o["identifier"] == b["identifier"]][0]
    assert mine["_kind"] == "backend" and mine["_tags"] == ["t"] and mine["_phase"]["outcome"] == "ok"
    assert {o["_kind"] for o in objects} == {"loadbalancer", "backend", "vlan", "prefix", "address"}


def test_admin_errors_use_the_engine_error_body(engine):
    error_of(admin(engine, "GET", "nothing"), 404)
    error_of(admin(engine, "DELETE", "requests"), 404)
    error_of(admin(engine, "PUT", "faults", data=b"{"), 400)


def test_options_change_at_run_time_until_the_next_reset(engine):
    assert engine.options() == {"put": "replace", "deploy_on": "state0", "tag_match": "exact",
                                "tag_names": "strict", "tag_delete": "detach", "full_listings": "ignore",
                                "put_enable": "reset"}
    assert engine.set_options(tag_match="prefix")["tag_match"] == "prefix"
    assert engine.options()["put"] == "replace"   # the others stay
    for bad, text in (({"tag_match": "fuzzy"}, "tag_match must be one of"), ({"colour": "x"}, "unknown option"),
                      (["put"], "mapping")):
        assert text in error_of(admin(engine, "PUT", "options", json=bad), 422)["message"]
    assert engine.options()["tag_match"] == "prefix"   # a refused change changes nothing
    engine.reset()
    assert engine.options()["tag_match"] == "exact"


def test_dump_lists_the_tag_entities(engine):
    ok(engine.api("POST", tag_path(LB1, "t"), json=""))
    tags = dict((t["name"], t) for t in engine.dump()["tags"])
    assert tags["t"]["_carriers"] == 1 and tags["anxlb-pool=demo"]["_carriers"] == 2   # both seeded prefixes
