"""Input and connection errors that name the fix (issue 18, points 7 and 8). The modules' own refusals and
convergence run each module as its own process (the ``module`` fixture); ansible-playbook runs only where the
controller is part of the claim: what it shows of a templated secret, the environment (proxies, no token) it
hands on, and the role's argument spec.

Refused input sends no request at all (the local Engine's request log); health checks written in the
structured form converge to exactly the Engine objects their fragment form gives; plain-http calls never
go through a proxy from the environment.
"""
import json
import socket
import threading
import time

import requests

from . import engine_state as es
from .conftest import module_tasks

HTTP_HEALTHZ = '"httpchk": { "method": "GET", "uri": "/healthz" }'
TCP_CHECK = '"adv_check": "tcp-check"'
STRUCTURED = "health_check: {type: http, method: GET, uri: /healthz} or {type: tcp}"


def failing(module, args, name=None):
    """A task of ``module`` that may fail without ending the play."""
    return {"name": name or module, "anxcloud.lbaas.%s" % module: args, "ignore_errors": True}


def message(play, index):
    """The message of the ``index``-th task, which must have failed without a traceback."""
    assert play.failed(index), play
    result = play[index]
    assert "Traceback" not in result.get("exception", "") and "Traceback" not in play.proc.stdout
    return result["msg"]


def free_port():
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def service(name, **port):
    return {"name": name, "load_balancers": ["lb1"], "addresses": ["127.0.10.21"],
            "ports": [dict({"name": "http", "port": 18090, "mode": "http"}, **port)],
            "servers": [{"name": "n1", "address": "127.0.0.1"}]}


def test_input_that_cannot_be_right_is_refused_naming_the_fix_before_any_request(engine, module):
    """The module's own refusals, each module run as its own process (no controller); a URL the controller
    templates is in test_connection_errors_name_the_url_and_the_fix_and_plain_http_skips_proxies."""
    engine.reset_requests()

    def refused(name, args):
        return module(name, args).message()

    assert refused("backend", {"load_balancer": "lb1", "name": "80.web", "health_check": "option httpchk GET /healthz"}) == (
        "health_check: 'option httpchk GET /healthz' is a HAProxy directive, which the Engine does not take; write "
        + STRUCTURED + " (or the Engine's fragment form, for example '\"adv_check\": \"tcp-check\"')")

    bad = {"name": "t", "port": 18091, "health_check": "option tcp-check"}
    assert refused("service", dict(service("web"), ports=[bad])).startswith(
        "ports[0].health_check: 'option tcp-check' is a HAProxy directive")
    bad = {"name": "h", "port": 18092, "health_check": {"type": "https"}}
    assert refused("service", dict(service("web"), ports=[bad])) == (
        "ports[0].health_check.type must be http or tcp, got 'https' (%s)" % STRUCTURED)
    assert refused("backend", {"load_balancer": "lb1", "name": "80.web", "health_check": "httpchk GET /"}) == (
        "health_check: 'httpchk GET /' is not the Engine's fragment form (like '%s'); write %s"
        % (TCP_CHECK, STRUCTURED))
    # Ansible's own message first, then the misspelt option behind it with the closest known one
    assert refused("service", {"name": "web", "load_balancer": ["lb1"]}) == (
        "missing required arguments: load_balancers. Unsupported parameters: load_balancer. "
        "Did you mean: load_balancer -> load_balancers?")
    misspelt = refused("backend", {"load_balancer": "lb1", "name": "80.web", "helth_check": {"type": "tcp"}})
    assert misspelt.startswith("Unsupported parameters for (anxcloud.lbaas.backend) module: helth_check. "
                               "Supported parameters include: ")
    assert misspelt.endswith(". Did you mean: helth_check -> health_check?")
    misspelt = refused("service", dict(service("web"), ports=[{"port": 18093, "helth_check": {"type": "tcp"}}]))
    assert misspelt.startswith("Unsupported parameters for (anxcloud.lbaas.service) module: ports.helth_check.")
    assert misspelt.endswith("Did you mean: ports.helth_check -> ports.health_check?")
    assert refused("service", service("web.prod")) == (
        "name must be 1-63 letters, digits, '-' or '_', starting and ending with a letter or digit (no '.': it "
        "separates the parts of object names), got 'web.prod'")
    assert engine.requests()["total"] == 0


class Proxy:
    """A loopback listener standing in for HTTP_PROXY: counts the connections it gets, answers none."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.connections = 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stopped.is_set():
            try:
                conn, _addr = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self):
        self.stopped.set()
        self.thread.join(5)
        self.sock.close()


PROXY_VARIABLES = ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY",
                   "http_proxy")


def test_connection_errors_name_the_url_and_the_fix_and_plain_http_skips_proxies(engine, ansible, monkeypatch):
    proxy = Proxy()
    try:
        proxy_env = {"HTTP_PROXY": proxy.url, "http_proxy": proxy.url}
        port = engine.url.rsplit(":", 1)[1]
        # The control: a client that honours the environment sends a plain-http call to the loopback Engine
        # through this proxy (which never answers), so a run that reaches the Engine did not use it.
        with monkeypatch.context() as patch:
            for name in PROXY_VARIABLES:
                patch.delenv(name, raising=False)
            for name, value in proxy_env.items():
                patch.setenv(name, value)
            with requests.Session() as session:
                try:
                    session.get(engine.url + "/api/LBaaS/v1/loadbalancer.json", timeout=2)
                except requests.RequestException:
                    pass
        assert proxy.connections == 1

        plain_env = ansible.env

        def env_with_proxy(token=True):
            out = dict((k, v) for k, v in plain_env(token).items() if k not in PROXY_VARIABLES)
            out.update(proxy_env)
            return out
        monkeypatch.setattr(ansible, "env", env_with_proxy)
        engine.reset_requests()

        token = {"api_token": engine.token, "api_retries": 0, "api_timeout": 5}
        down = "http://127.0.0.1:%d" % free_port()
        https = engine.url.replace("http://", "https://")
        tasks = [
            failing("loadbalancer_info", {}, name="no token"),
            failing("loadbalancer_info", dict(token, api_url="{{ url_with_password }}"), name="unreachable"),
            failing("loadbalancer_info", dict(token, api_url=https), name="https to plain http"),
            {"name": "through no proxy", "anxcloud.lbaas.loadbalancer_info": dict(token, api_url=engine.url)},
            # refused before any request: a URL the controller templates, with a password in it
            failing("backend", dict(token, load_balancer="lb1", name="80.web", api_url="{{ engine_with_password }}"),
                    name="not loopback"),
        ]
        started = time.monotonic()
        # extra vars: ansible-core 2.19 shows a failed task's lines of the playbook (the user's own text)
        secret_url = json.dumps({"url_with_password": down.replace("http://", "http://ops:pa55-word@"),
                                 "engine_with_password": "http://user:s3cret-pw@engine.localhost:%s" % port})
        play = ansible.run(tasks, token=False, extra_args=("-e", secret_url))
        assert time.monotonic() - started < 120
        assert len(play.records) == len(tasks), play
    finally:
        proxy.close()

    assert message(play, 0) == ("missing required arguments: api_token. api_token: set the api_token option (for "
                                "example under module_defaults for group/anxcloud.lbaas.lbaas) or the ANEXIA_TOKEN "
                                "environment variable.")
    assert play.requests(engine, 0) == []
    unreachable = message(play, 1)
    assert unreachable.startswith("GET /api/LBaaS/v1/loadbalancer.json")
    assert "could not reach the Engine" in unreachable and unreachable.endswith("(api_url %s)" % down), unreachable
    assert "pa55-word" not in play.proc.stdout + play.proc.stderr + repr(play.records)
    plain = message(play, 2)
    assert "the endpoint speaks plain http, not https" in plain and "(api_url %s)" % https in plain, plain
    assert "validate_certs" not in plain
    assert not play.failed(3) and [lb["name"] for lb in play[3]["load_balancers"]][:1] == ["lb1"], play[3]
    assert proxy.connections == 1   # only the control's
    assert [e["method"] for e in play.requests(engine, 3)] and engine.token not in play.proc.stdout
    # *.localhost is not trusted as loopback, and the URL is shown without its userinfo
    assert message(play, 4) == ("api_url http://engine.localhost:%s is plain http:// to a host that is not loopback: "
                                "the API token would travel unencrypted; use https://, or set allow_insecure_http=true "
                                "if the network is trusted" % port)
    assert play.requests(engine, 4) == []
    assert "s3cret-pw" not in play.proc.stdout + play.proc.stderr + repr(play.records)


def structured_checks():
    """Service hc with an http and a tcp port, their health checks in the structured form."""
    structured = service("hc", health_check={"type": "http", "method": "GET", "uri": "/healthz"})
    structured["ports"].append({"name": "tcp", "port": 18094, "health_check": {"type": "tcp"}})
    return structured


def test_a_structured_health_check_converges_reruns_without_writes_and_equals_its_fragment(engine, module):
    structured = structured_checks()
    raw = service("hc", health_check=HTTP_HEALTHZ)
    raw["ports"].append({"name": "tcp", "port": 18094, "health_check": TCP_CHECK})
    backend = {"load_balancer": "lb1", "name": "90.one", "mode": "http", "owner": "one"}
    engine.reset_requests()
    play = module_tasks(module, [
        {"anxcloud.lbaas.service": structured}, {"anxcloud.lbaas.service": structured}, {"anxcloud.lbaas.service": raw},
        {"anxcloud.lbaas.backend": dict(backend, health_check={"type": "http", "uri": "/healthz"})},
        {"anxcloud.lbaas.backend": dict(backend, health_check=HTTP_HEALTHZ)},
        {"anxcloud.lbaas.backend": dict(backend, name="90.two", owner="two", health_check=HTTP_HEALTHZ)},
    ])
    assert not any(play.failed(i) for i in range(6)), play
    assert play[0]["changed"] is True and play.writes(engine, 0) > 0
    for index in (1, 2, 4):   # the rerun, the fragment form of the same checks, the backend's fragment form
        assert play[index]["changed"] is False and play.writes(engine, index) == 0, (index, play[index])
    backends = es.by_name(engine, "backend")
    assert backends["http.hc"]["health_check"] == HTTP_HEALTHZ
    assert backends["tcp.hc"]["health_check"] == TCP_CHECK
    assert backends["90.one"]["health_check"] == backends["90.two"]["health_check"] == HTTP_HEALTHZ
    same = ("mode", "health_check", "server_timeout")
    assert [backends["90.one"][f] for f in same] == [backends["90.two"][f] for f in same]
    assert play[3]["backend"]["health_check"] == HTTP_HEALTHZ


# ---- values written without a check, types users write (issue 30, points 3 and 8) ---------------------------
HOSTNAME = ("rdns_name must be a host name: labels of 1-63 letters, digits or '-' (not starting or ending with '-'), "
            "separated by '.', 253 characters in all (a trailing '.' allowed); ")
ADDRESS = {"owner": "web", "pool": ["anxlb-pool=demo"], "family": "v4"}


def warned(result):
    """A module process's warnings as texts (ansible-core 2.19 writes each as a summary with its message)."""
    return [w["event"]["msg"] if isinstance(w, dict) else w for w in result.result.get("warnings") or []]


def prefix_listings(result, engine):
    return [e for e in result.requests(engine) if e["method"] == "GET" and "/ipam/v1/prefix.json" in e["path"]]


def test_values_that_cannot_be_right_are_refused_before_any_request(engine, module):
    """Each case a module process of its own; none sends a request (the local Engine's log stays empty)."""
    engine.reset_requests()

    def refused(name, args):
        return module(name, args).message()

    long_label = "l" * 64 + ".example.com"
    long_name = ".".join(["a" * 63] * 5)   # 319 characters
    for rdns, problem in (("shop example.com", "the label 'shop example' does not fit"),
                          ("shop.example.com\nevil.example", "the label 'com\\nevil' does not fit"),
                          (long_label, "the label '%s...' has 64 characters" % ("l" * 20)),
                          (long_name, "it has 319 characters")):
        assert refused("ip_address", dict(ADDRESS, rdns_name=rdns)) == HOSTNAME + "%s, got %r" % (problem, rdns)
    assert refused("ip_address", dict(ADDRESS, pool=["127.0.10.7/24"])) == (
        "pool[0]: '127.0.10.7/24' has host bits set; write the network 127.0.10.0/24")
    many = ["10.%d.%d.0/24" % (i // 256, i % 256) for i in range(3000)]
    assert refused("service", dict(service("web"), allow_sources=many)) == (
        "allow_sources has 3000 networks; at most 100 are allowed (each is an ACL and a rule on every frontend it "
        "applies to): merge them into wider networks")
    assert refused("service", dict(service("web"), lease_timeout=10 ** 12)) == (
        "lease_timeout must be between 1 and 86400 seconds, got 1000000000000; a lease left by a crashed run blocks "
        "other runs on its load balancers until it expires")
    assert refused("gc", {"keep": ["web"], "lease_timeout": 10 ** 12}).startswith(
        "lease_timeout must be between 1 and 86400 seconds, got 1000000000000")
    assert refused("loadbalancer_info", {"api_timeout": 0}) == (
        "api_timeout must be at least 1 second, got 0; there is no 'no timeout': a task would hang for good on an "
        "Engine that accepts the connection and never answers")
    assert refused("service", dict(service("web"), wait_timeout="10 minutes")) == (
        "wait_timeout must be seconds or a duration like 90s, 10m or 1h, got '10 minutes'")
    # the shapes users write where a list is expected
    assert refused("service", dict(service("web"), servers="a,b")) == (
        "servers must be a list of dicts, each like {name: ..., address: ...}; got the string 'a,b'")
    assert refused("service", dict(service("web"), ports=[80, 443])) == (
        "ports must be a list of dicts, each like {port: ...}; ports[0] is 80")
    assert refused("service", dict(service("web"), load_balancers="lb1, lb2")) == (
        "load_balancers must be a list, like [lb1, lb2]; got the one string 'lb1, lb2', which Ansible would split at "
        "its commas into 'lb1', ' lb2'")
    bad_check = dict(service("web"), servers=[{"name": "n1", "address": "127.0.0.1", "check": "sometimes"}])
    assert refused("service", bad_check) == "servers[0].check must be enabled or disabled (or true/false), got 'sometimes'"
    assert engine.requests()["total"] == 0


def test_types_users_write_are_taken_as_meant_and_converge(engine, module):
    """check: true/false stands for enabled/disabled (service and server), wait_timeout takes a duration: the
    Engine holds the words, and the same declaration in words reruns without a write."""
    booleans = dict(service("typed"), wait_timeout="10m",
                    servers=[{"name": "n1", "address": "127.0.0.1", "check": True},
                             {"name": "n2", "address": "127.0.0.2", "check": False}])
    first = module("service", booleans)
    assert not first.failed and first["changed"] is True, first
    servers = es.by_name(engine, "server")
    assert servers["n1.http.typed"]["check"] == "enabled" and servers["n2.http.typed"]["check"] == "disabled"
    words = dict(booleans, wait_timeout=600, servers=[dict(booleans["servers"][0], check="enabled"),
                                                      dict(booleans["servers"][1], check="disabled")])
    again = module("service", words)
    assert again["changed"] is False and again.writes(engine) == 0, again
    # the server module: check: false, then the same as a word
    server = {"load_balancer": "lb1", "backend": "http.typed", "name": "n1.http.typed", "check": False, "owner": "typed",
              "wait_timeout": "90s"}
    changed = module("server", server)
    assert changed["changed"] is True and changed["server"]["check"] == "disabled", changed
    assert es.by_name(engine, "server")["n1.http.typed"]["check"] == "disabled"
    same = module("server", dict(server, check="disabled"))
    assert same["changed"] is False and same.writes(engine) == 0, same
    # gc takes a duration too (it waits for what it deletes); the live set keeps everything: nothing to write
    kept = module("gc", {"keep": ["typed"], "wait_timeout": "10m"})
    assert not kept.failed and kept["changed"] is False and kept.writes(engine) == 0, kept


def test_a_bind_outside_the_accounts_prefixes_is_made_with_a_warning_asked_only_when_it_changes(engine, module):
    """127.0.20.5 is loopback (HAProxy can bind it) but in no IPAM prefix of the account (127.0.10.0/24 and
    fd00:10::/64): the service and the bind module warn, in check mode without a write, and make the bind in a
    real run (the service's warning names the service); a rerun that changes nothing neither warns nor lists the
    prefixes."""
    outside = ("%s: 127.0.20.5 is in no IPAM prefix of this account, so the Engine will most likely not route it to "
               "the load balancer; the bind is made anyway. Check the address for a typo, or take one from a prefix "
               "of the account (anxcloud.lbaas.ip_address)")
    declared = dict(service("far"), addresses=["127.0.20.5"])
    check = module("service", declared, check=True)
    assert check["changed"] is True and check.writes(engine) == 0 and warned(check) == ["service far: " + outside % "addresses"]
    assert "v4.http.far" not in es.by_name(engine, "bind")
    run = module("service", declared)
    assert run["changed"] is True and warned(run) == ["service far: " + outside % "addresses"] and len(prefix_listings(run, engine)) == 1
    assert es.by_name(engine, "bind")["v4.http.far"]["address"] == "127.0.20.5"
    rerun = module("service", declared)
    assert rerun["changed"] is False and warned(rerun) == [] and prefix_listings(rerun, engine) == []
    # an address of the account's prefix: no word, and asked once
    inside = module("service", dict(service("near"), addresses=["127.0.10.22"], ports=[{"name": "h", "port": 18095}]))
    assert inside["changed"] is True and warned(inside) == [] and len(prefix_listings(inside, engine)) == 1
    # the bind module: moved onto the address outside, then unchanged
    bind = {"load_balancer": "lb1", "frontend": "h.near", "name": "v4.h.near", "address": "127.0.20.5", "owner": "near",
            "port": 18095}
    moved = module("bind", bind)
    assert moved["changed"] is True and warned(moved) == [outside % "address"], moved
    same = module("bind", bind)
    assert same["changed"] is False and warned(same) == [] and prefix_listings(same, engine) == []


def test_the_role_takes_structured_health_checks_and_a_boolean_check_as_the_module_does(engine, ansible, module):
    """The role's argument spec repeats the module's options. The structured health checks pass it and reach the
    module unchanged: service hc, made from them by the module, is no change through the role. And the servers'
    check: false passes it too, and the Engine holds the word. One role run for both services."""
    structured = structured_checks()
    made = module("service", structured)
    assert made["changed"] is True, made
    declared = dict(service("rolecheck", port=18096), servers=[{"name": "n1", "address": "127.0.0.1", "check": False}])
    play = ansible.run([{"ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"},
                         "vars": {"lbaas_services": [structured, declared]}}])
    assert not [r for r in play.records if r["status"] == "failed"], play
    role = play.task("Reconcile hc")
    assert role["result"]["changed"] is False and play.writes(engine, play.records.index(role)) == 0, role
    assert play.task("Reconcile rolecheck")["result"]["changed"] is True
    assert es.by_name(engine, "server")["n1.http.rolecheck"]["check"] == "disabled"
