import os

import pytest

from localengine.testing import LocalEngine

SEED = os.path.join(os.path.dirname(os.path.dirname(__file__)), "engine", "seeds", "default.yml")
DELAY = 0.4


@pytest.fixture(scope="session")
def slow_local_engine():
    """Objects stay NewlyCreated/Updating and deleted objects readable for DELAY seconds."""
    with LocalEngine(seed=SEED, deploy_delay=DELAY, update_delay=DELAY, delete_delay=DELAY) as engine:
        yield engine


@pytest.fixture
def slow_engine(slow_local_engine):
    slow_local_engine.reset()
    return slow_local_engine
