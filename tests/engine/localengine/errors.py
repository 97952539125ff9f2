"""The Engine's error body (ENGINE_API.md 3.1): every error answer carries it, with error.code equal
to the HTTP status, because clients (Terraform) decide "not found" / "conflict" from error.code."""


class ApiError(Exception):
    def __init__(self, status, message, validation=None):
        super(ApiError, self).__init__(message)
        self.status = status
        self.message = message
        self.validation = validation or {}

    def body(self):
        return {"error": {"code": self.status, "message": self.message, "validation": self.validation}}


def invalid(errors):
    """422 with one ``validation`` entry per field; the legacy client needs string values."""
    return ApiError(422, "Validation failed: %s." % ", ".join(sorted(errors)),
                    dict((field, str(text)) for field, text in errors.items()))


def not_found(what, ident):
    return ApiError(404, "%s %s not found." % (what, ident))


def require_object(body):
    if not isinstance(body, dict):
        raise ApiError(400, "The request body must be a JSON object.")
    return body
