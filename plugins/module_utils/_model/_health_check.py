# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A backend's health check: the structured form users write -> the Engine's fragment (pure, no I/O).

The Engine stores ``health_check`` as text holding a JSON fragment without its braces, the form
go-anxcloud's legacy package sends (docs/engine-api-facts.md, "Backend health checks"): ``"adv_check": "tcp-check"`` or
``"httpchk": { "method": "GET", "uri": "/" }``. It returns the text verbatim and compares nothing, so
the structured form renders exactly the text the collection has always sent for the same check
(no churn on existing backends). A raw string is still accepted, but only in that fragment form: a
HAProxy directive like ``option httpchk GET /healthz`` would be stored and then fail the deployment.
"""

import json
import re

from ._failure import Failure

TCP_CHECK = '"adv_check": "tcp-check"'
HTTP_CHECK = '"httpchk": { "method": "GET", "uri": "/" }'
HTTP_TEMPLATE = '"httpchk": { "method": %s, "uri": %s }'

# One HTTP token (RFC 9110) and a path without spaces or control characters: what HAProxy's
# ``option httpchk <method> <uri>`` takes as two words.
METHOD_RE = re.compile(r"^[A-Z][A-Z0-9_-]{0,31}$")
URI_RE = re.compile(r"^/[\x21-\x7e]{0,1023}$")
WORD_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
KEYS = {"tcp": ("type",), "http": ("type", "method", "uri")}
STRUCTURED = "health_check: {type: http, method: GET, uri: /healthz} or {type: tcp}"


def default(mode):
    """The check of a fresh port of ``mode`` (go-anxcloud's legacy defaults)."""
    return HTTP_CHECK if mode == "http" else TCP_CHECK


def render(value, option="health_check"):
    """The Engine's fragment for ``value`` (a dict in the structured form, or a fragment string); None stays None.

    Raises Failure naming ``option`` for anything else, before any request is sent.
    """
    if value is None:
        return None
    if isinstance(value, dict):
        return _structured(value, option)
    if not isinstance(value, str):
        raise Failure("%s must be a mapping like %s, got %r" % (option, STRUCTURED.split(": ", 1)[1], value),
                      option=option)
    return check_fragment(value, option)


def _structured(value, option):
    kind = value.get("type")
    if kind not in KEYS:
        raise Failure("%s.type must be http or tcp, got %r (%s)" % (option, kind, STRUCTURED), option=option)
    unknown = sorted(str(k) for k in value if k not in KEYS[kind] and value[k] is not None)
    if unknown:
        raise Failure("%s: unknown key%s %s for type %s; the keys are: %s"
                      % (option, "s" if len(unknown) > 1 else "", ", ".join(unknown), kind, ", ".join(KEYS[kind])),
                      option=option)
    if kind == "tcp":
        return TCP_CHECK
    method = value.get("method") or "GET"
    uri = value.get("uri") or "/"
    if not isinstance(method, str) or not METHOD_RE.match(method):
        raise Failure("%s.method must be an HTTP method in capitals like GET or HEAD, got %r" % (option, method),
                      option=option)
    if not isinstance(uri, str) or not URI_RE.match(uri):
        raise Failure("%s.uri must be a path starting with '/' without spaces, got %r" % (option, uri), option=option)
    if (method, uri) == ("GET", "/"):
        return HTTP_CHECK   # byte for byte what a port of mode http has always been given
    return HTTP_TEMPLATE % (json.dumps(method), json.dumps(uri))


def check_fragment(text, option="health_check"):
    """``text`` unchanged if it is the Engine's fragment form, else a Failure naming the structured form."""
    stripped = text.strip()
    if not stripped:
        raise Failure("%s must not be empty; leave it out for the mode's default, or write %s" % (option, STRUCTURED),
                      option=option)
    if stripped.lower().startswith("option ") or stripped.lower() in ("tcp-check", "httpchk"):
        raise Failure("%s: %r is a HAProxy directive, which the Engine does not take; write %s "
                      "(or the Engine's fragment form, for example '%s')" % (option, text, STRUCTURED, TCP_CHECK),
                      option=option)
    try:
        spec = json.loads("{%s}" % stripped)
    except ValueError:
        spec = None
    if not isinstance(spec, dict) or not spec:
        raise Failure("%s: %r is not the Engine's fragment form (like '%s'); write %s"
                      % (option, text, TCP_CHECK, STRUCTURED), option=option)
    problem = _fragment_problem(spec)
    if problem:
        raise Failure("%s: %r %s; write %s" % (option, text, problem, STRUCTURED), option=option)
    return text


def _fragment_problem(spec):
    unknown = sorted(k for k in spec if k not in ("adv_check", "httpchk"))
    if unknown or len(spec) != 1:
        return "must hold exactly one of adv_check and httpchk" + (", not %s" % ", ".join(unknown) if unknown else "")
    if "adv_check" in spec:
        check = spec["adv_check"]
        if not isinstance(check, str) or not WORD_RE.match(check):
            return "needs adv_check to be one HAProxy check name, like tcp-check or ssl-hello-chk"
        return None
    return _httpchk_problem(spec["httpchk"])


def _httpchk_problem(httpchk):
    if not isinstance(httpchk, dict) or any(k not in ("method", "uri") for k in httpchk):
        return "needs httpchk to be an object with method and uri"
    method, uri = httpchk.get("method", "GET"), httpchk.get("uri", "/")
    if not isinstance(method, str) or not METHOD_RE.match(method):
        return "needs httpchk.method to be an HTTP method in capitals like GET"
    if not isinstance(uri, str) or not URI_RE.match(uri):
        return "needs httpchk.uri to be a path starting with '/' without spaces"
    return None


# A server's ``check`` as the Engine stores it, from what users write: the Engine's words, or a YAML boolean
# (``check: true``), which reads as "run the health check".
SERVER_CHECKS = {"enabled": "enabled", "disabled": "disabled", True: "enabled", False: "disabled"}
SERVER_CHECK_WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


def server_check(value, option="check"):
    """``enabled`` or ``disabled`` for ``value`` (those words, or true/false); None stays None."""
    if value is None:
        return None
    key = value.strip().lower() if isinstance(value, str) else value
    key = SERVER_CHECK_WORDS.get(key, key) if isinstance(key, str) else key
    if isinstance(key, (str, bool)) and key in SERVER_CHECKS:
        return SERVER_CHECKS[key]
    raise Failure("%s must be enabled or disabled (or true/false), got %r" % (option, value))
