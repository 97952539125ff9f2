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
