"""End-to-end fixtures: a local Engine in HAProxy mode (real traffic on loopback). HAProxy is part of
the project's setup (scripts/apt-deps.sh haproxy, run by `make test` and `make demo`): without it
these tests fail, they do not skip."""
import os
import shutil

import pytest

from localengine.testing import LocalEngine

from ..conftest import DEFAULT_SEED
from ..integration.conftest import ForkedModule
from .playbooks import Playbooks


def haproxy_binary():
    found = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None)
    if not found:
        pytest.fail("haproxy is not installed; `make test` installs it (scripts/apt-deps.sh haproxy)")
    return found


@pytest.fixture(scope="session")
def haproxy_engine():
    """A local Engine rendering its load balancers to a real HAProxy, for the session (for each xdist worker, as the
    plain Engine is): ``hengine`` wipes and reseeds it, and so its HAProxy's configuration, before each test. One per
    test file started an Engine and an HAProxy for each of four files on each worker that met it."""
    with LocalEngine(seed=DEFAULT_SEED, deploy_delay=0.2, update_delay=0.2,
                     extra_args=["--haproxy", "--haproxy-bin", haproxy_binary()]) as engine:
        yield engine


@pytest.fixture
def hengine(haproxy_engine):
    """The session's HAProxy-mode Engine, wiped and reseeded for this test."""
    haproxy_engine.reset()
    yield haproxy_engine


@pytest.fixture
def playbooks(hengine, tmp_path):
    """The collection's playbooks run against ``hengine``, one run or several plays of one run (playbooks.py)."""
    harness = Playbooks(hengine, tmp_path)
    yield harness
    harness.close()


@pytest.fixture
def module(hengine, module_fork_server):
    """The collection's modules, each run as its own process against ``hengine``, forked as the integration harness's
    ``module`` is (``ForkedModule``, from the session's fork server)."""
    return ForkedModule(hengine, module_fork_server)
