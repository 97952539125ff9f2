"""The Engine's error body (docs/engine-api-facts.md, Errors): every error answer carries it, with error.code equal
to the HTTP status, because clients (Terraform) decide "not found" / "conflict" from error.code."""


class ApiError(Exception):
    def __init__(self, status, message, validation=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.validation = validation or {}
        self.extra = {}   # more keys of the error object (a CloudDNS changeset's per-entry "create"/"delete")

    def body(self):
        return {"error": dict(self.extra, code=self.status, message=self.message, validation=self.validation)}


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


def not_allowed(method):
    return ApiError(405, "Method %s is not allowed on this path." % method)


def crud(method, ident, query, body, listing, create, view, update, delete):
    """The Engine's REST shape on one collection: list/create without an id, get/update/delete with one."""
    if ident is None and method == "GET":
        return listing(query)
    if ident is None and method == "POST":
        return create(body)
    if ident is not None and method == "GET":
        return view(ident)
    if ident is not None and method == "PUT":
        return update(ident, body)
    if ident is not None and method == "DELETE":
        return delete(ident)
    raise not_allowed(method)
