# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The bound on requests in flight at once, which a rate-limited Engine lowers.

A client starts at ``api_concurrency``; every HTTP 429 halves the bound for the rest of the client's life
(never below 1), as AWS's SDKs do in their adaptive retry mode: a task that the Engine throttles sends
less at once from then on, whatever its option said, and a task that is never throttled runs at the full
bound. Requests already in flight finish; only new ones wait.
"""

import threading


class InFlightLimit:
    def __init__(self, limit):
        self.limit = int(limit)
        self._in_flight = 0
        self._cond = threading.Condition()

    def __enter__(self):
        with self._cond:
            while self._in_flight >= self.limit:
                self._cond.wait()
            self._in_flight += 1
        return self

    def __exit__(self, *exc_info):
        with self._cond:
            self._in_flight -= 1
            # one waiter fits now; the limit only ever falls, so no other can
            self._cond.notify()

    def halve(self):
        with self._cond:
            self.limit = max(1, self.limit // 2)
