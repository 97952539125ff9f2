import json

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._health_check import HTTP_CHECK, TCP_CHECK, render
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import build

STRUCTURED = "health_check: {type: http, method: GET, uri: /healthz} or {type: tcp}"


def test_the_defaults_render_the_text_the_collection_always_sent():
    """Existing deployments hold exactly these strings: the equivalent structured form must not churn them."""
    assert TCP_CHECK == '"adv_check": "tcp-check"'
    assert HTTP_CHECK == '"httpchk": { "method": "GET", "uri": "/" }'
    assert render({"type": "tcp"}) == TCP_CHECK
    assert render({"type": "http"}) == HTTP_CHECK
    assert render({"type": "http", "method": "GET", "uri": "/"}) == HTTP_CHECK
    assert render({"type": "tcp", "method": None, "uri": None}) == TCP_CHECK   # Ansible fills unset keys with None


def test_an_http_check_renders_the_fragment_the_engine_takes():
    text = render({"type": "http", "method": "HEAD", "uri": "/healthz?full=1"})
    assert text == '"httpchk": { "method": "HEAD", "uri": "/healthz?full=1" }'
    assert json.loads("{%s}" % text) == {"httpchk": {"method": "HEAD", "uri": "/healthz?full=1"}}


@pytest.mark.parametrize("text", [
    TCP_CHECK, HTTP_CHECK, '"adv_check": "ssl-hello-chk"', '"httpchk": {"method": "GET", "uri": "/healthz"}',
    '  "httpchk":  { "method":"GET" ,"uri": "/" }  ', '"adv_check": "httpchk"', '"httpchk": {}',
])
def test_a_fragment_string_is_accepted_and_sent_verbatim(text):
    assert render(text) is text


def test_unset_stays_unset():
    assert render(None) is None


@pytest.mark.parametrize("value, msg", [
    ("option httpchk GET /healthz",
     "health_check: 'option httpchk GET /healthz' is a HAProxy directive, which the Engine does not take; write "
     + STRUCTURED + " (or the Engine's fragment form, for example '\"adv_check\": \"tcp-check\"')"),
    ("OPTION tcp-check", None),
    ("tcp-check", None),
    ("httpchk GET /", "health_check: 'httpchk GET /' is not the Engine's fragment form (like '\"adv_check\": "
                      "\"tcp-check\"'); write " + STRUCTURED),
    ("", "health_check must not be empty; leave it out for the mode's default, or write " + STRUCTURED),
    ('"adv_check": "tcp check"', "health_check: '\"adv_check\": \"tcp check\"' needs adv_check to be one HAProxy "
                                 "check name, like tcp-check or ssl-hello-chk; write " + STRUCTURED),
    ('"adv_check": "tcp-check", "httpchk": {}', None),
    ('"check": "tcp"', None),
    ('"httpchk": {"method": "GET", "uri": "/a b"}', None),
    ('"httpchk": {"method": "get"}', None),
    ('"httpchk": "GET /"', None),
    ({"type": "https"}, "health_check.type must be http or tcp, got 'https' (" + STRUCTURED + ")"),
    ({"method": "GET"}, "health_check.type must be http or tcp, got None (" + STRUCTURED + ")"),
    ({"type": "tcp", "uri": "/"}, "health_check: unknown key uri for type tcp; the keys are: type"),
    ({"type": "http", "url": "/", "verb": "GET"},
     "health_check: unknown keys url, verb for type http; the keys are: type, method, uri"),
    ({"type": "http", "uri": "healthz"},
     "health_check.uri must be a path starting with '/' without spaces, got 'healthz'"),
    ({"type": "http", "uri": "/a\nb"}, None),
    ({"type": "http", "method": "get"},
     "health_check.method must be an HTTP method in capitals like GET or HEAD, got 'get'"),
    (["type", "tcp"], None),
])
def test_what_the_engine_would_not_deploy_is_refused_naming_the_structured_form(value, msg):
    with pytest.raises(Failure) as err:
        render(value)
    if msg is not None:
        assert err.value.msg == msg
    assert err.value.msg.startswith("health_check")
    assert err.value.details == {"option": "health_check"}


def test_a_service_port_takes_both_forms_and_names_the_port():
    base = {"name": "web", "ports": [{"name": "a", "port": 80, "mode": "http",
                                      "health_check": {"type": "http", "uri": "/healthz"}},
                                     {"name": "b", "port": 81, "health_check": {"type": "tcp"}},
                                     {"name": "c", "port": 82, "health_check": '"adv_check": "ssl-hello-chk"'}]}
    d = build(base)
    assert d.by_kind["backend"]["a"]["health_check"] == '"httpchk": { "method": "GET", "uri": "/healthz" }'
    assert d.by_kind["backend"]["b"]["health_check"] == TCP_CHECK
    assert d.by_kind["backend"]["c"]["health_check"] == '"adv_check": "ssl-hello-chk"'
    base["ports"][1]["health_check"] = "option tcp-check"
    with pytest.raises(Failure) as err:
        build(base)
    assert err.value.msg.startswith("ports[1].health_check: 'option tcp-check' is a HAProxy directive")
