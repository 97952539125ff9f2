# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Test-only callback: writes every task result of a playbook run to $RECORD_FILE as JSON, with the
time the task started and the time its result came (time.time(), the clock the local Engine's request
log uses, so a test can tell which requests each task of one play sent) and the play it belongs to.
With $RECORD_PAUSE (a directory) the run waits before each play: it writes the results so far, creates
paused-N (N: the play about to start, from 0) and waits until the test creates go-N. The test acts on
the Engine in between as it would between two runs (tests/integration/conftest.py, ``Ansible.session``)."""

import json
import os
import time

from ansible.plugins.callback import CallbackBase

# how often a paused run looks for the test's go-ahead (5 ms at first, each wait half as long again, at most 0.1 s:
# the test may act on the Engine for a while), and how long it waits for it at most
PAUSE_POLL, PAUSE_POLL_MAX = 0.005, 0.1
PAUSE_LIMIT = 600

DOCUMENTATION = r"""
name: record
type: aggregate
short_description: records task results for the integration tests
description: Writes each task's name, status and result to the file named by RECORD_FILE.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "record"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.results = []
        self.started = None
        self.play = -1

    def v2_playbook_on_play_start(self, play):
        self.play += 1
        pause = os.environ.get("RECORD_PAUSE")
        if pause:
            self._write()
            open(os.path.join(pause, "paused-%d" % self.play), "w").close()
            go = os.path.join(pause, "go-%d" % self.play)
            deadline, wait = time.monotonic() + PAUSE_LIMIT, PAUSE_POLL
            while not os.path.exists(go):
                if time.monotonic() > deadline:
                    raise RuntimeError("no go-ahead for play %d in %s" % (self.play, pause))
                time.sleep(wait)
                wait = min(wait * 1.5, PAUSE_POLL_MAX)

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.started = time.time()

    def _add(self, status, result):
        self.results.append({"task": result.task_name, "status": status, "result": result._result,
                             "start": self.started, "end": time.time(), "play": self.play})

    def v2_runner_on_ok(self, result):
        self._add("ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._add("failed", result)

    def v2_runner_on_skipped(self, result):
        self._add("skipped", result)

    def _write(self):
        with open(os.environ["RECORD_FILE"] + ".part", "w") as handle:
            json.dump(self.results, handle, default=str)
        os.replace(os.environ["RECORD_FILE"] + ".part", os.environ["RECORD_FILE"])

    def v2_playbook_on_stats(self, stats):
        self._write()
