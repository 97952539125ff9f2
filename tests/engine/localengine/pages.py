"""Paginated list envelopes (docs/engine-api-facts.md, Lists and paging). No key beyond these: the Go client decodes
envelopes strictly, and a page past the end must be an empty page (the client stops on one)."""
from .errors import ApiError

DEFAULT_LIMIT = 10


def first(query, key, default=None):
    values = query.get(key)
    return values[0] if values else default


def paginate(items, query):
    """(the items of the requested page, the page keys); page 0 counts as page 1, as in the Go client."""
    try:
        page = max(1, int(first(query, "page") or 1))
        limit = int(first(query, "limit") or DEFAULT_LIMIT)
    except ValueError:
        raise ApiError(400, "page and limit must be integers.")
    if limit < 1:
        raise ApiError(400, "limit must be at least 1.")
    total = len(items)
    keys = {"page": page, "total_pages": (total + limit - 1) // limit, "total_items": total, "limit": limit}
    return items[(page - 1) * limit:page * limit], keys


def wrapped_page(items, query):
    """Shape 1 (LBaaS lists, IPAM address lists): state, messages, data: {page keys, data}."""
    page, keys = paginate(items, query)
    return {"state": "success", "messages": [], "data": dict(keys, data=page)}


def bare_page(items, query):
    """Shape 2 (core resource list, prefix list, reservations): page keys and data at the top."""
    page, keys = paginate(items, query)
    return dict(keys, data=page)
