"""Contract-test fixtures. ``engine`` (the session's local Engine, reset for each test, no delays)
comes from tests/conftest.py; ``slow_engine`` adds deploy, update and delete delays of DELAY seconds."""
import pytest

from localengine.testing import LocalEngine

from .helpers import DELAY, SEED


@pytest.fixture(scope="session")
def slow_local_engine():
    with LocalEngine(seed=SEED, deploy_delay=DELAY, update_delay=DELAY, delete_delay=DELAY) as engine:
        yield engine


@pytest.fixture
def slow_engine(slow_local_engine):
    slow_local_engine.reset()
    return slow_local_engine
