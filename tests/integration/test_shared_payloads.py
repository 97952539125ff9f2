"""The tests' playbook runs share the module payloads ansible-core builds (callback_plugins/shared_ansiballz.py):
a run finds a module's payload in the session's directory and reads it, the next run reads the same file
instead of building its own."""
import glob
import os

import pytest
from ansible.release import __version__


def payload_files():
    shared = os.path.join(os.environ["ANXLB_ANSIBALLZ_CACHE"], "ansible-core-" + __version__)
    return {path: os.stat(path) for path in glob.glob(os.path.join(shared, "*.frontend_info-*"))
            if not path.endswith(".lock")}


def test_a_second_run_reads_the_payload_the_first_left(ansible):
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
