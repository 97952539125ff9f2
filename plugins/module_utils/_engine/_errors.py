# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Engine errors as exception classes (docs/engine-api-facts.md, "Errors").

Each error names the request (method, path with query, relative to the API URL) and carries the
Engine's own message and validation texts. None of them ever holds the API token: the token lives
only in the client's auth object, and the client masks it in every text it copies from a response
or a transport error before it builds an exception (``redact``).
"""

REDACTED = "********"


class EngineError(Exception):
    """Base class of every error of the Engine client.

    Attributes: ``status`` (HTTP status, None for transport errors), ``method``, ``path`` (path and
    query, never the token), ``message`` (the Engine's ``error.message`` or a description of the
    problem), ``validation`` (the Engine's ``error.validation`` dict, field -> text), ``attempts``
    (how many requests were sent for this call, retries included; None if unknown),
    ``may_have_landed`` (True for a write whose outcome is unknown: the Engine answered 5xx, or the
    connection failed after the request was sent, or the answer was unusable; the caller resolves it
    by observing, never by sending the write again).
    """

    kind = "Engine request failed"

    def __init__(self, message=None, status=None, method=None, path=None, validation=None, attempts=None,
                 may_have_landed=False):
        self.message = message
        self.status = status
        self.method = method
        self.path = path
        self.validation = dict(validation or {})
        self.attempts = attempts
        self.may_have_landed = bool(may_have_landed)
        super().__init__(self._text())

    def _text(self):
        head = "%s %s" % (self.method, self.path) if self.method else "Engine request"
        text = "%s: %s" % (head, self.kind)
        if self.status:
            text += " (HTTP %s)" % self.status
        if self.message:
            text += ": %s" % self.message
        if self.validation:
            text += " [%s]" % "; ".join("%s: %s" % (k, v) for k, v in sorted(self.validation.items()))
        if self.attempts and self.attempts > 1:
            text += " (after %d attempts)" % self.attempts
        if self.may_have_landed:
            text += "; the Engine may have carried out this request, so it was not sent again"
        return text

    def __str__(self):
        return self._text()

    def to_dict(self):
        """Structured details for ``fail_json`` (JSON-able, no token)."""
        return dict(type=type(self).__name__, status=self.status, method=self.method, path=self.path,
                    message=self.message, validation=self.validation, attempts=self.attempts,
                    may_have_landed=self.may_have_landed)


class NotFoundError(EngineError):
    """404: the object (or endpoint) does not exist."""
    kind = "not found"


def gone_as_none(fn):
    """``fn(arg)``, or None where it raised NotFoundError: for identifiers taken from a listing, an object
    deleted since (late, or by a concurrent run) is gone, not an error."""
    def call(arg):
        try:
            return fn(arg)
        except NotFoundError:
            return None
    return call


class AccessDeniedError(EngineError):
    """401/403: missing, invalid or insufficient API token."""
    kind = "access denied (check api_token)"


class ConflictError(EngineError):
    """409: the Engine refused a concurrent change (tag writes) or is not ready yet (reservations)."""
    kind = "conflict"


class RateLimitedError(EngineError):
    """429: the Engine rate-limits this token. ``retry_after`` is the Engine's hint in seconds (or None)."""
    kind = "rate limited by the Engine; back off and retry later, with a lower api_concurrency or fewer forks"

    def __init__(self, message=None, retry_after=None, **kwargs):
        self.retry_after = retry_after
        super().__init__(message, **kwargs)

    def _text(self):
        text = super()._text()
        if self.retry_after is not None:
            text += " (Retry-After: %g s)" % self.retry_after
        return text

    def to_dict(self):
        return dict(super().to_dict(), retry_after=self.retry_after)


class ValidationFailedError(EngineError):
    """400/422: the Engine rejected the request; ``validation`` names the fields."""
    kind = "validation failed"


class ServerError(EngineError):
    """5xx: the Engine (or a gateway in front of it) failed."""
    kind = "Engine server error"


class EngineConnectionError(EngineError):
    """No HTTP answer: connection refused/reset/dropped, DNS, TLS or a timeout."""
    kind = "could not reach the Engine"


class UnsafeRequestError(EngineError):
    """A request the client refuses to send: a name that would change the URL path it goes into."""
    kind = "refused before sending"


class UnexpectedResponseError(EngineError):
    """An answer the client cannot use: a redirect, a body that is not JSON, an unknown list shape."""
    kind = "unexpected answer from the Engine"


BY_STATUS = {400: ValidationFailedError, 401: AccessDeniedError, 403: AccessDeniedError, 404: NotFoundError,
             409: ConflictError, 422: ValidationFailedError, 429: RateLimitedError}


def redact(value, secrets):
    """``value`` with every non-empty string of ``secrets`` masked (recursing into dicts and lists)."""
    if isinstance(value, dict):
        return dict((redact(k, secrets), redact(v, secrets)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [redact(v, secrets) for v in value]
    if not isinstance(value, str):
        return value
    for secret in secrets:
        if secret:
            value = value.replace(secret, REDACTED)
    return value


def engine_message(body):
    """(message, validation) from the Engine's error body ``{"error": {code, message, validation}}``."""
    if not isinstance(body, dict) or not isinstance(body.get("error"), dict):
        return None, None
    error = body["error"]
    message = error.get("message")
    if message is not None and not isinstance(message, str):
        message = str(message)
    validation = error.get("validation")
    if isinstance(validation, dict):
        validation = dict((str(k), v if isinstance(v, str) else str(v)) for k, v in validation.items())
    else:
        validation = None
    return message, validation


def error_for(status, method, path, body, reason=None, attempts=None, retry_after=None, secrets=(),
              may_have_landed=False):
    """The exception for an error response.

    ``body`` is the decoded JSON body (None when it was empty or not JSON); ``reason`` the HTTP reason
    phrase, used as the message when the body has none; ``secrets`` are masked in every text.
    """
    message, validation = engine_message(body)
    message = redact(message or reason, secrets)
    validation = redact(validation, secrets)
    kwargs = dict(status=status, method=method, path=path, validation=validation, attempts=attempts,
                  may_have_landed=may_have_landed)
    cls = BY_STATUS.get(status) or (ServerError if status >= 500 else EngineError)
    if cls is RateLimitedError:
        return RateLimitedError(message, retry_after=retry_after, **kwargs)
    return cls(message, **kwargs)
