# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The collection's one retry policy (the rules; the loop that applies them is EngineClient.request).

What is retried, and why only that: no official client retries a write (go-anxcloud
pkg/api/errors.go only classifies errors; docs/engine-api-facts.md, "Errors"). A write answered 5xx, or
whose connection failed after it was sent, may have been carried out by the Engine: sending it
again can create an object twice (a gateway that answers 504 after the Engine committed). So:
  * reads (GET, HEAD): retried on 500/502/503/504, dropped connections, read timeouts and
    truncated answers;
  * every method: retried when the request never left (connection refused, DNS, connect timeout),
    on 429 with an acceptable Retry-After (the Engine refused it), and tag writes on 409 (3
    attempts 1 s apart, as go-anxcloud's Tag helper does: the Engine refused them too);
  * any other failure of a write is raised with ``may_have_landed`` set, and the caller decides
    by observing (adopt the object by its exact name, or create it on the next run).

Why an explicit loop and not urllib3's ``Retry`` mounted on the session's adapter:
  * the rules depend on method *and* status *and* the call ("409 only for this call" would need
    per-request adapters);
  * urllib3 retries inside one ``session.request()`` call, so the client could not count each
    HTTP request actually sent (the request counter must match the Engine's own log exactly);
  * the final error must be the collection's exception with the Engine's message and the number of
    attempts, which the loop has at hand; urllib3 would raise MaxRetryError / RetryError instead.
The adapter is therefore mounted with ``max_retries=0`` (no hidden retries, no redirects).
"""

import random
import time
from email.utils import parsedate_tz, mktime_tz

READ_RETRY_STATUSES = (500, 502, 503, 504)   # only on idempotent reads: a write may have landed
RETRY_STATUSES = READ_RETRY_STATUSES          # kept for callers of the old name
READ_METHODS = ("GET", "HEAD")


class RetryPolicy:
    """Bounded attempts, exponential backoff with jitter and a cap; the special cases 409 and 429.

    ``retries``: how many times one call is retried at most (so ``retries + 1`` requests), for
    unsent requests, 5xx and broken connections on reads, and 429 with an acceptable Retry-After.
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
        """Whether an HTTP error status is worth another attempt (429 and 409 are handled apart).
        Only reads: a write answered 5xx may have been carried out."""
        return method in READ_METHODS and status in READ_RETRY_STATUSES

    @staticmethod
    def retry_transport(method, failure):
        """Whether a transport failure (a ``TRANSPORT_FAILURES`` name) is worth another attempt.

        ``unsent`` (refused, DNS, connect timeout: nothing left this machine) on any method.
        ``dropped``, ``timeout`` and ``broken`` (closed without an answer, no answer in time, a
        truncated answer) only on reads: the Engine may be carrying out a write right now.
        ``fatal`` (TLS verification, an invalid URL) never.
        """
        if failure == "unsent":
            return True
        if failure in ("dropped", "timeout", "broken"):
            return method in READ_METHODS
        return False

    @staticmethod
    def may_have_landed(method, failure=None, status=None):
        """Whether a failed request may have been carried out: a write answered 5xx, or a write whose
        connection failed after sending (``dropped``, ``timeout``, ``broken``)."""
        if method in READ_METHODS:
            return False
        if status is not None:
            return status >= 500
        return failure in ("dropped", "timeout", "broken")


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
