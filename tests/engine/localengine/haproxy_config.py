"""One load balancer's deployed LBaaS objects -> an HAProxy configuration file (pure, no I/O).

Proxies, servers and ACLs are named after identifiers (``fe_<id>``, ``be_<id>``, ``srv_<id>``,
``acl_<id>``): Engine names need not be unique and may hold characters HAProxy refuses; the names go
into comments. Every line
remembers the object it came from, so an HAProxy alert naming ``file:line`` (or an identifier) points
at the objects to put into DeploymentError. What HAProxy would misread or what could inject
configuration lines is refused here, per object, with a reason.

Decisions where the Engine's behaviour is unknown (tests/engine/README.md, "HAProxy mode"):
- ``health_check`` is the JSON fragment the clients send (docs/engine-api-facts.md, Backend health checks): ``"adv_check": "tcp-check"``
  -> ``option tcp-check``, ``"httpchk": {"method": "GET", "uri": "/"}`` (or ``"adv_check": "httpchk"``)
  -> ``option httpchk GET /``, another ``adv_check`` value X -> ``option X`` (HAProxy judges it);
  no health check -> the HTTP check ``GET /`` (the Engine's default, see plugins' _service.TCP_CHECK).
- timeouts: a bare number is milliseconds, as the collection documents them (and as HAProxy reads a bare
  number); a value with a unit passes as HAProxy reads it.
- ACLs: ``acl acl_<id> <criterion> <value>`` in their frontend or backend, by ``index`` (ties: oldest
  first). A rule names ACLs by Engine name, and ACLs of one parent sharing a name are one HAProxy ACL
  (HAProxy ORs lines of the same name), so ``condition_test`` N becomes ``acl_<a> || acl_<b>`` over the
  parent's rendered ACLs named N. Connection rules: ``tcp-request connection <action> <if|unless> ...``
  in the frontend by ``index``, before ``default_backend``; a rule whose ACLs are not rendered (yet)
  waits, as a bind waits for its frontend.
- a frontend or backend with ``enable`` false gets HAProxy's ``disabled`` keyword: a disabled frontend does not listen
  (connections to its binds are refused), a disabled backend takes no traffic (the frontends using it close the
  connections they accept, HTTP ones answer 503).
"""
import ipaddress
import json
import re

SAFE_WORD = re.compile(r"^[A-Za-z0-9._/-]+$")     # option names, HTTP methods: no spaces, no newlines
SAFE_URI = re.compile(r"^/[!-~]*$")                # printable, no spaces
BARE_NUMBER = re.compile(r"^\d+$")
ACL_VALUE = re.compile(r"^[0-9A-Fa-f:./]+$")       # an address, network or port: what the API accepts
CRITERIA = ("src", "dst_port")


class Rendered:
    """The text, the object behind each line (1-based), and objects refused with their reason."""

    def __init__(self):
        self.lines = []
        self.owner = {}
        self.refused = {}

    def add(self, line, ident=None):
        self.lines.append(line)
        if ident:
            self.owner[len(self.lines)] = ident

    @property
    def included(self):
        return set(self.owner.values())

    @property
    def text(self):
        return "\n".join(self.lines) + "\n"


def comment(text):
    """A name as a comment: printable characters only, so it cannot end the comment line."""
    return "".join(c if c.isprintable() else "?" for c in str(text))


def health_check(text):
    """HAProxy lines for a backend's health_check, or ValueError with the reason."""
    if text is None or not str(text).strip():
        return ["option httpchk GET /"]
    try:
        spec = json.loads("{%s}" % text)
    except ValueError:
        raise ValueError("health_check %r is not a JSON fragment like '\"adv_check\": \"tcp-check\"'" % text)
    check = spec.get("adv_check")
    httpchk = spec.get("httpchk")
    if check is None and httpchk is None:
        raise ValueError("health_check %r names neither adv_check nor httpchk" % text)
    if httpchk is not None or check == "httpchk":
        httpchk = httpchk if isinstance(httpchk, dict) else {}
        method, uri = str(httpchk.get("method", "GET")), str(httpchk.get("uri", "/"))
        if not SAFE_WORD.match(method) or not SAFE_URI.match(uri):
            raise ValueError("health_check %r: method must be one word and uri a path without spaces" % text)
        return ["option httpchk %s %s" % (method, uri)]
    if not isinstance(check, str) or not SAFE_WORD.match(check):
        raise ValueError("health_check %r: adv_check must be one word" % text)
    return ["option %s" % check]


def timeout(value, what):
    text = str(value).strip()
    if not text or not SAFE_WORD.match(text):
        raise ValueError("%s %r is not a time" % (what, value))
    return text + "ms" if BARE_NUMBER.match(text) else text


def disabled(doc):
    """Whether a frontend or backend is switched off (``enable`` false, or 0 as the legacy client writes it)."""
    return doc.get("enable") in (False, 0)


def endpoint(ip, port):
    """address:port with HAProxy's family prefix (an IPv6 address holds colons itself)."""
    family = "ipv6" if ipaddress.ip_address(ip).version == 6 else "ipv4"
    return "%s@%s:%d" % (family, ip, port)


def by_index(docs, link, parent):
    """A parent's ACLs or rules in ``index`` order (a stable sort: equal indexes keep the given order)."""
    return sorted((doc for doc in docs if doc.get(link) == parent), key=lambda doc: doc.get("index") or 0)


def acl_lines(out, acls, link, parent):
    """Adds a parent's ACL lines; {Engine name: [HAProxy ACL names]} of those rendered."""
    names = {}
    for acl in by_index(acls, link, parent):
        ident, value = acl["identifier"], str(acl.get("value"))
        if acl.get("criterion") not in CRITERIA or not ACL_VALUE.match(value):
            out.refused[ident] = "ACL %s %r is not a criterion and value the renderer knows" % (acl.get("criterion"), value)
            continue
        out.add("    # acl %s" % comment(acl.get("name")), ident)
        out.add("    acl acl_%s %s %s" % (ident, acl["criterion"], value), ident)
        names.setdefault(acl.get("name"), []).append("acl_" + ident)
    return names


def rule_lines(out, rules, parent, acl_names):
    """Adds a frontend's connection rules; a rule none of whose ACLs is rendered waits."""
    for rule in by_index(rules, "frontend", parent):
        ident = rule["identifier"]
        named = acl_names.get(rule.get("condition_test"))
        if not named:
            continue
        if rule.get("type") != "connection" or rule.get("action") not in ("accept", "reject") or \
                rule.get("condition") not in ("if", "unless"):
            out.refused[ident] = "rule %s %s %s is not a connection rule the renderer knows" % (
                rule.get("type"), rule.get("action"), rule.get("condition"))
            continue
        out.add("    # rule %s" % comment(rule.get("name")), ident)
        out.add("    tcp-request connection %s %s %s" % (rule["action"], rule["condition"], " || ".join(named)), ident)


def render(lb, backends, frontends, binds, servers, acls=(), rules=()):
    """``backends``/``frontends``/``binds``/``servers``/``acls``/``rules``: the docs to deploy. Refused
    objects are left out (with their children) and listed in ``refused``; a frontend whose default
    backend is not rendered waits, with its binds (``included`` tells what made it into the text)."""
    out = Rendered()
    out.add("# load balancer %s (%s), rendered by the local Engine" % (comment(lb.get("name")), lb["identifier"]))
    rendered_backends = set()
    for backend in backends:
        ident = backend["identifier"]
        try:
            lines = health_check(backend.get("health_check"))
            if backend.get("server_timeout"):
                lines.append("timeout server %s" % timeout(backend["server_timeout"], "server_timeout"))
        except ValueError as exc:
            out.refused[ident] = str(exc)
            continue
        rendered_backends.add(ident)
        out.add("")
        out.add("# backend %s" % comment(backend.get("name")), ident)
        out.add("backend be_%s" % ident, ident)
        if backend.get("mode"):
            out.add("    mode %s" % backend["mode"], ident)
        if disabled(backend):
            out.add("    disabled", ident)   # the frontends using it close the connections they accept
        out.add("    balance roundrobin", ident)
        for line in lines:
            out.add("    " + line, ident)
        acl_lines(out, acls, "backend", ident)
        for server in servers:
            if server["backend"] != ident:
                continue
            out.add("    # server %s" % comment(server.get("name")), server["identifier"])
            check = " check" if server.get("check") == "enabled" else ""
            out.add("    server srv_%s %s%s" % (server["identifier"], endpoint(server["ip"], server["port"]), check),
                    server["identifier"])
    for frontend in frontends:
        ident = frontend["identifier"]
        if frontend.get("default_backend") and frontend["default_backend"] not in rendered_backends:
            continue   # waits for its default backend, as its binds wait for it
        try:
            client = timeout(frontend["client_timeout"], "client_timeout") if frontend.get("client_timeout") else None
        except ValueError as exc:
            out.refused[ident] = str(exc)
            continue
        out.add("")
        out.add("# frontend %s" % comment(frontend.get("name")), ident)
        out.add("frontend fe_%s" % ident, ident)
        if frontend.get("mode"):
            out.add("    mode %s" % frontend["mode"], ident)
        if disabled(frontend):
            out.add("    disabled", ident)   # HAProxy does not listen on its binds: connections are refused
        if client:
            out.add("    timeout client %s" % client, ident)
        rule_lines(out, rules, ident, acl_lines(out, acls, "frontend", ident))
        if frontend.get("default_backend"):
            out.add("    default_backend be_%s" % frontend["default_backend"], ident)
        for bind in binds:
            if bind["frontend"] != ident:
                continue
            ssl = ""
            if bind.get("ssl"):
                path = bind.get("ssl_certificate_path")
                if path is not None and not (isinstance(path, str) and path.isprintable() and " " not in path):
                    out.refused[bind["identifier"]] = "ssl_certificate_path %r is not a file path" % path
                    continue
                ssl = " ssl" + (" crt %s" % path if path else "")
            out.add("    # bind %s" % comment(bind.get("name")), bind["identifier"])
            out.add("    bind %s%s" % (endpoint(bind["address"], bind["port"]), ssl), bind["identifier"])
    return out
