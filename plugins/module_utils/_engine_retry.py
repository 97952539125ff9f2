# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

# The collection's one retry policy (the rules; the loop that applies them is EngineClient.request).
#
# Why an explicit loop and not urllib3's ``Retry`` mounted on the session's adapter:
#   * the rules depend on method *and* status *and* the call: 502/503/504 on any method, 500 only on
#     reads, 409 only on tag writes (fixed 3 attempts 1 s apart, as go-anxcloud does), 429 only when a
#     Retry-After below a bound is present; a ``Retry`` subclass could express most of that, but not
#     "409 only for this call" without per-request adapters;
#   * urllib3 retries inside one ``session.request()`` call, so the client could not count each
#     HTTP request actually sent (the request counter must match the Engine's own log exactly);
#   * the final error must be the collection's exception with the Engine's message and the number of
#     attempts, which the loop has at hand; urllib3 would raise MaxRetryError / RetryError instead.
# The adapter is therefore mounted with ``max_retries=0`` (no hidden retries, no redirects).

import random
import time
from email.utils import parsedate_tz, mktime_tz

RETRY_STATUSES = (502, 503, 504)      # any method: the request did not reach a healthy Engine
READ_RETRY_STATUSES = (500,)          # only on idempotent reads
READ_METHODS = ("GET", "HEAD")


class RetryPolicy(object):
    """Bounded attempts, exponential backoff with jitter and a cap; the special cases 409 and 429.

    ``retries``: how many times one call is retried at most (so ``retries + 1`` requests), for
    connection errors, 502/503/504, 500 on reads and 429 with an acceptable Retry-After.
    Backoff before retry n (0-based): ``d = min(backoff_max, backoff_base * backoff_factor ** n)``,
    slept as ``d / 2 + uniform(0, d / 2)`` ("equal jitter": spread out, yet always growing).
    ``max_retry_after``: a 429's Retry-After above this fails at once instead of sleeping.
    ``conflict_attempts`` / ``conflict_delay``: tag writes answered 409 are sent up to this many
    times, this many seconds apart (go-anxcloud: 3 attempts, 1 s). ``sleep`` and ``jitter`` are
    injectable for tests.
    """

    def __init__(self, retries=3, backoff_base=0.5, backoff_factor=2.0, backoff_max=8.0, max_retry_after=60.0,
                 conflict_attempts=3, conflict_delay=1.0, sleep=None, jitter=None):
        if retries < 0 or conflict_attempts < 1:
            raise ValueError("retries must be >= 0 and conflict_attempts >= 1")
        self.retries = int(retries)
        self.backoff_base = float(backoff_base)
        self.backoff_factor = float(backoff_factor)
        self.backoff_max = float(backoff_max)
        self.max_retry_after = float(max_retry_after)
        self.conflict_attempts = int(conflict_attempts)
        self.conflict_delay = float(conflict_delay)
        self.sleep = time.sleep if sleep is None else sleep
        self.jitter = random.uniform if jitter is None else jitter

    def __repr__(self):
        return ("RetryPolicy(retries=%d, backoff_base=%g, backoff_factor=%g, backoff_max=%g, max_retry_after=%g, "
                "conflict_attempts=%d, conflict_delay=%g)" % (
                    self.retries, self.backoff_base, self.backoff_factor, self.backoff_max, self.max_retry_after,
                    self.conflict_attempts, self.conflict_delay))

    def backoff(self, retry):
        """Seconds to wait before retry number ``retry`` (0 for the first retry)."""
        ceiling = min(self.backoff_max, self.backoff_base * self.backoff_factor ** retry)
        return ceiling / 2.0 + self.jitter(0, ceiling / 2.0)

    @staticmethod
    def retry_status(method, status):
        """Whether an HTTP error status is worth another attempt (429 and 409 are handled apart)."""
        return status in RETRY_STATUSES or (status in READ_RETRY_STATUSES and method in READ_METHODS)

    @staticmethod
    def retry_transport(method, failure):
        """Whether a transport failure (a ``TRANSPORT_FAILURES`` name) is worth another attempt.

        ``unsent`` (refused, DNS, connect timeout) and ``dropped`` (closed without any answer, as a
        502/503/504 tells, too) are retried on any method. ``timeout`` and ``broken`` (no or a
        truncated answer to a request the Engine may be running) only on reads: retrying a POST there
        could create the object twice. ``fatal`` (TLS verification, an invalid URL) never.
        """
        if failure in ("unsent", "dropped"):
            return True
        if failure in ("timeout", "broken"):
            return method in READ_METHODS
        return False


TRANSPORT_FAILURES = ("unsent", "dropped", "timeout", "broken", "fatal")


def parse_retry_after(value, now=None):
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), None if absent or unusable."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parsed = parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, mktime_tz(parsed) - (time.time() if now is None else now))
