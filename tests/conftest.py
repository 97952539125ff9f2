"""Shared pytest set-up: the collection importable as ``ansible_collections.anxcloud.lbaas`` and a
local Engine (real HTTP on loopback) for every suite that needs one."""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = subprocess.check_output([os.path.join(ROOT, "scripts", "collection-path.sh")], text=True).strip()
for path in (COLLECTIONS, os.path.join(ROOT, "tests", "engine")):
    if path not in sys.path:
        sys.path.insert(0, path)

from localengine.testing import LocalEngine  # noqa: E402  (needs the path above)

DEFAULT_SEED = os.path.join(ROOT, "tests", "engine", "seeds", "default.yml")
# ansible-playbook's controller polls its workers every ANSIBLE_INTERNAL_POLL_INTERVAL seconds (default 0.001)
# while a module runs; Ansible's configuration docs suggest a higher value where CPU matters more than UI
# responsiveness. The playbook runs of the tests mostly wait for modules: 0.01 took 3.6 % off the CPU time
# of the gc role and fault soak tests (measured), and adds at most 10 ms to a task.
os.environ.setdefault("ANSIBLE_INTERNAL_POLL_INTERVAL", "0.01")
# What a test's ansible-playbook run adds to its environment so that the runs of the session share the module
# payloads ansible-core builds (tests/integration/callback_plugins/shared_ansiballz.py): ansible-core keeps them
# per process and built each again in every run, 0.2-0.45 s of CPU per module and run. ANXLB_ANSIBALLZ_CACHE
# names a directory that lives only as long as the session (pytest_configure).
SHARED_PAYLOADS = {"ANSIBLE_CALLBACK_PLUGINS": os.path.join(ROOT, "tests", "integration", "callback_plugins"),
                   "ANSIBLE_CALLBACKS_ENABLED": "shared_ansiballz"}
_PAYLOADS = pytest.StashKey()


def pytest_configure(config):
    # made by the process that starts the xdist workers, which inherit it: one build per module and session
    if "ANXLB_ANSIBALLZ_CACHE" not in os.environ:
        config.stash[_PAYLOADS] = os.environ["ANXLB_ANSIBALLZ_CACHE"] = tempfile.mkdtemp(prefix="anxlb-ansiballz-")


def pytest_unconfigure(config):
    made = config.stash.get(_PAYLOADS, None)
    if made:
        shutil.rmtree(made, ignore_errors=True)
        del os.environ["ANXLB_ANSIBALLZ_CACHE"]


@pytest.fixture(scope="session")
def local_engine():
    """One local Engine for the whole session, seeded with tests/engine/seeds/default.yml."""
    with LocalEngine(seed=DEFAULT_SEED) as engine:
        yield engine


@pytest.fixture
def engine(local_engine):
    """The session's local Engine, wiped and reseeded (state, request log, faults) for this test."""
    local_engine.reset()
    yield local_engine


@pytest.fixture(scope="session")
def slow_local_engines():
    """Local Engines with deployment delays, one per set of delays, each started when first asked for."""
    started = {}
    yield started
    for engine in started.values():
        engine.stop()


@pytest.fixture
def engine_delays():
    """The delays (LocalEngine keyword arguments, seconds) of ``slow_engine``; a test module or directory
    that needs others overrides this fixture."""
    return {"deploy_delay": 0.3, "update_delay": 0.3, "delete_delay": 0.3}


@pytest.fixture
def slow_engine(slow_local_engines, engine_delays):
    """A local Engine whose deployments (and deletions) take ``engine_delays``, wiped and reseeded for this
    test; one per set of delays for the session."""
    key = tuple(sorted(engine_delays.items()))
    if key not in slow_local_engines:
        slow_local_engines[key] = LocalEngine(seed=DEFAULT_SEED, **engine_delays).start()
    engine = slow_local_engines[key]
    engine.reset()
    return engine


@pytest.fixture(scope="session")
def dns_local_engines():
    """Local Engines with knot (--dns), one per seed, each started when a test first asks for it (``dns_engine``,
    tests/contract/conftest.py). Here, not beside ``dns_engine``: the integration tests' DNS files imported it into
    each module, which makes it a session fixture of that module alone (one Engine and one knot per file and worker)."""
    started = {}
    yield started
    for engine in started.values():
        engine.stop()


@pytest.fixture(scope="session")
def module_fork_server():
    """One ``ModuleForkServer`` (tests/integration/conftest.py) for the session (for each xdist worker): it starts
    once (0.6 CPU-s, its imports) instead of once per test file and worker, which was 82 starts and 50 CPU-s of a
    `make test` (process accounting). Each module runs in a process forked from it, so no run leaves anything in
    it for the next; its CPU time and its children's count for the worker when the session ends."""
    from .integration.conftest import ModuleForkServer   # not at the top: that conftest imports this one
    server = ModuleForkServer()
    yield server
    server.close()


# Seconds the longest tests take on a 2-core machine under `make test` (their --durations, rounded up);
# every other test is estimated by its suite. Only the order of the run depends on these.
EXPECTED = {
    "test_fault_soak.py::test_fault_soak[honour]": 45,   # half the runs (RUNS_BY_LISTINGS), fewer requests each
    "test_fault_soak.py::test_fault_soak": 110,
    "test_role_playbook.py::test_the_playbook_previews_applies_reruns_shrinks_and_removes": 90,
    "test_user_guide.py::test_the_guide_runs_as_written": 70,
    "test_gc_roles.py::test_a_dropped_family_and_an_absent_service_without_its_pool_leave_no_address": 60,
    "test_live_sets.py::test_a_renamed_service_is_named_with_its_address": 56,
    "test_teardown_results.py::test_input_that_cannot_be_right_is_refused_before_any_request": 32,
    "test_requirements.py::test_every_module_reports_a_missing_netaddr": 36,
    "test_gc_roles.py::test_from_shop_and_api_to_shop": 30,
    "test_traffic.py::test_a_service_carries_traffic_from_plan_to_removal": 30,
}
SUITE_SECONDS = {"integration": 6, "e2e": 6, "contract": 0.3}


def expected_seconds(item):
    nodeid = item.nodeid
    for key, seconds in EXPECTED.items():
        if key in nodeid:
            return seconds
    parts = nodeid.split("/")
    return SUITE_SECONDS.get(parts[1] if len(parts) > 2 and parts[0] == "tests" else "", 0.05)


def blocks(count, workers):
    """The sizes of the blocks pytest-xdist's worksteal scheduler first hands to ``workers`` idle workers
    (xdist/scheduler/worksteal.py: each gets len(pending) // workers-left, from the front)."""
    sizes, left = [], count
    for i in range(workers):
        sizes.append(left // (workers - i))
        left -= sizes[-1]
    return sizes


def pytest_collection_modifyitems(config, items):
    """The longest tests first (the fault soak alone takes over a minute), so no worker ends with a long
    test while the others wait. Under ``--dist worksteal`` each worker first gets a contiguous block of the
    list and later work is stolen from the blocks' ends: the tests are dealt longest first to the block
    with the least expected time that still has room, each block in the order longest first."""
    estimate = dict((item.nodeid, expected_seconds(item)) for item in items)
    ranked = sorted(items, key=lambda item: -estimate[item.nodeid])   # stable: ties keep collection order
    worker = getattr(config, "workerinput", {})   # on an xdist worker: the controller's count and argv
    workers = worker.get("workercount", 1)
    argv = worker.get("mainargv", [])
    if workers <= 1 or not ("worksteal" in argv or "--dist=worksteal" in argv):
        items[:] = ranked
        return
    sizes = blocks(len(ranked), workers)
    dealt = [[] for _size in sizes]
    load = [0.0] * len(sizes)
    for item in ranked:
        room = [i for i in range(len(sizes)) if len(dealt[i]) < sizes[i]]
        target = min(room, key=lambda i: (load[i], i))
        dealt[target].append(item)
        load[target] += estimate[item.nodeid]
    items[:] = [item for block in dealt for item in block]


SUMMARIES = []


def pytest_runtest_logreport(report):
    """Collects what tests record as ``summary`` (record_property), from xdist workers too."""
    SUMMARIES.extend(value for key, value in report.user_properties if key == "summary" and report.when == "call")


def pytest_terminal_summary(terminalreporter):
    for text in SUMMARIES:
        terminalreporter.write_line(text)
