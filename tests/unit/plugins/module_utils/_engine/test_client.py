"""The Engine client over real HTTP on loopback: what it sends, the request counter, concurrency, and
that the API token never leaks. (Paging: test_client_paging.py; retries: test_retry.py;
errors: test_errors.py; the typed helpers: test_client_helpers.py.)"""
import json
import threading

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._client import EngineClient
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._in_flight import InFlightLimit
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import (
    AccessDeniedError, EngineConnectionError, EngineError, NotFoundError, RateLimitedError, UnexpectedResponseError,
    ValidationFailedError)

from ..conftest import LB1, closed_port, engine_log, new_client, reset_log

SECRET = "s3cr3t-token-value-0123456789"


# ---- what goes over the wire -------------------------------------------------------------------
def test_headers_and_bodies_per_method(stub):
    stub.respond = lambda req: (200, {"identifier": "f" * 32})
    client = stub.client(token="T0K")
    client.lbaas_get("backend", "a" * 32)
    client.lbaas_create("frontend", {"name": "f", "load_balancer": {"identifier": LB1, "name": "lb1"}})
    client.lbaas_update("frontend", "f" * 32, {"name": "f", "mode": "tcp", "default_backend": "b" * 32,
                                               "load_balancer": {"identifier": LB1, "name": "lb1"},
                                               "state": {"id": "3", "title": "Deployed", "type": 1}})
    client.lbaas_delete("frontend", "f" * 32)
    client.tag_add("f" * 32, "anxlb-svc=web")
    get, post, put, delete, tag = stub.seen
    for req in stub.seen:
        assert req["headers"]["Authorization"] == "Token T0K"
        assert req["headers"]["Accept"] == "application/json"
        assert req["headers"]["User-Agent"].startswith("anxcloud.lbaas/0.1.0 (")
    assert "Content-Type" not in get["headers"] and get["body"] == b""
    for req in (post, put, delete, tag):
        assert req["headers"]["Content-Type"] == "application/json"
    assert json.loads(post["body"]) == {"name": "f", "load_balancer": LB1}   # links as identifier strings
    # the whole object, links as identifiers, state "0" (go-anxcloud pkg/apis/lbaas/v1/helper.go)
    assert json.loads(put["body"]) == {"name": "f", "mode": "tcp", "default_backend": "b" * 32, "load_balancer": LB1,
                                       "state": "0"}
    assert delete["body"] == b""
    assert tag["body"] == b'""'   # JSON "" (JSON null gets a 400 from the Engine)
    assert [r["method"] + " " + r["path"] for r in stub.seen] == [
        "GET /api/LBaaS/v1/backend.json/" + "a" * 32,
        "POST /api/LBaaS/v1/frontend.json",
        "PUT /api/LBaaS/v1/frontend.json/" + "f" * 32,
        "DELETE /api/LBaaS/v1/frontend.json/" + "f" * 32,
        "POST /api/core/v1/resource.json/%s/tags/anxlb-svc=web" % ("f" * 32),
    ]


def test_a_load_balancer_update_carries_no_state_but_its_redeploy_does(stub):
    """go-anxcloud's LoadBalancer request body embeds two fields claiming "state", so Go's encoder sends neither
    (pkg/apis/lbaas/v1/loadbalancer_genclient.go, loadbalancer_types.go; Terraform's anxcloud_lbaas_loadbalancer
    updates through it). A redeploy still asks with state "0", the one known way to."""
    stub.respond = lambda req: (200, {"identifier": LB1})
    client = stub.client()
    read = {"identifier": LB1, "name": "lb1", "ip_address": "192.0.2.10", "state": {"id": "2", "type": 0}}
    client.lbaas_update("loadbalancer", LB1, read)
    client.lbaas_redeploy("loadbalancer", LB1, read)
    update, redeploy = (json.loads(r["body"]) for r in stub.seen)
    assert update == {"identifier": LB1, "name": "lb1", "ip_address": "192.0.2.10"}
    assert redeploy == dict(update, state="0")


def test_the_base_url_path_prefix_is_kept_and_its_trailing_slash_dropped(stub):
    stub.respond = lambda req: (200, [])
    client = new_client(stub.url + "/engine/proxy/")
    assert client.base_url == stub.url + "/engine/proxy"
    client.lbaas_list("loadbalancer")
    assert stub.seen[0]["path"] == "/engine/proxy/api/LBaaS/v1/loadbalancer.json?attributes=all&limit=100&page=1"


def test_no_token_no_authorization_header(stub):
    stub.respond = lambda req: (200, {})
    new_client(stub.url, token=None).resource_get("a" * 32)
    assert "Authorization" not in stub.seen[0]["headers"]


def test_a_netrc_entry_does_not_replace_the_token(stub, tmp_path, monkeypatch):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password other\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    stub.respond = lambda req: (200, {})
    stub.client(token="T0K").resource_get("a" * 32)
    assert stub.seen[0]["headers"]["Authorization"] == "Token T0K"


def test_empty_and_non_json_success_bodies(stub):
    stub.respond = lambda req: (200, b"")
    assert stub.client().lbaas_delete("backend", "a" * 32) is True
    assert stub.client().request("GET", "/api/x.json") is None
    stub.respond = lambda req: (200, "<html>portal</html>", {"Content-Type": "text/html"})
    with pytest.raises(UnexpectedResponseError) as err:
        stub.client().lbaas_get("backend", "a" * 32)
    assert "not JSON (Content-Type: text/html)" in str(err.value) and err.value.status == 200


def test_per_request_timeout_is_used(stub):
    client = stub.client(timeout=7)
    assert client.timeout == 7
    assert new_client(stub.url, timeout=0).timeout is None


# ---- the request counter -----------------------------------------------------------------------
def test_the_counter_matches_the_engines_log(engine, make_client):
    client = make_client(page_size=1)
    reset_log(engine)
    client.lbaas_list("loadbalancer")                               # 2 GETs (total_pages known)
    backend = client.lbaas_create("backend", {"name": "c", "mode": "tcp", "load_balancer": LB1})
    client.lbaas_update("backend", backend["identifier"], dict(backend, mode="http"))
    client.tag_add(backend["identifier"], "anxlb-svc=c")
    client.lbaas_delete("backend", backend["identifier"])
    client.lbaas_delete("backend", backend["identifier"])            # 404: already gone
    counts = client.request_counts
    assert counts == {"total": 7, "by_method": {"GET": 2, "POST": 2, "PUT": 1, "DELETE": 2}}
    log = engine_log(engine, total=7)
    assert (log["total"], log["by_method"]) == (counts["total"], counts["by_method"])
    client.reset_counts()
    assert client.request_counts == {"total": 0, "by_method": {}}


def test_the_counter_is_exact_under_concurrency(engine, make_client):
    client = make_client(max_workers=8)
    reset_log(engine)
    engine.set_faults({"script": [{"method": "GET", "status": 503, "count": 5}], "latency": 0.005})
    client.map(lambda _i: client.lbaas_get("loadbalancer", LB1), range(40))
    assert client.request_counts == {"total": 45, "by_method": {"GET": 45}}   # 40 + 5 retries
    log = engine_log(engine, total=45)
    assert log["total"] == 45 and log["by_method"] == {"GET": 45}


# ---- concurrency -------------------------------------------------------------------------------
def make_backends(client, n):
    return [client.lbaas_create("backend", {"name": "b%02d" % i, "mode": "tcp", "load_balancer": LB1})["identifier"]
            for i in range(n)]


def test_get_many_keeps_order(engine, make_client):
    client = make_client(max_workers=4)
    ids = make_backends(client, 12)
    engine.set_faults({"latency": {"GET": 0.01}})
    client.reset_counts()
    objs = client.lbaas_get_many("backend", list(reversed(ids)))
    assert [o["identifier"] for o in objs] == list(reversed(ids))
    assert [o["name"] for o in objs] == ["b%02d" % i for i in reversed(range(12))]
    assert client.request_counts == {"total": 12, "by_method": {"GET": 12}}


class Peak:
    def __init__(self):
        self.active = self.peak = 0
        self.lock = threading.Lock()

    def __call__(self, fn):
        def measured(item):
            with self.lock:
                self.active += 1
                self.peak = max(self.peak, self.active)
            try:
                return fn(item)
            finally:
                with self.lock:
                    self.active -= 1
        return measured


def test_the_pool_is_bounded_with_real_requests(engine, make_client):
    client = make_client(max_workers=3)
    engine.set_faults({"latency": {"GET": 0.02}})
    peak = Peak()
    results = client.map(peak(lambda i: (i, client.lbaas_get("loadbalancer", LB1)["name"])), range(10))
    assert results == [(i, "lb1") for i in range(10)]
    assert peak.peak == 3


def test_the_pool_is_bounded_by_max_workers_default():
    client = EngineClient(api_url="http://127.0.0.1:9", token="t")
    peak = Peak()
    done = threading.Event()
    assert client.map(peak(lambda i: done.wait(0.01) or i * 2), range(30)) == [i * 2 for i in range(30)]
    assert peak.peak == 16 == client.in_flight_limit


def in_flight_at_the_engine(entries):
    """The most requests the Engine's log shows in flight at one moment."""
    # an answer that ends when the next request starts sorts first (-1 < 1): the two did not overlap
    moments = sorted([(e["start"], 1) for e in entries] + [(e["end"], -1) for e in entries])
    now = peak = 0
    for _at, step in moments:
        now += step
        peak = max(peak, now)
    return peak


def test_each_429_halves_the_requests_in_flight_for_the_rest_of_the_client(engine, make_client):
    client = make_client(max_workers=8)
    # 250 ms per answer, so that the requests a bound lets out together overlap at the Engine even on a busy machine
    # (with 100 ms it failed once here, in a pytest -n 2 run alongside integration tests; it passed the rerun)
    engine.set_faults({"latency": {"GET": 0.25}})

    def get(_item):
        return client.lbaas_get("loadbalancer", LB1)["name"]

    assert client.map(get, range(16)) == ["lb1"] * 16
    # Within the bound, and more than the halved bound below lets out: the peak the Engine saw is not exactly 8 on a
    # loaded machine (7 in a fresh-clone make test with two workers: one thread started after another's answer)
    assert 2 < in_flight_at_the_engine(engine_log(engine)["log"]) <= 8 == client.in_flight_limit
    # two throttled answers, each retried after the Engine's Retry-After of 0 s
    engine.set_faults({"latency": {"GET": 0.25}, "retry_after": 0,
                       "script": [{"method": "GET", "path": "/api/", "status": 429, "count": 2}]})
    assert get(0) == "lb1" and client.in_flight_limit == 2
    reset_log(engine)
    assert client.map(get, range(16)) == ["lb1"] * 16
    assert 1 <= in_flight_at_the_engine(engine_log(engine)["log"]) <= 2


def test_the_bound_never_falls_below_one():
    limit = InFlightLimit(2)
    for _time in range(3):
        limit.halve()
    assert limit.limit == 1
    with limit:   # one request still goes out
        pass


def test_a_map_inside_a_mapped_function_stays_within_the_bound():
    client = EngineClient(api_url="http://127.0.0.1:9", token="t", max_workers=4)
    peak = Peak()
    leaf = peak(lambda j: threading.Event().wait(0.005) or j)
    assert client.map(lambda i: client.map(leaf, range(i, i + 3)), range(6)) == [
        [i, i + 1, i + 2] for i in range(6)]
    assert peak.peak <= 4


def test_map_raises_the_first_error_in_order_and_cancels_the_rest():
    client = EngineClient(api_url="http://127.0.0.1:9", token="t", max_workers=2)
    started = []

    def work(i):
        started.append(i)
        threading.Event().wait(0.01)
        if i in (1, 3):
            raise NotFoundError("item %d" % i, status=404)
        return i

    with pytest.raises(NotFoundError) as err:
        client.map(work, range(50))
    assert err.value.message == "item 1"
    assert len(started) < 50


def test_map_of_one_or_none_runs_inline():
    client = EngineClient(api_url="http://127.0.0.1:9", token="t")
    assert client.map(lambda i: threading.current_thread().name, ["x"]) == [threading.current_thread().name]
    assert client.map(lambda i: i, []) == []


# ---- the token never leaks ---------------------------------------------------------------------
def leaks(err):
    return SECRET in str(err) + repr(err) + json.dumps(err.to_dict()) + repr(err.args)


def test_the_token_is_not_in_errors_from_the_engine(engine):
    client = new_client(engine.url, token=SECRET)
    for call in (lambda: client.lbaas_list("loadbalancer"), lambda: client.lbaas_get("backend", "x"),
                 lambda: client.tag_add(LB1, "t")):
        with pytest.raises(AccessDeniedError) as err:
            call()
        assert err.value.status == 403 and not leaks(err.value)
    engine.set_faults({"errors": {"*": {"429": 1.0}}})
    with pytest.raises(RateLimitedError) as err:
        client.lbaas_get("backend", "x")
    assert not leaks(err.value)


def test_the_token_is_masked_when_an_answer_echoes_it(stub):
    def respond(req):
        token = req["headers"]["Authorization"]
        if req["method"] == "GET":
            return 422, {"error": {"code": 422, "message": "bad %s" % token, "validation": {"auth": token}}}
        return 302, b"", {"Location": "http://127.0.0.1:1/?t=" + SECRET}
    stub.respond = respond
    client = stub.client(token=SECRET)
    with pytest.raises(ValidationFailedError) as err:
        client.lbaas_get("backend", "a" * 32)
    assert not leaks(err.value) and "bad Token ********" in str(err.value)
    with pytest.raises(UnexpectedResponseError) as err:
        client.lbaas_create("backend", {"name": "x"})
    assert not leaks(err.value)
    assert all(SECRET not in req["path"] for req in stub.seen)   # never in a URL


def test_the_token_is_not_in_transport_errors(engine, stub):
    engine.set_faults({"script": [{"method": "GET", "status": "drop", "count": 9}]})
    for client in (new_client(engine.url, token=SECRET, retries=0),
                   new_client("http://127.0.0.1:%d" % closed_port(), token=SECRET, retries=0),
                   new_client(stub.url.replace("http:", "https:"), token=SECRET, retries=0)):
        with pytest.raises(EngineConnectionError) as err:
            client.lbaas_list("loadbalancer")
        assert not leaks(err.value)


def test_the_token_is_not_in_the_user_agent_or_any_repr():
    client = EngineClient(api_url="http://127.0.0.1:9", token=SECRET)
    assert SECRET not in client.session.headers["User-Agent"]
    assert SECRET not in repr(client) + str(client) + repr(client.session.auth) + repr(client.policy)
    assert SECRET not in repr(client.session.headers)   # the header is added per request by the auth object
    with pytest.raises(EngineError) as err:
        EngineClient(api_url="not a url", token=SECRET)
    assert not leaks(err.value)


# ---- tag writes: one at a time, reads meanwhile; 422 only counts when read back ----------------
def test_tag_writes_are_serialised_while_other_requests_run(stub):
    tags_in_flight, gets_in_flight = Peak(), Peak()
    overlapped = []

    def respond(req):
        if "/tags/" in req["route"]:
            with tags_in_flight.lock:
                tags_in_flight.active += 1
                tags_in_flight.peak = max(tags_in_flight.peak, tags_in_flight.active)
            threading.Event().wait(0.05)
            with tags_in_flight.lock:
                tags_in_flight.active -= 1
            return 200, []
        with tags_in_flight.lock:
            overlapped.append(tags_in_flight.active)
        threading.Event().wait(0.01)
        return 200, {"identifier": "x"}
    stub.respond = respond
    client = stub.client(max_workers=8)
    jobs = [("tag", i) for i in range(4)] + [("get", i) for i in range(12)]

    def run(job):
        kind, i = job
        if kind == "tag":
            return client.tag_add("%032x" % i, "anxlb-svc=web")
        return client.lbaas_get("backend", "%032x" % i)["identifier"]
    assert client.map(run, jobs) == [True] * 4 + ["x"] * 12
    assert tags_in_flight.peak == 1                 # the ENGSUP-5902 lock: one tag write at a time
    assert any(n == 1 for n in overlapped)         # reads went on while a tag write was in flight


def test_a_422_the_read_back_does_not_explain_is_raised(stub):
    # The Engine refuses a name (e.g. outside its character set) with 422: that must not read as "already tagged".
    def respond(req):
        if req["method"] == "POST":
            return 422, {"error": {"code": 422, "message": "Invalid tag name", "validation": {"name": "Bad."}}}
        return 200, {"identifier": "a" * 32, "tags": [{"name": "anxlb-svc=other", "identifier": "t"}]}
    stub.respond = respond
    client = stub.client()
    with pytest.raises(ValidationFailedError) as err:
        client.tag_add("a" * 32, "anxlb-svc=web")
    assert err.value.status == 422 and "Invalid tag name" in str(err.value)
    assert [r["method"] for r in stub.seen] == ["POST", "GET"]


def test_tag_entities_are_listed_to_the_empty_page_and_deleted_as_go_anxcloud_does(stub):
    entities = [{"name": "anxlb-lease=a@b:1@%d" % i, "identifier": "%032x" % i} for i in range(3)]

    def respond(req):
        if req["method"] == "GET" and req["route"] == "/api/core/v1/tags.json":
            page, limit = int(req["query"]["page"][0]), int(req["query"]["limit"][0])
            return 200, {"data": entities[(page - 1) * limit:page * limit]}
        return 200, {}
    stub.respond = respond
    client = stub.client(page_size=2)
    assert client.tag_entities("anxlb-lease=") == entities
    assert [r["query"]["page"] for r in stub.seen] == [["1"], ["2"], ["3"]]
    assert stub.seen[0]["query"]["query"] == ["anxlb-lease="]
    assert client.tag_entity_delete("%032x" % 1, "svc1") is True
    assert stub.seen[-1]["method"] == "DELETE" and stub.seen[-1]["query"] == {"service_identifier": ["svc1"]}
