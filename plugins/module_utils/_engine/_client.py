# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The collection's only HTTP client for the Anexia Engine (facts: docs/engine-api-facts.md).

* one requests.Session per client: ``Authorization: Token <token>``, JSON bodies, a user agent
  ``anxcloud.lbaas/<version> (<platform>)``, a per-request timeout, ``validate_certs``;
* one retry policy (_engine/_retry.py) applied by the explicit loop in ``EngineClient.request``:
  writes are never sent twice once they may have reached the Engine (``may_have_landed``);
* the wire format of go-anxcloud's generic client: full-object PUT with ``"state": "0"``, links as
  identifier strings, answers of DELETE and tag writes not read;
* tag writes serialised behind one lock per client (the cloud controller's ENGSUP-5902 mutex);
* every list envelope of the Engine, paged until an empty page or the announced last one, the
  pages after the first concurrently once the first says how many there are (``pages``);
* LBaaS listings that ask for whole objects (``attributes=all``) while the Engine may offer them
  (_engine/_listings.py, ``full_listings``);
* errors as exception classes (_engine/_errors.py);
* one bounded pool for concurrent calls (``map``, shared by nested maps: _engine/_pool.py), at most
  ``max_workers`` requests in flight at once, and an exact, thread-safe request counter.
"""

import ipaddress
import json
import platform
import re
import threading
from urllib.parse import quote, urlencode, urlsplit

try:
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.exceptions import NewConnectionError
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a client is built
    requests = HTTPAdapter = NewConnectionError = None

from ._errors import (
    EngineConnectionError, EngineError, NotFoundError, RateLimitedError, UnexpectedResponseError, UnsafeRequestError,
    ValidationFailedError, error_for, gone_as_none, redact)
from ._in_flight import InFlightLimit
from ._listings import PARAMETER, FullListings, refuses_parameter
from ._pool import SharedPool
from ._retry import (
    READ_METHODS, RetryPolicy, parse_retry_after)
from ._version import COLLECTION_NAME, COLLECTION_VERSION

DEFAULT_API_URL = "https://engine.anexia-it.com"
DEFAULT_TIMEOUT = 30
DEFAULT_PAGE_SIZE = 100
# Requests in flight at once (the api_concurrency option; why 16: docs/benchmarks.md); a 429 halves it.
DEFAULT_MAX_WORKERS = 16
# a tag write whose outcome is unknown is read back and sent again at most this often in all
TAG_WRITE_ATTEMPTS = 3

KINDS = ("loadbalancer", "frontend", "backend", "bind", "server", "acl", "rule")
LBAAS_KINDS = KINDS
# kind -> its collection in the path where the two differ (go-anxcloud acl_types.go: ACL.json)
COLLECTIONS = {"acl": "ACL"}
# Fields that link to another LBaaS object: an identifier string in requests, {identifier, name} in answers.
LINK_FIELDS = ("load_balancer", "default_backend", "frontend", "backend")
# Characters that would change a URL path if a proxy or the Engine decoded them (a path separator,
# query, fragment, an escape): refused in identifiers and tag names before any request.
PATH_UNSAFE = ("/", "?", "#", "%")
PATH_KEEP = "!$&'()*+,;=:@"
PAGE_KEYS = ("page", "total_pages", "total_items", "limit")

RESOURCES = "/api/core/v1/resource.json"
TAG_ENTITIES = "/api/core/v1/tags.json"
PREFIXES = "/api/ipam/v1/prefix.json"
ADDRESSES = "/api/ipam/v1/address.json"
ADDRESSES_FILTERED = "/api/ipam/v1/address/filtered.json"
RESERVE_RANDOM = "/api/ipam/v1/address/reserve/ip/count.json"
VLANS = "/api/vlan/v1/vlan.json"
# The client's methods that write (send anything but a GET). Check mode's view of the Engine refuses them
# (_reconcile/_predictions.PredictedEngine); every other write goes through ``request``, which it guards.
WRITES = ("lbaas_create", "lbaas_update", "lbaas_redeploy", "lbaas_delete", "tag_add", "tag_remove", "tag_entity_delete",
          "address_create", "address_update", "address_delete", "address_reserve_random")


def user_agent():
    return "%s/%s (%s)" % (COLLECTION_NAME, COLLECTION_VERSION, platform.system().lower() or "unknown")


def normalize_api_url(api_url, allow_insecure_http=False):
    """Scheme, host and path of ``api_url`` without a trailing slash (like go-anxcloud); a path prefix stays.

    A plain ``http://`` URL would send the API token in clear text: it is refused unless its host is
    loopback (the local Engine) or ``allow_insecure_http`` is set.
    """
    text = (api_url or DEFAULT_API_URL).strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EngineError("api_url must be an http:// or https:// URL with a host name, got %r" % display_url(text))
    if parts.scheme == "http" and not allow_insecure_http and not is_loopback(parts.hostname):
        raise EngineError("api_url %s is plain http:// to a host that is not loopback: the API token would travel "
                          "unencrypted; use https://, or set allow_insecure_http=true if the network is trusted"
                          % display_url(text))
    return "%s://%s%s" % (parts.scheme, parts.netloc, parts.path.rstrip("/"))


def display_url(url):
    """``url`` without its userinfo (``user:password@``), to show in messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an api_url that is not a URL)"
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def url_secrets(url):
    """The password of ``url``'s userinfo, masked wherever the client shows text."""
    try:
        parts = urlsplit(url)
        return (parts.password,) if parts.password else ()
    except ValueError:
        return ()


def is_loopback(host):
    """127.0.0.0/8, ::1 and the name localhost itself. ``*.localhost`` names are not trusted: only a
    resolver that follows RFC 6761 keeps them on this machine, and the API token would go to whatever
    they resolve to in clear text."""
    host = (host or "").strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _TokenAuth:
    """Adds ``Authorization: Token <token>``. Being the session's ``auth``, it also keeps a ~/.netrc
    entry from replacing the header, and requests drops it on a redirect to another host."""

    def __init__(self, token):
        self._token = token

    def __call__(self, req):
        req.headers["Authorization"] = "Token %s" % self._token
        return req

    def __repr__(self):
        return "_TokenAuth(<hidden>)"


class _Tries:
    """The counters of one request's attempts: all of them, the retries under the policy's budget, and the
    409 conflicts of a tag write (retried apart from that budget)."""
    __slots__ = ("attempts", "retries", "conflicts")

    def __init__(self):
        self.attempts = self.retries = self.conflicts = 0


class EngineClient:
    """Talks to the Engine. Options (all keyword arguments):

    ``api_url`` (default https://engine.anexia-it.com; trailing slash dropped, a path prefix kept),
    ``token`` (sent as ``Authorization: Token <token>``; never shown), ``timeout`` (seconds per
    request, default 30; 0 or None = none), ``validate_certs`` (default True), ``retries`` (default 3,
    used when no ``policy`` is given), ``policy`` (a RetryPolicy, for backoff and delay settings),
    ``page_size`` (list page size, default 100), ``max_workers`` (requests in flight at once, default 16; each
    HTTP 429 halves it for the rest of the client's life, never below 1: ``in_flight_limit``),
    ``allow_insecure_http`` (default False: a plain http:// URL is refused unless its host is loopback),
    ``full_listings`` (default True: LBaaS listings ask for whole objects, _engine/_listings.py).

    After a final 429 the client sends nothing more: the Engine asks callers to back off for a long
    time (docs/engine-api-facts.md, "Errors"), so every later call raises that same rate-limit error at once
    (``rate_limited`` holds it).
    """

    def __init__(self, api_url=DEFAULT_API_URL, token=None, timeout=DEFAULT_TIMEOUT, validate_certs=True, retries=3,
                 page_size=DEFAULT_PAGE_SIZE, max_workers=DEFAULT_MAX_WORKERS, policy=None, allow_insecure_http=False,
                 full_listings=True):
        if int(page_size) < 1 or int(max_workers) < 1:
            raise ValueError("page_size and max_workers must be at least 1")
        self.base_url = normalize_api_url(api_url, allow_insecure_http)
        self.timeout = timeout if timeout else None
        self.validate_certs = bool(validate_certs)
        self.page_size = int(page_size)
        self.max_workers = int(max_workers)
        self.policy = RetryPolicy(retries=retries) if policy is None else policy
        self._secrets = ((token,) if token else ()) + url_secrets(self.base_url)
        self.shown_url = display_url(self.base_url)
        self.session = requests.Session()
        self._transport_errors = requests.exceptions.RequestException
        if self.base_url.startswith("http://"):
            # A plain-http call goes to loopback (or where allow_insecure_http allows): never through a
            # proxy from HTTP_PROXY/ALL_PROXY (the token would travel in clear to the proxy), nor ~/.netrc.
            self.session.trust_env = False
        # No hidden retries or redirects below this client (the counter must be exact), and a
        # connection per worker so concurrent reads do not wait for a socket.
        adapter = HTTPAdapter(pool_connections=2, pool_maxsize=self.max_workers, max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.session.headers.update({"Accept": "application/json", "User-Agent": user_agent()})
        if token:
            self.session.auth = _TokenAuth(token)
        self._lock = threading.Lock()
        # One tag write at a time per client, as the cloud controller serialises them (its mutex is
        # named after Engine ticket ENGSUP-5902: concurrent tag writes conflict); reads and other
        # writes go on meanwhile.
        self._tag_lock = threading.Lock()
        self._counts = {}
        self._landed = 0   # writes carried out or maybe carried out (2xx, or an unknown outcome)
        # The hard bound on requests in flight, whatever thread sends them (map items, the tag lane).
        self._slots = InFlightLimit(self.max_workers)
        # The caller of a map runs items too, so the pool has one thread less than the bound.
        self._pool = SharedPool(self.max_workers - 1)
        self.rate_limited = None
        # LBaaS objects this client deleted, or may have: the Engine lists such an object a while longer
        # (Asynchronous writes), maybe without its tags, and a caller must not mistake it for someone else's.
        self.deleted = set()
        # What this run learnt of the Engine's full listings (attributes=all): asked, ignored, refused.
        self.full_listings = FullListings(full_listings)

    def __repr__(self):
        return "EngineClient(%r)" % self.base_url

    def close(self):
        self._pool.close()
        self.session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    @property
    def in_flight_limit(self):
        """Requests in flight at once from now on: ``max_workers``, halved by each HTTP 429 so far (at least 1)."""
        return self._slots.limit

    # ---- the request counter -------------------------------------------------------------------
    @property
    def request_counts(self):
        """``{"total": n, "by_method": {"GET": n, ...}}``: every HTTP request sent, retries included.

        A request counts once it has been written to a connection (or may have been); an attempt that
        never got a connection (refused, DNS, connect timeout, TLS handshake) does not.
        """
        with self._lock:
            return {"total": sum(self._counts.values()), "by_method": dict(self._counts)}

    @property
    def writes_landed(self):
        """Writes (any method but a read) the Engine carried out or may have: answered 2xx, or failed with an
        unknown outcome (``may_have_landed``). A write it refused (4xx) changed nothing and does not count."""
        with self._lock:
            return self._landed

    def _landed_one(self):
        with self._lock:
            self._landed += 1

    def reset_counts(self):
        with self._lock:
            self._counts = {}

    def _count(self, method):
        with self._lock:
            self._counts[method] = self._counts.get(method, 0) + 1

    # ---- transport -----------------------------------------------------------------------------
    def request(self, method, path, params=None, body=None, tag_write=False, decode=True):
        """One Engine call under the retry policy; returns the decoded JSON answer (None if empty).

        ``path`` starts with ``/api/``; ``params`` is the query (a dict or pairs); ``body`` is sent as
        JSON when not None (non-GET requests carry ``Content-Type: application/json`` even without a
        body, as go-anxcloud does); ``tag_write`` enables the 409 retry of tag writes; ``decode=False``
        does not read a successful answer (returns None), as go-anxcloud discards the answers of
        DELETE and tag writes. Raises an EngineError subclass; a write whose outcome is unknown has
        ``may_have_landed`` set and is never sent again.
        """
        method = method.upper()
        url = self.base_url + path
        shown = path + ("?" + urlencode(params, doseq=True) if params else "")
        if self.rate_limited is not None:
            raise RateLimitedError("not sent: an earlier request of this run was rate limited (%s)" % self.rate_limited,
                                   method=method, path=shown, attempts=0)
        headers = {}
        data = None
        if method not in READ_METHODS:
            headers["Content-Type"] = "application/json"
            if body is not None:
                data = json.dumps(body).encode("utf-8")
        tries = _Tries()
        while True:
            tries.attempts += 1
            resp = self._attempt(method, url, params, data, headers, shown, tries)
            if resp is None:
                continue   # a transport failure worth another attempt, backed off already
            self._count(method)
            status = resp.status_code
            if 200 <= status < 300:
                if method not in READ_METHODS:
                    self._landed_one()
                return self._decode(resp, method, shown, tries.attempts) if decode else None
            if 300 <= status < 400:
                location = redact(resp.headers.get("Location") or "nowhere", self._secrets)
                raise UnexpectedResponseError("HTTP %d redirect to %s; set api_url to the Engine's final address"
                                              % (status, location), status=status, method=method, path=shown,
                                              attempts=tries.attempts)
            retry_after = None
            if status == 429:
                retry_after = _retry_after(resp)
                self._slots.halve()   # throttled: less at once from now on, retried or not
            if not self._retried(method, status, tag_write, retry_after, tries):
                raise self._status_error(resp, method, shown, tries.attempts, retry_after)

    def _attempt(self, method, url, params, data, headers, shown, tries):
        """The answer to one attempt; None after a transport failure worth retrying (the backoff slept already).
        Raises EngineConnectionError for a transport failure that is not retried."""
        policy = self.policy
        resp, failed = self._send(method, url, params, data, headers)
        if failed is None:
            return resp
        failure, sent, reason = failed
        if sent:
            self._count(method)
        if tries.retries < policy.retries and policy.retry_transport(method, failure):
            policy.sleep(policy.backoff(tries.retries))
            tries.retries += 1
            return None
        if method not in READ_METHODS and policy.may_have_landed(method, failure):
            self._landed_one()
        # Raised here, outside the except block so it has no __context__: the requests exception holds the prepared
        # request, token header included.
        raise EngineConnectionError(redact(reason, self._secrets), method=method, path=shown, attempts=tries.attempts,
                                    may_have_landed=policy.may_have_landed(method, failure))

    def _send(self, method, url, params, data, headers):
        """``(answer, None)``, or ``(None, (failure, sent, reason))`` when the request failed on the way."""
        try:
            with self._slots:   # held while the request is in flight only, never during a backoff
                return self.session.request(method, url, params=params, data=data, headers=headers,
                                            timeout=self.timeout, verify=self.validate_certs,
                                            allow_redirects=False), None
        except self._transport_errors as exc:
            return None, _transport_failure(exc, self.timeout, self.shown_url)

    def _retried(self, method, status, tag_write, retry_after, tries):
        """Whether an error answer ``status`` is worth another attempt; if so, the delay is slept already."""
        policy = self.policy
        if status == 409 and tag_write and tries.conflicts + 1 < policy.conflict_attempts:
            # Concurrent tag writes conflict on the Engine (ENGSUP-5902); go-anxcloud retries them.
            tries.conflicts += 1
            policy.sleep(policy.conflict_delay)
            return True
        if status == 429:   # only when the Engine says when, and not too far ahead
            if retry_after is None or retry_after > policy.max_retry_after or tries.retries >= policy.retries:
                return False
            policy.sleep(retry_after)
        elif policy.retry_status(method, status) and tries.retries < policy.retries:
            policy.sleep(policy.backoff(tries.retries))
        else:
            return False
        tries.retries += 1
        return True

    def _status_error(self, resp, method, shown, attempts, retry_after):
        """The EngineError for an error answer not retried; a 429 stops the rest of the run's requests."""
        status = resp.status_code
        error = error_for(status, method, shown, _json_or_none(resp), reason=resp.reason, attempts=attempts,
                          retry_after=retry_after, secrets=self._secrets,
                          may_have_landed=self.policy.may_have_landed(method, status=status))
        if status == 429:
            self.rate_limited = error
        if method not in READ_METHODS and error.may_have_landed:
            self._landed_one()
        return error

    def _decode(self, resp, method, shown, attempts):
        if not resp.content or not resp.content.strip():
            return None
        try:
            return resp.json()
        except ValueError:
            # A write answered 2xx was carried out; only its answer is unusable.
            raise UnexpectedResponseError(
                "the answer is not JSON (Content-Type: %s)" % (resp.headers.get("Content-Type") or "none"),
                status=resp.status_code, method=method, path=shown, attempts=attempts,
                may_have_landed=method not in READ_METHODS) from None

    # ---- lists ---------------------------------------------------------------------------------
    def pages(self, path, params=None, page_size=None):
        """Every item of a paged list, in page order, whatever envelope the endpoint uses.

        Ends at the first empty page, as go-anxcloud's generic client (pkg/api/pagination.go, ``Next``)
        and Terraform (anxcloud/utils.go, ``listAllPages``) do; never at a short page, since an Engine
        may cap the page size below the one asked for. It also ends once the page read is the last one
        the Engine announces (``total_pages``), which saves the trailing empty request: legacy
        go-anxcloud trusts exactly that number (pkg/pagination/pagination.go, ``HasNext``), and it is
        only trusted when present as a non-negative integer. ``total_items`` never ends a list: it says
        nothing sure about the page size the Engine applied. A page equal to the one before (the endpoint
        ignores ``page``) ends the list as well. Once the first page says how many pages there are
        (``total_pages``, else ``total_items`` over the first page's length), the pages after it are requested
        concurrently, as many at a time as requests may be in flight (``in_flight_limit``); items still come
        in order. A count read from ``total_items`` only sends the pages out together: the end is still the
        first empty page (a wrong count must not cut the list short).
        """
        return self._pages(path, params, page_size)

    def _pages(self, path, params=None, page_size=None, nothing_on_first=(), within=None):
        limit = int(page_size or self.page_size)

        def fetch(page):
            query = sorted(dict(params or {}, page=page, limit=limit).items())
            return unwrap_page(self.request("GET", path, params=query), path)

        try:
            items, meta = fetch(1)
        except EngineError as exc:
            if exc.status in nothing_on_first:
                return
            raise
        if not items:
            return
        total_pages, known = _announced(meta, len(items))
        if within is not None and (known is None or known > within):
            raise _MorePages(known)   # before any item: the caller's bound was for the whole listing
        yield from items
        previous, page = items, 2
        while total_pages is None or page <= total_pages:
            # The pages the first answer says exist go out together (at most as many as may be in
            # flight, so a wrong count costs one batch); past them, or without a count, one by one.
            last = min(known, page + self.in_flight_limit - 1) if known is not None and page <= known else page
            for items, _meta in self.map(fetch, range(page, last + 1)):
                if not items or items == previous:
                    return
                yield from items
                previous = items
            page = last + 1

    # ---- concurrency ---------------------------------------------------------------------------
    def map(self, fn, items):
        """``[fn(item) for item in items]`` on the client's one shared pool, results in input order.

        At most ``max_workers`` calls run at once, whether the map is called by the module or inside
        a mapped function (nested maps share the pool and run concurrently too; the caller of a map
        runs items itself while it waits, so nesting cannot deadlock: _engine/_pool.py). The first
        exception (in input order) is raised after the calls already running have ended; calls not
        started yet are dropped.
        """
        return self._pool.map(fn, items)

    def start(self, fn, items):
        """``fn(item)`` for each of ``items`` on the same pool, in the background: returns at once, and
        ``.results()`` of what it returns is what ``map`` would have answered (waiting for what still runs). For
        reads whose answers are needed later in the run, sent meanwhile: they count against the same bound."""
        return self._pool.start(fn, items)

    # ---- LBaaS v1 ------------------------------------------------------------------------------
    @staticmethod
    def lbaas_path(kind, ident=None):
        if kind not in KINDS:
            raise ValueError("unknown LBaaS object type %r (known: %s)" % (kind, ", ".join(KINDS)))
        path = "/api/LBaaS/v1/%s.json" % COLLECTIONS.get(kind, kind)
        return path if ident is None else path + "/" + _ident(ident)

    def lbaas_list(self, kind, **filters):
        """``[{identifier, name, ...}, ...]`` of one kind: the whole objects where the Engine answers the listing's
        ``attributes=all`` with them, else identifier and name (_engine/_listings.py; ``listed_objects`` reads
        what an entry lacks). Filters (None values are left out) travel URL-encoded, keys sorted, inside one
        ``filters`` parameter; the LoadBalancer list takes no filters."""
        path, params = self._lbaas_listing(kind, filters)
        if self.full_listings.asks(kind):
            found = self._asking(path, params)
            if found is not None:
                return _listed(found, path)
        return _listed(list(self.pages(path, params)), path)

    def lbaas_list_within(self, kind, pages, **filters):
        """``lbaas_list`` of a listing asking for whole objects when the Engine's first page says the whole listing
        takes at most ``pages`` pages (``total_pages``, else ``total_items`` over the first page's length), the
        pages after it read as ``pages`` reads them; else None, after that first page alone. For a caller that
        would otherwise send ``pages`` narrower listings (_engine/_listings.py, ``children_by_parent``): a listing
        longer than those is not worth reading. None without a request where the listing would not ask for whole
        objects (``full_listings``): its entries would not say what the caller needs."""
        path, params = self._lbaas_listing(kind, filters)
        if not self.full_listings.asks(kind):
            return None
        try:
            found = self._asking(path, params, within=pages)
        except _MorePages as more:
            self.full_listings.longer(kind, more.known)
            return None
        return None if found is None else _listed(found, path)

    def _asking(self, path, params, within=None):
        """The items of a listing that asks for whole objects (the caller was told so by ``full_listings.asks``,
        whose ``answered`` this calls either way), or None when the Engine refused the parameter: then no listing of
        the run asks again, and the caller lists as it would have without it. ``within``: ``_pages``' bound, whose
        ``_MorePages`` passes through (the Engine answered: it takes the parameter)."""
        taken = None
        try:
            found = list(self._pages(path, dict(params, **PARAMETER), within=within))
            taken = True
            return found
        except _MorePages:
            taken = True
            raise
        except EngineError as exc:
            if not refuses_parameter(exc):
                raise
            taken = False   # this Engine knows no such parameter: the same listing without it, and never again
            return None
        finally:
            self.full_listings.answered(taken)

    def _lbaas_listing(self, kind, filters):
        """The path and query of an LBaaS listing (without ``attributes``)."""
        path = self.lbaas_path(kind)
        given = sorted((k, v) for k, v in filters.items() if v is not None)
        if kind == "loadbalancer" and given:
            raise ValueError("the LoadBalancer list takes no filters, got %s" % ", ".join(k for k, _v in given))
        return path, ({} if kind == "loadbalancer" else {"filters": urlencode(given)})

    def lbaas_get(self, kind, ident):
        path = self.lbaas_path(kind, ident)
        return _one_object(self.request("GET", path), "GET", path)

    def lbaas_get_many(self, kind, idents):
        """Full objects for ``idents`` (concurrently, in order), leaving out those answered 404: the
        identifiers come from a listing, and an object deleted since (late, or by a concurrent run) is gone,
        not an error."""
        path = self.lbaas_path(kind)   # validates kind before any thread starts
        get = gone_as_none(lambda ident: _one_object(self.request("GET", path + "/" + _ident(ident)), "GET",
                                                     path + "/" + str(ident)))
        return [obj for obj in self.map(get, idents) if obj is not None]

    def lbaas_create(self, kind, body):
        """POST; returns the full new object (with its ``identifier``)."""
        path = self.lbaas_path(kind)
        return _one_object(self.request("POST", path, body=link_ids(body)), "POST", path)

    def lbaas_update(self, kind, ident, body, redeploy=False):
        """PUT of the whole object, as go-anxcloud's generic client sends it (pkg/apis/lbaas/v1/helper.go,
        ``requestBody``): ``body`` is the full object (name, parent link, every field; an answer of
        ``lbaas_get`` will do), links become identifier strings and ``"state": "0"`` is always set,
        because the Engine serialises updates with state 0 ("Updating") and deploys them only then. Except for a
        LoadBalancer, whose body that client sends without ``state`` (two embedded fields claim the key, so Go's
        encoder drops both: pkg/apis/lbaas/v1/loadbalancer_genclient.go, loadbalancer_types.go; Terraform's
        resource_lbaas_loadbalancer.go updates through it); ``redeploy`` sends it all the same, the one way known
        to ask for a deployment. Returns the full object."""
        path = self.lbaas_path(kind, ident)
        body = update_body(body, state=redeploy or kind != "loadbalancer")
        return _one_object(self.request("PUT", path, body=body), "PUT", path, empty_ok=True)

    def lbaas_redeploy(self, kind, ident, body=None):
        """Asks the Engine to deploy the object again: the same full PUT with state "0", as the cloud
        controller recovers from DeploymentError (``updateFailedResources`` calls api.Update with the
        whole object). Without ``body`` the object is read first."""
        if body is None:
            body = self.lbaas_get(kind, ident)
        return self.lbaas_update(kind, ident, body, redeploy=True)

    def lbaas_delete(self, kind, ident):
        """True if the Engine accepted the deletion, False if the object was already gone (404).
        The answer is not read (go-anxcloud's LBaaS bindings replace it with ``{}``). The identifier
        joins ``deleted`` unless the Engine refused the deletion for sure."""
        try:
            self.request("DELETE", self.lbaas_path(kind, ident), decode=False)
        except NotFoundError:
            self.deleted.add(ident)
            return False
        except EngineError as exc:
            if exc.may_have_landed:
                self.deleted.add(ident)
            raise
        self.deleted.add(ident)
        return True

    # ---- core resources and tags ---------------------------------------------------------------
    def resources_by_tag(self, tag):
        """``[{identifier, name}, ...]`` of every resource carrying ``tag`` (the Engine's 422 means none)."""
        return _listed(list(self._pages(RESOURCES, {"tag_name": tag}, nothing_on_first=(422,))), RESOURCES)

    def resource_get(self, ident):
        """The core resource: ``resource_type``, ``tags`` as ``[{identifier, name}]``, ..."""
        path = "%s/%s" % (RESOURCES, _ident(ident))
        return _resource(self.request("GET", path), path)

    def resource_get_listed(self, idents):
        """``resource_get`` of each of ``idents`` (concurrently, in order), None for one answered 404: the
        identifiers come from a listing, and a resource deleted since is gone, not an error."""
        return self.map(gone_as_none(self.resource_get), idents)

    @staticmethod
    def tag_path(ident, tag):
        if not tag:
            raise ValueError("a tag name must not be empty")
        # Escaped as Go escapes a path (go-anxcloud formats the raw name into it): sub-delimiters,
        # ':' and '@' stay literal, anything else outside the unreserved set is percent-encoded.
        return "%s/%s/tags/%s" % (RESOURCES, _ident(ident), quote(_path_safe(tag, "tag name"), safe=PATH_KEEP))

    def resource_tags(self, ident):
        """The tag names a resource carries (read from the resource itself, not from a tag listing)."""
        return sorted(t["name"] if isinstance(t, dict) else t for t in self.resource_get(ident).get("tags") or [])

    def tag_add(self, ident, tag):
        """Tags a resource: True if added, False if it already had the tag. 409 is retried (3 attempts).

        The Engine answers 422 both for "already tagged" and for a tag it refuses (a name outside its
        character set, too long): go-anxcloud reads every 422 as done, which would let a refused lease
        or marker pass silently. So a 422 counts as "already tagged" only if the resource's tags, read
        back, show the tag; otherwise the 422 is raised. The answer of the attach is not read. An
        attach whose outcome is unknown is settled by reading (``_settle_tag_write``).
        """
        path = self.tag_path(ident, tag)

        def attach():
            try:
                with self._tag_lock:
                    self.request("POST", path, body="", tag_write=True, decode=False)   # JSON "" (null gets 400)
            except ValidationFailedError as exc:
                if exc.status == 422 and tag in self.resource_tags(ident):
                    return False
                raise
            return True
        return self._settle_tag_write(attach, ident, lambda tags: tag in tags)

    def tag_remove(self, ident, tag):
        """Untags a resource: True if removed, False if it did not have the tag (404). 409 is retried.
        The answer is not read; an outcome that is unknown is settled by reading (``_settle_tag_write``)."""
        path = self.tag_path(ident, tag)

        def detach():
            try:
                with self._tag_lock:
                    self.request("DELETE", path, tag_write=True, decode=False)
            except NotFoundError:
                return False
            return True
        return self._settle_tag_write(detach, ident, lambda tags: tag not in tags)

    def _settle_tag_write(self, write, ident, landed):
        """Runs a tag write; when it fails in a way that may have landed (5xx, a dropped connection),
        reads the resource's tags: ``landed(tags)`` -> done, else the write is sent again, at most
        ``TAG_WRITE_ATTEMPTS`` times in all. Unlike a create's, a tag write's outcome can be read
        exactly, so it is settled by observing and never sent twice blindly; a created object whose
        tag write failed would be invisible to the owner-tag listing (the cloud controller then creates a duplicate)."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return write()
            except EngineError as exc:
                if not exc.may_have_landed or attempt >= TAG_WRITE_ATTEMPTS:
                    raise
                try:
                    done = landed(self.resource_tags(ident))
                except EngineError:
                    raise exc from None   # still unknown: the caller observes
                if done:
                    return True
                self.policy.sleep(self.policy.backoff(attempt - 1))

    # ---- tag entities (account-level tags, go-anxcloud pkg/core/tags/tags.go) ----------------------
    def tag_entities(self, query=""):
        """``[{name, identifier}, ...]`` of the account's tags whose name matches ``query`` (the Engine's
        match, not necessarily exact: callers compare names themselves), every page. The query keys
        are those go-anxcloud's ``List`` sends."""
        params = {"query": query or "", "service_identifier": "", "organization_identifier": "", "order": "",
                  "sort_descending": "false"}
        return _listed(list(self.pages(TAG_ENTITIES, params)), TAG_ENTITIES, named=True)

    def tag_entity_get(self, ident):
        """One tag: ``{name, identifier, organisation_assignments: [{customer, service}]}``."""
        path = "%s/%s" % (TAG_ENTITIES, _ident(ident))
        return _an_object(self.request("GET", path), path, empty_ok=True)

    def tag_entity_delete(self, ident, service_identifier=""):
        """Deletes a tag (its assignment to ``service_identifier``, as go-anxcloud's ``Delete`` and
        Terraform's anxcloud_tag send it); True if deleted, False if it was gone (404). Serialised with
        the other tag writes; the answer is not read."""
        path = "%s/%s" % (TAG_ENTITIES, _ident(ident))
        try:
            with self._tag_lock:
                self.request("DELETE", path, params={"service_identifier": service_identifier or ""},
                             tag_write=True, decode=False)
        except NotFoundError:
            return False
        return True

    # ---- IPAM ----------------------------------------------------------------------------------
    def prefix_list(self, search=None):
        """``[{identifier, name (the CIDR), description_customer}, ...]``; ``search`` is a substring."""
        return _listed(list(self.pages(PREFIXES, {"search": search or ""})), PREFIXES, named=True)

    def prefix_get(self, ident):
        path = "%s/%s" % (PREFIXES, _ident(ident))
        return _an_object(self.request("GET", path), path)

    def address_list(self, prefix=None, version=None, search=None, status=None):
        """Address summaries; with any filter the filtered endpoint is used (``search`` is a substring,
        ``status`` e.g. ``Inactive`` or ``Marked for deletion``: summaries do not show it)."""
        filters = dict((k, v) for k, v in (("prefix", prefix), ("version", version), ("search", search),
                                           ("status", status)) if v not in (None, ""))
        if filters:
            return _listed(list(self.pages(ADDRESSES_FILTERED, filters)), ADDRESSES_FILTERED, named=True)
        return _listed(list(self.pages(ADDRESSES, {"search": ""})), ADDRESSES, named=True)

    def address_get(self, ident):
        path = "%s/%s" % (ADDRESSES, _ident(ident))
        return _an_object(self.request("GET", path), path)

    def address_create(self, prefix_id, address, description="", role="Default", rdns_name="", organization=""):
        """Creates one specific address in a prefix; returns its summary (with ``identifier``)."""
        body = {"prefix": prefix_id, "name": address, "description_customer": description or "", "role": role,
                "organization": organization or "", "rdns_name": rdns_name or ""}
        return self.request("POST", ADDRESSES, body=body)

    def address_update(self, ident, name, description="", role="Default", rdns_name=""):
        """Updates an address object; returns its summary. Every field is sent, an empty description
        too (so a claim can be undone), as Terraform's update sends description_customer, role and
        rdns_name (anxcloud/resource_ip_address.go)."""
        body = {"name": name, "description_customer": description or "", "role": role or "Default",
                "rdns_name": rdns_name or ""}
        return self.request("PUT", "%s/%s" % (ADDRESSES, _ident(ident)), body=body)

    def address_delete(self, ident):
        """True if the Engine accepted the deletion, False if the address was already gone (404)."""
        try:
            self.request("DELETE", "%s/%s" % (ADDRESSES, _ident(ident)), decode=False)
        except NotFoundError:
            return False
        return True

    def address_reserve_random(self, location_id, vlan_id, count=1, prefix_id=None, version=None,
                               reservation_period=None):
        """Reserves ``count`` free addresses of a VLAN (optionally of one prefix / IP version);
        returns ``[{identifier, text (the IP), prefix}, ...]``. A 409 (not ready yet) is raised."""
        body = {"location_identifier": location_id, "vlan_identifier": vlan_id, "count": count}
        for key, value in (("prefix_identifier", prefix_id), ("ip_version", version),
                           ("reservation_period", reservation_period)):
            if value is not None:
                body[key] = value
        items, _meta = unwrap_page(self.request("POST", RESERVE_RANDOM, body=body), RESERVE_RANDOM)
        return items

    def vlan_get(self, ident):
        """The VLAN (its ``locations[0].identifier`` is what a reservation needs)."""
        path = "%s/%s" % (VLANS, _ident(ident))
        return _an_object(self.request("GET", path), path)


# ---- helpers -----------------------------------------------------------------------------------
class _MorePages(Exception):
    """A listing read ``within`` a number of pages announced more (or did not say how many): ``_pages`` stops."""
    def __init__(self, known):
        super().__init__("the listing announces %s pages" % ("unknown" if known is None else known))
        self.known = known


def unwrap_page(body, path=None):
    """(items, page metadata) from any list envelope of the Engine (docs/engine-api-facts.md, "Lists and paging"):
    a wrapped page ``{state, messages, data: {page keys, data: [...]}}``, a bare page
    ``{page keys, data: [...]}`` (also the prefix list's top-level ``data``), or a plain array."""
    if isinstance(body, list):
        return body, {}
    if isinstance(body, dict) and "data" in body:
        data = body["data"]
        if isinstance(data, list):                                               # bare page
            return data, dict((k, body.get(k)) for k in PAGE_KEYS)
        if data is None:
            return [], dict((k, body.get(k)) for k in PAGE_KEYS)
        if isinstance(data, dict) and isinstance(data.get("data", []), list):    # wrapped page
            return data.get("data") or [], dict((k, data.get(k)) for k in PAGE_KEYS)
    shape = type(body).__name__ if not isinstance(body, dict) else "object with keys %s" % ", ".join(sorted(body))
    raise UnexpectedResponseError("not a list answer (%s)" % shape, method="GET", path=path)


def _one_object(body, method, path, empty_ok=False):
    """An LBaaS object answer: a JSON object with an identifier. Anything else (a list, a page, an object
    without identifier) fails naming the request, rather than deep inside the caller; a write answered so
    was carried out, so it may have landed. ``empty_ok``: an empty answer (None) is passed on."""
    if body is None and empty_ok:
        return None
    if isinstance(body, dict) and isinstance(body.get("identifier"), str) and body["identifier"].strip():
        return body
    raise UnexpectedResponseError("expected one object with an identifier, got %s" % _shape(body), method=method,
                                  path=path, may_have_landed=method not in READ_METHODS)


def _listed(items, path, named=False):
    """List items must each be an object with an identifier (the callers read details by it), and with a
    ``name`` string when ``named`` (tag entities, prefixes and addresses: the callers compare names). An
    item of another shape fails naming the list, rather than as a TypeError deep inside a caller."""
    for index, item in enumerate(items):
        if not (isinstance(item, dict) and isinstance(item.get("identifier"), str) and item["identifier"].strip()
                and (not named or isinstance(item.get("name"), str))):
            raise UnexpectedResponseError("expected list items with an identifier%s, got %s as item %d"
                                          % (" and a name" if named else "", _shape(item), index),
                                          method="GET", path=path)
    return items


def _an_object(body, path, empty_ok=False):
    """The answer of a read that must be one JSON object (``empty_ok``: or nothing)."""
    if isinstance(body, dict) or (body is None and empty_ok):
        return body
    raise UnexpectedResponseError("expected one object, got %s" % _shape(body), method="GET", path=path)


def _resource(body, path):
    """A core resource: an object whose ``resource_type`` (when present) is an object, and whose ``tags``
    (when present) are tag objects with a name, or names."""
    kind = _an_object(body, path).get("resource_type")
    if kind is not None and not isinstance(kind, dict):
        raise UnexpectedResponseError("expected the resource's resource_type as an object, got %s" % _shape(kind),
                                      method="GET", path=path)
    tags = body.get("tags")
    if tags is None:
        return body
    if not isinstance(tags, list):
        raise UnexpectedResponseError("expected the resource's tags as a list, got %s" % _shape(tags),
                                      method="GET", path=path)
    for index, tag in enumerate(tags):
        if not (isinstance(tag, str) or (isinstance(tag, dict) and isinstance(tag.get("name"), str))):
            raise UnexpectedResponseError("expected the resource's tags as objects with a name, got %s as tag %d"
                                          % (_shape(tag), index), method="GET", path=path)
    return body


def _shape(body):
    if isinstance(body, dict):
        return "an object with keys %s" % (", ".join(sorted(str(k) for k in body)) or "none")
    if isinstance(body, list):
        return "a list of %d item%s" % (len(body), "" if len(body) == 1 else "s")
    if isinstance(body, str):
        return "a string %r" % (body if len(body) <= 40 else body[:37] + "...")
    return "nothing" if body is None else "a %s" % type(body).__name__


def link_ids(body):
    """A request body with linked objects given as ``{identifier, ...}`` replaced by the identifier."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    for key in LINK_FIELDS:
        if isinstance(out.get(key), dict) and "identifier" in out[key]:
            out[key] = out[key]["identifier"]
    return out


def update_body(body, state=True):
    """The body of an update or redeploy: the whole object, links as identifiers, ``"state": "0"``
    (whatever ``state`` the object had: a read object carries its state as ``{id, title, type}``); with
    ``state`` false no ``state`` at all (a LoadBalancer's, ``lbaas_update``)."""
    if not isinstance(body, dict) or not body.get("name"):
        raise ValueError("an update sends the whole object, name included (go-anxcloud's generic client)")
    out = link_ids(body)
    out.pop("state", None)
    if state:
        out["state"] = "0"
    return out


def _path_safe(value, what):
    text = str(value)
    bad = sorted(set(c for c in text if c in PATH_UNSAFE or ord(c) < 32))
    if bad:
        raise UnsafeRequestError("%s %r contains %s, which would change the URL path"
                                 % (what, text, " ".join(repr(c) for c in bad)))
    return text


def _ident(ident):
    if ident is None or not str(ident).strip():
        raise ValueError("an object identifier must not be empty")
    return quote(_path_safe(ident, "identifier"), safe="")


def _count_value(value):
    """A non-negative JSON integer from page metadata, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _announced(meta, page_length):
    """``(total_pages, known)`` of a first page's metadata: the pages the Engine announces (None: not said), and how
    many there are as far as it tells (``total_pages``, else ``total_items`` over the first page's length; None)."""
    total_pages = _count_value(meta.get("total_pages"))
    return total_pages, total_pages if total_pages is not None else _pages_of(meta.get("total_items"), page_length)


def _pages_of(total_items, page_length):
    """How many pages ``total_items`` (page metadata) make at the first page's length, else None."""
    total = _count_value(total_items)
    if total is None or not page_length:
        return None
    return (total + page_length - 1) // page_length


def _json_or_none(resp):
    try:
        return resp.json() if resp.content else None
    except ValueError:
        return None


def _retry_after(resp):
    return parse_retry_after(resp.headers.get("Retry-After"))


def _root_cause(exc):
    """The urllib3 error behind a requests exception (requests wraps MaxRetryError wraps the cause)."""
    cause = exc.args[0] if exc.args else exc
    return getattr(cause, "reason", None) or cause


# What OpenSSL says when the other end answers a TLS hello in plain text (an http:// server).
PLAIN_HTTP = re.compile(r"WRONG_VERSION_NUMBER|wrong version number|record layer failure|packet length too long"
                        r"|http request|unknown protocol", re.I)


def _transport_failure(exc, timeout, url=None):
    """(failure, sent, reason) for a requests exception; ``failure`` as in _engine/_retry.py TRANSPORT_FAILURES,
    ``sent`` whether the request may have reached the Engine (then it counts), ``reason`` for humans,
    naming ``url`` (the api_url without userinfo)."""
    failure, sent, reason = _transport_reason(exc, timeout, url)
    return failure, sent, ("%s (api_url %s)" % (reason, url) if url else reason)


def _transport_reason(exc, timeout, url):
    errors = requests.exceptions
    if isinstance(exc, errors.SSLError):
        cause = _root_cause(exc)
        if PLAIN_HTTP.search(str(cause)):
            return "fatal", False, ("TLS handshake failed: the endpoint speaks plain http, not https (%s); use an "
                                    "http:// api_url (allowed for loopback hosts, else with allow_insecure_http=true)"
                                    % cause)
        if "CERTIFICATE_VERIFY_FAILED" in str(cause) or "certificate verify failed" in str(cause):
            return "fatal", False, "TLS certificate not trusted (%s); validate_certs=false skips verification" % cause
        return "fatal", False, "TLS error (%s)" % cause
    if isinstance(exc, errors.ConnectTimeout):
        return "unsent", False, "connection timed out" + (" after %s s" % timeout if timeout else "")
    if isinstance(exc, errors.ReadTimeout):
        return "timeout", True, "no answer within %s s" % timeout if timeout else "no answer"
    if isinstance(exc, errors.ConnectionError):
        cause = _root_cause(exc)
        if isinstance(cause, NewConnectionError):
            text = str(cause)
            match = re.search(r"(Failed to (?:establish a new connection|resolve).*)$", text)
            return "unsent", False, match.group(1) if match else text
        return "dropped", True, "the connection was closed without an answer (%s)" % _short(cause)
    if isinstance(exc, (errors.ChunkedEncodingError, errors.ContentDecodingError)):
        return "broken", True, "the answer was cut off or garbled (%s)" % _short(_root_cause(exc))
    return "fatal", False, "%s: %s" % (type(exc).__name__, exc)


def _short(exc):
    text = str(exc)
    return "%s: %s" % (type(exc).__name__, text) if text else type(exc).__name__
