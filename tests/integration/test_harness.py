"""The integration harness's own promises: playbook runs share the module payloads ansible-core builds
(callback_plugins/shared_ansiballz.py), and a session's plays run one at a time (conftest.py, ``Session``)."""
import glob
import os

import pytest
from ansible.release import __version__

from . import engine_state as es


def payload_files():
    shared = os.path.join(os.environ["ANXLB_ANSIBALLZ_CACHE"], "ansible-core-%s-*" % __version__)
    return {path: os.stat(path) for path in glob.glob(os.path.join(shared, "*.frontend_info-*"))
            if not path.endswith(".lock")}


def test_a_second_run_reads_the_payload_the_first_left(ansible):
    """A run finds a module's payload in the session's directory and reads it; the next run reads the same
    file instead of building its own."""
    if not os.environ.get("ANXLB_ANSIBALLZ_CACHE"):
        pytest.skip("ANXLB_ANSIBALLZ_CACHE is set empty: payload sharing is off")
    task = {"anxcloud.lbaas.frontend_info": {"load_balancer": "lb1"}}
    first = ansible.run(task)
    assert first.rc == 0, first
    (path, built), = payload_files().items()
    second = ansible.run(task)
    assert second.rc == 0, second
    assert second[0]["frontends"] == first[0]["frontends"]
    again = payload_files()[path]
    assert (again.st_ino, again.st_mtime_ns) == (built.st_ino, built.st_mtime_ns)


def test_a_session_waits_between_plays_and_a_failed_play_ends_it(engine, ansible):
    """What the test does between two plays of a session is what the next play sees, as between two runs; a run
    that a failed play ends leaves the plays after it empty."""
    listing = ([{"anxcloud.lbaas.backend_info": {"load_balancer": "lb1"}}], {})
    plays = ansible.session([listing, listing, ([{"ansible.builtin.fail": {"msg": "stop"}}], {}), listing])
    first = plays.next()
    assert first.rc is None and not first.failed() and first[0]["backends"] == []
    es.create(engine, "backend", name="made.between", mode="tcp", load_balancer=es.lb_id(engine))
    second = plays.next()
    assert second.rc is None and [b["name"] for b in second[0]["backends"]] == ["made.between"]
    stopped = plays.next()
    assert stopped.failed() and stopped[0]["msg"] == "stop"
    last = plays.next()
    assert last.records == [] and last.rc == 2


def test_a_forked_module_process_answers_as_a_fresh_one(engine, fresh_module, module):
    """``module`` (a process forked from a server that imported Ansible's module base once) gives what a
    fresh ``python -m`` process gives, for a refusal, a run without a token, check mode, a write and its rerun;
    each forked run starts from the server's state, not from the run before it."""
    bad = {"pool": ["anxlb-pool=demo"], "owner": "a/b", "family": "v4"}
    backend = {"load_balancer": "lb1", "name": "forked", "mode": "tcp"}
    for name, args, options in (("ip_address", bad, {}), ("ip_address", bad, {"check": True}),
                                ("backend_info", {"load_balancer": "lb1"}, {"token": False}),
                                ("ip_pool_info", {"pool": ["anxlb-pool=demo"]}, {})):
        fresh, forked = fresh_module(name, args, **options), module(name, args, **options)
        assert (forked.rc, forked.result) == (fresh.rc, fresh.result), (forked, fresh)
    check = module("backend", backend, check=True, diff=True)
    assert check["changed"] is True and check.writes(engine) == 0 and es.objects(engine, "backend") == []
    made = module("backend", backend, diff=True)
    assert made.rc == 0 and made["changed"] is True and made["diff"] == check["diff"], made
    assert [b["name"] for b in es.objects(engine, "backend")] == ["forked"]
    fresh, forked = fresh_module("backend", backend), module("backend", backend)
    assert fresh["changed"] is False and (forked.rc, forked.result) == (fresh.rc, fresh.result), forked
