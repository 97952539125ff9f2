"""Input and connection errors that name the fix (issue 18, points 7 and 8), with real ansible-playbook runs
(and, for the matrix of the modules' own refusals, each module run as its own process: the ``module`` fixture).

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


def test_input_that_cannot_be_right_is_refused_naming_the_fix_before_any_request(engine, ansible, module):
    engine.reset_requests()
    port = engine.url.rsplit(":", 1)[1]
    # through ansible-playbook: a plain case, and one the controller templates (a URL with a password in it)
    tasks = [
        failing("backend", {"load_balancer": "lb1", "name": "80.web", "health_check": "option httpchk GET /healthz"}),
        failing("backend", {"load_balancer": "lb1", "name": "80.web", "api_url": "{{ url_with_password }}"}),
    ]
    # an extra var: ansible-core 2.19 shows a failed task's lines of the playbook (the user's own text)
    play = ansible.run(tasks, extra_args=("-e", json.dumps({"url_with_password": "http://user:s3cret-pw@engine.localhost:%s"
                                                                                 % port})))
    assert len(play.records) == len(tasks), play

    assert message(play, 0) == (
        "health_check: 'option httpchk GET /healthz' is a HAProxy directive, which the Engine does not take; write "
        + STRUCTURED + " (or the Engine's fragment form, for example '\"adv_check\": \"tcp-check\"')")
    # *.localhost is not trusted as loopback, and the URL is shown without its userinfo
    assert message(play, 1) == ("api_url http://engine.localhost:%s is plain http:// to a host that is not loopback: "
                                "the API token would travel unencrypted; use https://, or set allow_insecure_http=true "
                                "if the network is trusted" % port)
    assert "s3cret-pw" not in play.proc.stdout + play.proc.stderr + repr(play.records)

    # the module's own refusals, each module run as its own process (no controller)
    def refused(name, args):
        return module(name, args).message()

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
        ]
        started = time.monotonic()
        secret_url = json.dumps({"url_with_password": down.replace("http://", "http://ops:pa55-word@")})
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


def test_a_structured_health_check_converges_reruns_without_writes_and_equals_its_fragment(engine, ansible):
    structured = service("hc", health_check={"type": "http", "method": "GET", "uri": "/healthz"})
    structured["ports"].append({"name": "tcp", "port": 18094, "health_check": {"type": "tcp"}})
    raw = service("hc", health_check=HTTP_HEALTHZ)
    raw["ports"].append({"name": "tcp", "port": 18094, "health_check": TCP_CHECK})
    backend = {"load_balancer": "lb1", "name": "90.one", "mode": "http", "owner": "one"}
    engine.reset_requests()
    play = ansible.run([
        {"anxcloud.lbaas.service": structured}, {"anxcloud.lbaas.service": structured}, {"anxcloud.lbaas.service": raw},
        {"anxcloud.lbaas.backend": dict(backend, health_check={"type": "http", "uri": "/healthz"})},
        {"anxcloud.lbaas.backend": dict(backend, health_check=HTTP_HEALTHZ)},
        {"anxcloud.lbaas.backend": dict(backend, name="90.two", owner="two", health_check=HTTP_HEALTHZ)},
        # the role's argument spec takes the structured form too, and hands it to the module unchanged
        {"ansible.builtin.include_role": {"name": "anxcloud.lbaas.service_loadbalancer"},
         "vars": {"lbaas_services": [structured]}},
    ])
    assert not [r for r in play.records if r["status"] == "failed"], play
    role = play.task("Reconcile hc")
    assert role["result"]["changed"] is False and play.writes(engine, play.records.index(role)) == 0, role
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
