# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

"""Engine errors as exception classes. Each names the request (method, path with query) and the
Engine's own message; none ever holds the API token (it lives only in the session's headers)."""


class EngineError(Exception):
    """Base class: ``status`` (HTTP status, None for transport errors), ``method``, ``path``, ``message``."""

    kind = "Engine request failed"

    def __init__(self, message, status=None, method=None, path=None, validation=None):
        self.message = message
        self.status = status
        self.method = method
        self.path = path
        self.validation = validation or {}
        super(EngineError, self).__init__(str(self))

    def __str__(self):
        head = "%s %s" % (self.method, self.path) if self.method else "Engine request"
        status = " (HTTP %s)" % self.status if self.status else ""
        text = "%s: %s%s" % (head, self.kind, status)
        if self.message:
            text += ": %s" % self.message
        if self.validation:
            text += " [%s]" % "; ".join("%s: %s" % (k, v) for k, v in sorted(self.validation.items()))
        return text

    def to_dict(self):
        """Structured details for ``fail_json``."""
        return dict(status=self.status, method=self.method, path=self.path, message=self.message,
                    validation=self.validation, type=type(self).__name__)


class NotFoundError(EngineError):
    kind = "not found"


class AccessDeniedError(EngineError):
    kind = "access denied (check api_token)"


class ConflictError(EngineError):
    kind = "conflict"


class RateLimitedError(EngineError):
    kind = "rate limited by the Engine; back off and retry later"


class ValidationFailedError(EngineError):
    kind = "validation failed"


class ServerError(EngineError):
    kind = "Engine server error"


class EngineConnectionError(EngineError):
    kind = "could not reach the Engine"


BY_STATUS = {401: AccessDeniedError, 403: AccessDeniedError, 404: NotFoundError, 409: ConflictError,
             400: ValidationFailedError, 422: ValidationFailedError, 429: RateLimitedError}


def error_for(status, method, path, body):
    """The exception for an error response; ``body`` is the decoded JSON (or None)."""
    message, validation = None, None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        message = body["error"].get("message")
        validation = body["error"].get("validation") if isinstance(body["error"].get("validation"), dict) else None
    cls = BY_STATUS.get(status) or (ServerError if status >= 500 else EngineError)
    return cls(message, status=status, method=method, path=path, validation=validation)
