"""Contract-test fixtures. ``engine`` (the session's local Engine, reset for each test, no delays) and
``slow_engine`` come from tests/conftest.py; here the slow Engine's deploys, updates and deletes take DELAY
seconds, the delay the helpers wait out."""
import pytest

from .helpers import DELAY


@pytest.fixture
def engine_delays():
    return {"deploy_delay": DELAY, "update_delay": DELAY, "delete_delay": DELAY}
