# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

"""The collection's only HTTP client for the Anexia Engine (facts: ENGINE_API.md).

One retry policy for everything, as a small explicit loop rather than urllib3's ``Retry``: the
rules differ per status *and* method (500 only on reads, 409 only on tag writes, 429 only with a
bounded Retry-After), and every attempt must be counted exactly for tests and benchmarks.
"""

import json
import platform
import random
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

try:
    from urllib.parse import quote, urlencode
except ImportError:  # pragma: no cover - Python 2 is not supported, but sanity imports this
    from urllib import quote, urlencode

try:
    import requests
    from requests.adapters import HTTPAdapter
    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None
except ImportError:
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR = traceback.format_exc()

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine_errors import (
    EngineConnectionError, NotFoundError, RateLimitedError, ValidationFailedError, error_for)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._version import COLLECTION_NAME, COLLECTION_VERSION

DEFAULT_API_URL = "https://engine.anexia-it.com"
LBAAS_KINDS = ("loadbalancer", "frontend", "backend", "bind", "server")
RETRY_STATUSES = (502, 503, 504)
READ_METHODS = ("GET", "HEAD")


class RetryPolicy(object):
    """Bounded attempts with exponential backoff, full jitter and a cap."""

    def __init__(self, retries=3, base=0.5, factor=2.0, cap=10.0, max_retry_after=60.0, tag_conflict_attempts=3,
                 tag_conflict_delay=1.0, sleep=time.sleep):
        self.retries = retries
        self.base = base
        self.factor = factor
        self.cap = cap
        self.max_retry_after = max_retry_after
        self.tag_conflict_attempts = tag_conflict_attempts
        self.tag_conflict_delay = tag_conflict_delay
        self.sleep = sleep

    def backoff(self, attempt):
        return random.uniform(0, min(self.cap, self.base * self.factor ** attempt))

    def retryable(self, method, status):
        return status in RETRY_STATUSES or (status == 500 and method in READ_METHODS)


class EngineClient(object):
    def __init__(self, api_url=DEFAULT_API_URL, token=None, timeout=30, validate_certs=True, retries=3,
                 page_size=100, max_workers=8, policy=None):
        self.base_url = (api_url or DEFAULT_API_URL).rstrip("/")
        self.timeout = timeout
        self.page_size = page_size
        self.max_workers = max(1, max_workers)
        self.policy = policy or RetryPolicy(retries=retries)
        self.session = requests.Session()
        # One connection per worker, so concurrent reads do not queue for a socket.
        adapter = HTTPAdapter(pool_connections=2, pool_maxsize=self.max_workers, max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.session.verify = validate_certs
        self.session.headers.update({
            "Accept": "application/json",
            "User-Agent": "%s/%s (%s)" % (COLLECTION_NAME, COLLECTION_VERSION, platform.system().lower() or "unknown"),
        })
        if token:
            self.session.headers["Authorization"] = "Token %s" % token
        self._lock = threading.Lock()
        self._counts = {}

    def __repr__(self):
        return "EngineClient(%r)" % self.base_url

    # ---- counting ------------------------------------------------------------------------------
    @property
    def request_counts(self):
        with self._lock:
            return {"total": sum(self._counts.values()), "by_method": dict(self._counts)}

    def reset_counts(self):
        with self._lock:
            self._counts = {}

    def _count(self, method):
        with self._lock:
            self._counts[method] = self._counts.get(method, 0) + 1

    # ---- transport -----------------------------------------------------------------------------
    def request(self, method, path, params=None, body=None, tag_write=False):
        """One Engine call with the retry policy; returns the decoded JSON body (or None)."""
        url = self.base_url + path
        shown = path + ("?" + urlencode(params) if params else "")
        kwargs = dict(params=params, timeout=self.timeout)
        if method not in READ_METHODS:
            kwargs["headers"] = {"Content-Type": "application/json"}
            if body is not None:
                kwargs["data"] = json.dumps(body)
        policy = self.policy
        attempt = conflicts = 0
        while True:
            self._count(method)
            try:
                resp = self.session.request(method, url, **kwargs)
            except requests.exceptions.RequestException as exc:
                if attempt < policy.retries:
                    policy.sleep(policy.backoff(attempt))
                    attempt += 1
                    continue
                raise EngineConnectionError("%s after %d attempts" % (type(exc).__name__, attempt + 1),
                                            method=method, path=shown)
            status = resp.status_code
            if status < 300:
                return _json(resp)
            if status == 409 and tag_write and conflicts + 1 < policy.tag_conflict_attempts:
                conflicts += 1   # concurrent tag writes conflict on the Engine (ENGSUP-5902)
                policy.sleep(policy.tag_conflict_delay)
                continue
            if status == 429:
                wait = _retry_after(resp)
                if wait is None or wait > policy.max_retry_after or attempt >= policy.retries:
                    raise RateLimitedError(_message(resp), status=429, method=method, path=shown)
                policy.sleep(wait)
                attempt += 1
                continue
            if policy.retryable(method, status) and attempt < policy.retries:
                policy.sleep(policy.backoff(attempt))
                attempt += 1
                continue
            raise error_for(status, method, shown, _json(resp, quiet=True))

    def pages(self, path, params=None, page_size=None):
        """Every item of a paged list, whatever envelope the endpoint uses, page after page.

        Stops on ``total_pages``/``total_items`` when the Engine says them (no trailing empty page),
        otherwise on an empty or short page.
        """
        limit = page_size or self.page_size
        page = 1
        while True:
            query = dict(params or {}, page=page, limit=limit)
            items, meta = _unwrap(self.request("GET", path, params=query))
            yield from items
            if not items:
                return
            if meta.get("total_pages") is not None:
                if page >= meta["total_pages"]:
                    return
            elif meta.get("total_items") is not None:
                if page * limit >= meta["total_items"]:
                    return
            elif len(items) < limit:
                return
            page += 1

    def map(self, fn, items):
        """``[fn(i) for i in items]``, concurrently on a bounded pool, results in order."""
        items = list(items)
        if len(items) <= 1 or self.max_workers == 1:
            return [fn(i) for i in items]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(items))) as pool:
            return list(pool.map(fn, items))

    # ---- LBaaS v1 ------------------------------------------------------------------------------
    @staticmethod
    def _lbaas(kind, ident=None):
        if kind not in LBAAS_KINDS:
            raise ValueError("unknown LBaaS object type %r" % kind)
        return "/api/LBaaS/v1/%s.json" % kind + ("/%s" % ident if ident else "")

    def lbaas_list(self, kind, **filters):
        """``[{identifier, name}]``; filters travel URL-encoded inside one ``filters`` parameter."""
        params = None
        if kind != "loadbalancer":   # the LoadBalancer list takes no filters at all
            params = {"filters": urlencode(sorted((k, v) for k, v in filters.items() if v is not None))}
        return list(self.pages(self._lbaas(kind), params))

    def lbaas_get(self, kind, ident):
        return self.request("GET", self._lbaas(kind, ident))

    def lbaas_get_many(self, kind, idents):
        return self.map(lambda i: self.lbaas_get(kind, i), idents)

    def lbaas_create(self, kind, body):
        return self.request("POST", self._lbaas(kind), body=body)

    def lbaas_update(self, kind, ident, body):
        return self.request("PUT", self._lbaas(kind, ident), body=body)

    def lbaas_redeploy(self, kind, ident):
        """Asks the Engine to deploy the object again (state "0"): the way out of DeploymentError."""
        return self.request("PUT", self._lbaas(kind, ident), body={"state": "0"})

    def lbaas_delete(self, kind, ident):
        """True if deleted, False if it was already gone."""
        try:
            self.request("DELETE", self._lbaas(kind, ident))
            return True
        except NotFoundError:
            return False

    # ---- core resources and tags ---------------------------------------------------------------
    def resources_by_tag(self, tag):
        """``[{identifier, name}]`` of everything carrying ``tag``; the Engine's 422 means none."""
        try:
            return list(self.pages("/api/core/v1/resource.json", {"tag_name": tag}))
        except ValidationFailedError:
            return []

    def resource_get(self, ident):
        return self.request("GET", "/api/core/v1/resource.json/%s" % ident)

    @staticmethod
    def _tag_path(ident, tag):
        return "/api/core/v1/resource.json/%s/tags/%s" % (ident, quote(tag, safe="="))

    def tag_add(self, ident, tag):
        """Tags a resource; already tagged (422) is success, a conflict (409) is retried."""
        try:
            self.request("POST", self._tag_path(ident, tag), body="", tag_write=True)
        except ValidationFailedError:
            pass

    def tag_remove(self, ident, tag):
        try:
            self.request("DELETE", self._tag_path(ident, tag), tag_write=True)
        except NotFoundError:
            pass

    # ---- IPAM ----------------------------------------------------------------------------------
    def prefix_list(self, search=None):
        return list(self.pages("/api/ipam/v1/prefix.json", {"search": search or ""}))

    def prefix_get(self, ident):
        return self.request("GET", "/api/ipam/v1/prefix.json/%s" % ident)

    def address_list(self, prefix=None, version=None, search=None):
        filters = dict((k, v) for k, v in (("prefix", prefix), ("version", version), ("search", search)) if v)
        if filters:
            return list(self.pages("/api/ipam/v1/address/filtered.json", filters))
        return list(self.pages("/api/ipam/v1/address.json", {"search": ""}))

    def address_get(self, ident):
        return self.request("GET", "/api/ipam/v1/address.json/%s" % ident)

    def address_create(self, prefix_id, address, description="", role="Default"):
        body = {"prefix": prefix_id, "name": address, "description_customer": description, "role": role,
                "organization": "", "rdns_name": ""}
        return self.request("POST", "/api/ipam/v1/address.json", body=body)

    def address_delete(self, ident):
        try:
            self.request("DELETE", "/api/ipam/v1/address.json/%s" % ident)
            return True
        except NotFoundError:
            return False

    def address_reserve_random(self, location, vlan, count=1, prefix=None, version=None, period=None):
        body = {"location_identifier": location, "vlan_identifier": vlan, "count": count}
        for key, value in (("prefix_identifier", prefix), ("ip_version", version), ("reservation_period", period)):
            if value is not None:
                body[key] = value
        items, _meta = _unwrap(self.request("POST", "/api/ipam/v1/address/reserve/ip/count.json", body=body))
        return items


def _json(resp, quiet=False):
    if not resp.content:
        return None
    try:
        return resp.json()
    except ValueError:
        if quiet:
            return None
        raise EngineConnectionError("the Engine answered with a body that is not JSON",
                                    status=resp.status_code, method=resp.request.method, path=resp.request.path_url)


def _message(resp):
    body = _json(resp, quiet=True)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"].get("message")
    return None


def _retry_after(resp):
    value = resp.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None   # an HTTP date: treat as "no usable hint" and fail fast


PAGE_KEYS = ("page", "total_pages", "total_items", "limit")


def _unwrap(body):
    """(items, page metadata) from any list envelope the Engine uses (ENGINE_API.md 2.2, 2.4)."""
    if isinstance(body, list):
        return body, {}
    if not isinstance(body, dict):
        return [], {}
    data = body.get("data")
    if isinstance(data, dict) and isinstance(data.get("data"), list):     # wrapped page
        return data["data"], dict((k, data.get(k)) for k in PAGE_KEYS)
    if isinstance(data, list):                                             # bare page, prefix list
        return data, dict((k, body.get(k)) for k in PAGE_KEYS)
    return [], {}
