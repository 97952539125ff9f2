"""What every endpoint shares: the Engine's error body, list envelopes and pagination."""
import ipaddress


class ApiError(Exception):
    """Answered as {"error": {"code": status, "message": ..., "validation": {...}}} (ENGINE_API.md 3.1)."""

    def __init__(self, status, message, validation=None):
        super(ApiError, self).__init__(message)
        self.status = status
        self.message = message
        self.validation = validation or {}

    def body(self):
        return {"error": {"code": self.status, "message": self.message, "validation": self.validation}}


def invalid(**fields):
    return ApiError(422, "Validation failed", dict((k, str(v)) for k, v in fields.items()))


def first(query, key, default=None):
    values = query.get(key)
    return values[0] if values else default


def paginate(items, query):
    """(page items, meta) with ``page`` 1-based (0 becomes 1) and ``limit`` (default 10)."""
    try:
        page = max(1, int(first(query, "page", 1)))
        limit = max(1, int(first(query, "limit", 10)))
    except ValueError:
        raise ApiError(400, "page and limit must be integers")
    total = len(items)
    meta = {"page": page, "total_pages": (total + limit - 1) // limit, "total_items": total, "limit": limit}
    return items[(page - 1) * limit:page * limit], meta


def wrapped_page(items, query):
    """Shape 1 (LBaaS lists, IPAM address lists): state/messages/data{page keys, data}."""
    page, meta = paginate(items, query)
    return {"state": "success", "messages": [], "data": dict(meta, data=page)}


def bare_page(items, query):
    """Shape 2 (core resource list, prefix list, reservations): page keys and data at the top."""
    page, meta = paginate(items, query)
    return dict(meta, data=page)


def parse_ip(value):
    try:
        return ipaddress.ip_address(str(value).strip())
    except ValueError:
        return None
