"""Shared pytest set-up: the collection importable as ``ansible_collections.anxcloud.lbaas`` and a
local Engine (real HTTP on loopback) for every suite that needs one."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = subprocess.check_output([os.path.join(ROOT, "scripts", "collection-path.sh")], text=True).strip()
for path in (COLLECTIONS, os.path.join(ROOT, "tests", "engine")):
    if path not in sys.path:
        sys.path.insert(0, path)

from localengine.testing import LocalEngine  # noqa: E402  (needs the path above)

DEFAULT_SEED = os.path.join(ROOT, "tests", "engine", "seeds", "default.yml")


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


def pytest_collection_modifyitems(items):
    """The longest tests first, so parallel workers do not end waiting for one (the fault soak alone
    takes over a minute), then the other suites that run playbooks, the quick unit tests last."""
    def rank(item):
        path = str(item.fspath)
        if "test_fault_soak" in path:
            return 0
        if os.sep + "integration" + os.sep in path or os.sep + "e2e" + os.sep in path:
            return 1
        return 2 if os.sep + "contract" + os.sep in path else 3
    items.sort(key=rank)


SUMMARIES = []


def pytest_runtest_logreport(report):
    """Collects what tests record as ``summary`` (record_property), from xdist workers too."""
    SUMMARIES.extend(value for key, value in report.user_properties if key == "summary" and report.when == "call")


def pytest_terminal_summary(terminalreporter):
    for text in SUMMARIES:
        terminalreporter.write_line(text)
