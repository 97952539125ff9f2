import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._names import PART_RULE
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import HTTP_CHECK, TCP_CHECK, build

SERVICE = {
    "name": "web", "name_suffix": "prod",
    "ports": [{"name": "https", "port": 443, "target_port": 30443}, {"name": "http", "port": 80, "mode": "http"}],
    "addresses": ["2001:DB8::0:10", "192.0.2.10"],
    "servers": [{"name": "node2", "address": "10.0.0.2"}, {"name": "node1", "address": "10.0.0.1", "check": "disabled"}],
}


def test_objects_and_names_follow_the_cloud_controller_scheme():
    d = build(SERVICE)
    assert list(d.by_kind["backend"]) == ["http", "https"]
    assert d.by_kind["backend"]["https"] == {"name": "https.web.prod", "mode": "tcp", "health_check": TCP_CHECK,
                                             "server_timeout": None}
    assert d.by_kind["backend"]["http"]["health_check"] == HTTP_CHECK   # the mode's default, never "whatever was there"
    assert d.by_kind["frontend"]["https"]["name"] == "https.web.prod"
    assert list(d.by_kind["bind"]) == [("http", "192.0.2.10"), ("http", "2001:db8::10"),
                                       ("https", "192.0.2.10"), ("https", "2001:db8::10")]
    assert d.by_kind["bind"][("https", "2001:db8::10")] == {"name": "v6.https.web.prod", "address": "2001:db8::10",
                                                            "port": 443, "ssl": False, "ssl_certificate_path": None}
    assert d.by_kind["server"][("https", "node1")] == {"name": "node1.https.web.prod", "ip": "10.0.0.1", "port": 30443,
                                                       "check": "disabled"}
    assert d.by_kind["server"][("http", "node2")]["port"] == 80
    assert d.count() == 2 + 2 + 4 + 4


def test_unnamed_port_is_named_by_its_number():
    d = build({"name": "db", "ports": [{"port": 5432}]})
    assert d.by_kind["backend"]["5432"]["name"] == "5432.db"


@pytest.mark.parametrize("change, msg", [
    ({"ports": [{"name": "a", "port": 80}, {"name": "a", "port": 81}]},
     "ports: the port name 'a' is used twice (ports[0] and ports[1])"),
    ({"ports": [{"name": "a", "port": 80}, {"name": "b", "port": 80}]},
     "ports: the external port 80 is declared twice (ports[0] and ports[1])"),
    ({"ports": [{"name": "a", "port": 70000}]}, "ports[0].port must be a port number between 1 and 65535, got 70000"),
    ({"addresses": ["192.0.2.300"]}, "addresses[0]: '192.0.2.300' is not a valid IP address"),
    ({"addresses": ["192.0.2.1", "192.0.2.2"]}, "addresses: at most one IPv4 address per service, got 192.0.2.1 and 192.0.2.2"),
    ({"name": "web.prod"}, "name must be " + PART_RULE + ", got 'web.prod'"),
    ({"servers": [{"name": "n 1", "address": "10.0.0.1"}]}, "servers[0].name must be " + PART_RULE + ", got 'n 1'"),
    ({"ports": [{"name": "h.1", "port": 80}]}, "ports[0].name must be " + PART_RULE + ", got 'h.1'"),
    # an empty template variable must not become a wildcard bind no conflict check sees
    ({"addresses": [""]}, "addresses[0] must not be empty (a bind without an address listens on every address)"),
    ({"addresses": ["192.0.2.1", "  "]},
     "addresses[1] must not be empty (a bind without an address listens on every address)"),
    ({"servers": [{"name": "n1", "address": ""}]}, "servers[0].address must not be empty"),
    ({"ports": [{"name": "a", "port": 443, "ssl": True}]},
     "ports[0].ssl_certificate_path is required when ports[0].ssl is true"),
    ({"ports": [{"name": "a", "port": 443, "ssl": True, "ssl_certificate_path": " "}]},
     "ports[0].ssl_certificate_path is required when ports[0].ssl is true"),
    ({"ports": [{"name": "a", "port": 443, "ssl_certificate_path": "/etc/c.pem"}]},
     "ports[0].ssl_certificate_path is set but ports[0].ssl is false; set ssl: true or remove the path"),
    ({"ports": [{"name": "a", "port": 80, "health_check": ""}]},
     "ports[0].health_check must not be empty; leave it out for the mode's default, or write "
     "health_check: {type: http, method: GET, uri: /healthz} or {type: tcp}"),
    ({"ports": [{"name": "a", "port": 80, "client_timeout": "30 secs"}]},
     "ports[0].client_timeout must be milliseconds or a duration like 30s or 500ms, got '30 secs'"),
    ({"ports": [{"name": "a", "port": 80, "server_timeout": -1}]},
     "ports[0].server_timeout must be milliseconds or a duration like 30s or 500ms, got -1"),
])
def test_invalid_declarations(change, msg):
    service = dict(SERVICE)
    service.update(change)
    with pytest.raises(Failure) as err:
        build(service)
    assert err.value.msg == msg


def test_unset_options_stand_for_what_a_fresh_create_gives():
    """The whole declared state is owned: the same declaration gives the same objects whatever came before."""
    d = build({"name": "web", "ports": [{"name": "a", "port": 80, "mode": "http"}, {"name": "b", "port": 81}],
               "addresses": ["192.0.2.1"], "servers": [{"name": "n1", "address": "10.0.0.1"}]})
    assert d.by_kind["backend"]["a"] == {"name": "a.web", "mode": "http", "health_check": HTTP_CHECK, "server_timeout": None}
    assert d.by_kind["backend"]["b"]["health_check"] == TCP_CHECK
    assert d.by_kind["frontend"]["a"] == {"name": "a.web", "mode": "http", "client_timeout": None, "enabled": True}
    assert d.by_kind["bind"][("a", "192.0.2.1")]["ssl"] is False and d.by_kind["bind"][("a", "192.0.2.1")]["ssl_certificate_path"] is None
    assert d.by_kind["server"][("a", "n1")]["check"] == "enabled"
