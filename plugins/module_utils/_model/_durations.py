# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Timeouts as users write them: milliseconds, or HAProxy-style durations (``500ms``, ``30s``, ``5m``, ``1h``).

The Engine stores LBaaS timeouts as a number of milliseconds (Backend.server_timeout an integer,
Frontend.client_timeout a string of digits), so every form is turned into milliseconds before it is
compared or sent. A bare number is milliseconds, as HAProxy reads it; one below a second is most
likely meant as seconds, so the caller gets a warning text for it.
"""

import re

from ._failure import Failure

DURATION = re.compile(r"^\s*(\d+)\s*(ms|s|m|h)?\s*$")
FACTORS = {None: 1, "ms": 1, "s": 1000, "m": 60000, "h": 3600000}
SUSPICIOUS_BELOW = 1000
# HAProxy refuses a timeout above 2^31-1 milliseconds (about 24.8 days): the deploy would fail.
HAPROXY_MAX_MS = 2147483647


def to_ms(value, option):
    """(milliseconds or None, warning or None) for an int, a digit string or a duration like ``30s``."""
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise Failure("%s must be milliseconds or a duration like 30s or 500ms, got %r" % (option, value))
    match = DURATION.match(str(value))
    if not match:
        raise Failure("%s must be milliseconds or a duration like 30s or 500ms, got %r" % (option, value))
    number, unit = int(match.group(1)), match.group(2)
    warning = None
    if unit is None and 0 < number < SUSPICIOUS_BELOW:
        warning = ("%s: %d is %d milliseconds; write %ds if you meant seconds" % (option, number, number, number))
    ms = number * FACTORS[unit]
    if ms > HAPROXY_MAX_MS:
        raise Failure("%s must be at most %d milliseconds (about 24 days, HAProxy's limit), got %r"
                      % (option, HAPROXY_MAX_MS, value))
    return ms, warning


def to_seconds(value, option):
    """Whole seconds for a wait bound written as seconds (an int or a digit string: ``600``) or as a duration
    (``90s``, ``10m``, ``1h``; ``1500ms`` rounds up to 2). A bare number is seconds here, as these options
    always were, unlike the HAProxy timeouts above. None stays None."""
    if value is None:
        return None
    match = None if isinstance(value, bool) or not isinstance(value, (int, str)) else DURATION.match(str(value))
    if not match:
        raise Failure("%s must be seconds or a duration like 90s, 10m or 1h, got %r" % (option, value))
    number, unit = int(match.group(1)), match.group(2) or "s"
    return -(-number * FACTORS[unit] // 1000)
