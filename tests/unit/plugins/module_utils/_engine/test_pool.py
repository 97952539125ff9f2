"""The client's one shared pool: nested maps run concurrently, stay within the bound, never deadlock."""
import threading
import time

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._client import EngineClient
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import NotFoundError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._pool import SharedPool

from ..conftest import LB1, engine_log, reset_log


class Peak:
    def __init__(self):
        self.active = self.peak = 0
        self.lock = threading.Lock()
        self.threads = set()

    def __call__(self, fn):
        def measured(item):
            with self.lock:
                self.active += 1
                self.peak = max(self.peak, self.active)
                self.threads.add(threading.current_thread().name)
            try:
                return fn(item)
            finally:
                with self.lock:
                    self.active -= 1
        return measured


def bounded(fn, seconds=60):
    """Runs ``fn`` in a thread and fails (instead of hanging the suite) if it does not end in time."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:   # handed to the test
            out["error"] = exc
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "deadlock: the nested maps did not end within %ds" % seconds
    if "error" in out:
        raise out["error"]
    return out["value"]


def three_levels(pool_map, fan, leaf):
    """map over ``fan`` items, each a map over ``fan``, each a map over ``fan`` leaves: depth 3."""
    return pool_map(lambda a: pool_map(lambda b: pool_map(lambda c: leaf((a, b, c)), range(fan)), range(fan)),
                    range(fan))


def expected(fan):
    return [[[(a, b, c) for c in range(fan)] for b in range(fan)] for a in range(fan)]


@pytest.mark.parametrize("bound", [1, 2, 3, 8])
def test_nesting_depth_3_never_deadlocks_and_stays_within_the_bound(bound):
    client = EngineClient(api_url="http://127.0.0.1:9", token="t", max_workers=bound)
    peak = Peak()
    leaf = peak(lambda key: threading.Event().wait(0.002) or key)
    for _round in range(3):
        assert bounded(lambda: three_levels(client.map, 4, leaf)) == expected(4)
    assert peak.peak <= bound
    # the pool's threads (one less than the bound: the caller works too), no new threads per map
    assert len([t for t in peak.threads if t.startswith("anxcloud-engine")]) <= bound - 1


def test_nested_maps_run_concurrently_not_one_by_one():
    # 8 leaves of 0.2 s at depth 3: one by one 1.6 s; with 4 at once 0.4 s (a serial fallback for
    # nested maps would take 1.6 s whatever the bound).
    client = EngineClient(api_url="http://127.0.0.1:9", token="t", max_workers=4)
    peak = Peak()
    leaf = peak(lambda key: threading.Event().wait(0.2) or key)
    started = time.monotonic()
    assert bounded(lambda: three_levels(client.map, 2, leaf)) == expected(2)
    elapsed = time.monotonic() - started
    assert peak.peak == 4
    assert elapsed < 1.2, elapsed


def test_an_error_deep_in_the_nesting_is_raised_once_without_deadlock():
    client = EngineClient(api_url="http://127.0.0.1:9", token="t", max_workers=3)
    ran = []

    def leaf(key):
        ran.append(key)
        threading.Event().wait(0.002)
        if key == (1, 0, 2):
            raise NotFoundError("leaf %r" % (key,), status=404)
        return key
    with pytest.raises(NotFoundError) as err:
        bounded(lambda: three_levels(client.map, 4, leaf))
    assert err.value.message == "leaf (1, 0, 2)"
    assert len(ran) < 64                                     # items not started were dropped
    assert bounded(lambda: three_levels(client.map, 2, lambda k: k)) == expected(2)   # the pool still works


def test_the_pool_keeps_working_after_close():
    pool = SharedPool(3)
    assert pool.map(lambda i: i + 1, range(5)) == [1, 2, 3, 4, 5]
    pool.close()
    assert pool.map(lambda i: i * 2, range(5)) == [0, 2, 4, 6, 8]   # inline once closed


def test_started_items_run_while_the_caller_goes_on_and_results_wait_for_them():
    """``start`` (the service's lookups of what it deletes at its end, its prefix listing): the items run on the
    pool's threads while the caller does other things; ``results`` answers as ``map`` would, and again later."""
    pool = SharedPool(3)
    release, running, taken = threading.Event(), threading.Event(), []

    def item(i):
        taken.append(i)
        if len(taken) == 2:
            running.set()
        assert release.wait(10)
        return (i, threading.current_thread().name)
    started = pool.start(item, [1, 2])
    # both taken by pool threads before anyone asked for the results (waiting for the first only, a loaded machine
    # once left the second to the caller's results(), which runs what no thread has taken: by design)
    assert running.wait(10)
    release.set()
    results = bounded(started.results)
    assert [i for i, _thread in results] == [1, 2]
    assert all(name.startswith("anxcloud-engine") for _i, name in results)
    assert bounded(started.results) == results


def test_started_items_a_bound_of_one_or_a_closed_pool_runs_at_results_in_the_caller():
    for pool in (SharedPool(0), SharedPool(3)):
        pool.close()
        ran = []
        started = pool.start(lambda i: ran.append(i) or threading.current_thread().name, [1, 2])
        assert ran == []
        assert started.results() == [threading.current_thread().name] * 2 and ran == [1, 2]


def test_an_error_of_a_started_item_is_raised_by_results_and_the_pool_works_on():
    pool = SharedPool(2)

    def item(i):
        if i == 1:
            raise NotFoundError("item 1", status=404)
        return i
    started = pool.start(item, [0, 1])
    with pytest.raises(NotFoundError):
        bounded(started.results)
    assert pool.map(lambda i: i + 1, range(4)) == [1, 2, 3, 4]


def test_requests_in_flight_never_exceed_the_bound_tag_writes_included(engine, make_client):
    # The semaphore bounds what the Engine sees, whichever thread sends: map items and tag writes alike.
    client = make_client(max_workers=3)
    engine.set_faults({"latency": 0.03})
    reset_log(engine)

    def job(i):
        if i % 4 == 0:
            return client.tag_add(LB1, "anxlb-bound=%d" % i)
        return client.lbaas_get("loadbalancer", LB1)["name"]
    threads = [threading.Thread(target=lambda n=n: client.map(job, range(n * 12, n * 12 + 12))) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    log = engine_log(engine, total=36)["log"]
    events = sorted([(e["start"], 1) for e in log] + [(e["end"], -1) for e in log])
    level = peak = 0
    for _t, step in events:
        level += step
        peak = max(peak, level)
    assert peak <= 3


def test_pages_after_the_first_go_out_together(engine, make_client):
    for i in range(9):
        resp = engine.api("POST", "/api/LBaaS/v1/backend.json",
                          json={"name": "p%02d" % i, "mode": "tcp", "load_balancer": LB1})
        assert resp.status_code == 200, resp.text
    client = make_client(page_size=2, max_workers=8)
    engine.set_faults({"latency": 0.5})   # room for a busy machine to start all four before one ends
    reset_log(engine)
    assert [b["name"] for b in client.lbaas_list("backend", load_balancer=LB1)] == ["p%02d" % i for i in range(9)]
    log = engine_log(engine, total=5)["log"]
    first, rest = log[0], log[1:]
    assert "page=1" in first["path"]
    assert all(e["start"] >= first["end"] for e in rest)      # the total comes from page 1
    assert max(e["start"] for e in rest) < min(e["end"] for e in rest)   # pages 2-5 overlap
