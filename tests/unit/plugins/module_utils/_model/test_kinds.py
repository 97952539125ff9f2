import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import (
    BACKEND, BIND, FRONTEND, LOADBALANCER, normalize_ip, state_class)

from ..fakes import state


@pytest.mark.parametrize("given, expected", [
    ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
    ("2001:0db8::0001", "2001:db8::1"),
    (" 192.0.2.1 ", "192.0.2.1"),
    ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
    ("", ""),
])
def test_addresses_compare_in_canonical_form(given, expected):
    assert normalize_ip(given) == expected


def test_invalid_address_names_the_option():
    with pytest.raises(Failure, match=r"^address: '300\.1\.1\.1' is not a valid IP address$"):
        normalize_ip("300.1.1.1", "address")


def test_engine_objects_are_flattened_with_links_as_ids():
    obj = FRONTEND.from_engine({
        "identifier": "f" * 32, "name": "80.web", "mode": "tcp", "client_timeout": "5000",
        "load_balancer": {"identifier": "a" * 32, "name": "lb1"},
        "default_backend": {"identifier": "b" * 32, "name": "80.web"},
        "state": state("Deployed"), "customer_identifier": "c",
    })
    raw = obj.pop("raw")
    assert obj == {"kind": "frontend", "id": "f" * 32, "name": "80.web", "load_balancer": "a" * 32,
                   "mode": "tcp", "default_backend": "b" * 32, "client_timeout": "5000", "enabled": True,
                   "state": state("Deployed")}
    assert raw["customer_identifier"] == "c"   # the Engine's answer, kept as the base of a whole-object PUT


def test_update_body_is_the_whole_object_without_read_only_keys():
    """go-anxcloud's generic client PUTs the whole object (pkg/apis/lbaas/v1/helper.go requestBody); a field
    set back to unset travels as null so that an Engine that merges PUT bodies resets it too. ``enable`` is always
    in it (the answer had none: on, as every object created without it)."""
    obj = BACKEND.from_engine({
        "identifier": "b" * 32, "name": "80.web", "mode": "tcp", "health_check": "hc", "server_timeout": 30,
        "load_balancer": {"identifier": "a" * 32, "name": "lb1"}, "customer_identifier": "c",
        "reseller_identifier": "r", "automation_rules": [], "state": state("Deployed"),
        "some_future_field": 1,
    })
    assert BACKEND.update_body(obj, {"mode": "http", "server_timeout": None}) == {
        "identifier": "b" * 32, "name": "80.web", "mode": "http", "health_check": "hc", "server_timeout": None,
        "load_balancer": "a" * 32, "some_future_field": 1, "enable": 1}


def test_unset_forms_of_optional_fields_compare_equal():
    raw = {"identifier": "b" * 32, "name": "x", "server_timeout": 0, "health_check": "",
           "load_balancer": {"identifier": "a" * 32}}
    obj = BACKEND.from_engine(raw)
    assert obj["server_timeout"] is None and obj["health_check"] is None
    assert BIND.from_engine({"identifier": "1" * 32, "name": "b", "ssl_certificate_path": ""})["ssl_certificate_path"] is None


def test_engine_address_in_another_text_form_is_normalized():
    obj = BIND.from_engine({"identifier": "1" * 32, "name": "v6.80.web", "address": "2001:DB8::0:1", "port": "80",
                            "frontend": {"identifier": "2" * 32}, "state": {"id": "3", "type": 1}})
    assert obj["address"] == "2001:db8::1"
    assert obj["port"] == 80
    assert obj["state"]["title"] == "Deployed"


def test_a_load_balancer_is_registered_with_name_and_ip_address_and_compares_its_address_in_canonical_form():
    """terraform-provider-anxcloud anxcloud/resource_lbaas_loadbalancer.go creates {name, ip_address}, both
    required (schema_lbaas.go); an address the Engine stores in another form, or one that is no address (the local
    Engine's seeds), reads back as stored form or kept, never a failure."""
    assert LOADBALANCER.parent is None and LOADBALANCER.required == ("ip_address",)
    assert LOADBALANCER.to_engine({"name": "lb3", "ip_address": "192.0.2.10"}) == {"name": "lb3", "ip_address": "192.0.2.10"}
    assert LOADBALANCER.normalize_field("ip_address", "2001:DB8::0:1", "ip_address") == "2001:db8::1"
    with pytest.raises(Failure, match=r"^ip_address: 'lb3\.example\.com' is not a valid IP address$"):
        LOADBALANCER.normalize_field("ip_address", "lb3.example.com", "ip_address")
    for stored, read in (("2001:DB8::0:1", "2001:db8::1"), ("lb1.local.test", "lb1.local.test")):
        assert LOADBALANCER.from_engine({"identifier": "a" * 32, "name": "lb1", "ip_address": stored})["ip_address"] == read


def test_request_body_leaves_unset_fields_out():
    assert BACKEND.to_engine({"name": "b", "load_balancer": "a" * 32, "mode": "tcp", "health_check": None,
                              "server_timeout": None}) == {"name": "b", "load_balancer": "a" * 32, "mode": "tcp"}


@pytest.mark.parametrize("engine_state, cls", [
    (state("Deployed"), "ok"),
    (state("Updated"), "ok"),
    (state("Updating"), "pending"),   # OK type on the Engine, but not done
    (state("NewlyCreated"), "pending"),
    (state("DeploymentError"), "error"),
])
def test_state_classes(engine_state, cls):
    assert state_class(engine_state) == cls


# ---- the maintenance switch (docs/engine-api-facts.md, "Maintenance switch") ------------------------------------
def engine_frontend(**fields):
    answer = {"identifier": "f" * 32, "name": "80.web", "mode": "tcp", "client_timeout": "5000",
              "load_balancer": {"identifier": "a" * 32, "name": "lb1"}, "state": state("Deployed")}
    answer.update(fields)
    return answer


@pytest.mark.parametrize("kind", [FRONTEND, BACKEND], ids=["frontend", "backend"])
@pytest.mark.parametrize("read, flat", [(True, True), (False, False), (1, True), (0, False), (None, True)])
def test_enable_is_read_as_the_bool_enabled(kind, read, flat):
    """go-anxsdk v1/lbaas/frontend.go and backend.go read ``Enable bool `json:"enable"```; the integers go-anxcloud's
    legacy client writes read alike; an answer without it is an object created without it, which carries traffic."""
    answer = engine_frontend() if read is None else engine_frontend(enable=read)
    assert kind.from_engine(answer)["enabled"] is flat


@pytest.mark.parametrize("kind", [FRONTEND, BACKEND], ids=["frontend", "backend"])
def test_enabled_is_written_as_the_integer_enable_in_creates_and_on_every_put(kind):
    """As go-anxcloud's legacy frontend.Definition writes it (pkg/lbaas/frontend/definition.go ``Enable
    common.EnableState `json:"enable,omitempty"```, pkg/lbaas/common/common.go ``IsDisabled = 0``, ``IsEnabled = 1``),
    in the body of POST and PUT. A PUT for another field sends the value the object holds: whether a PUT without it
    keeps it or turns the object on again is not known."""
    assert kind.to_engine({"name": "x", "load_balancer": "a" * 32, "enabled": False}) == {
        "name": "x", "load_balancer": "a" * 32, "enable": 0}
    assert kind.to_engine({"name": "x", "enabled": True})["enable"] == 1
    assert "enable" not in kind.to_engine({"name": "x", "enabled": None}) and "enabled" not in kind.to_engine({"name": "x"})
    off = kind.from_engine(engine_frontend(enable=False))
    assert off["raw"]["enable"] is False                      # the answer keeps the Engine's bool ...
    assert kind.update_body(off)["enable"] == 0               # ... a PUT sends the integer it stands for
    assert kind.update_body(off, {"mode": "http"})["enable"] == 0
    assert kind.update_body(off, {"enabled": True})["enable"] == 1
    assert "enabled" not in kind.update_body(off, {"enabled": True})
    on = kind.from_engine(engine_frontend())
    assert kind.update_body(on, {"mode": "http"})["enable"] == 1


def test_only_frontends_and_backends_have_the_switch():
    """Bind, server, ACL, rule and load balancer have no ``enable`` (go-anxsdk's GET types)."""
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS
    assert sorted(k.name for k in KINDS.values() if k.switch) == ["backend", "frontend"]
    assert all("enabled" not in k.fields and "enable" not in k.fields for k in KINDS.values() if not k.switch)
    assert FRONTEND.option_spec("enabled") == {"type": "bool"} and FRONTEND.defaults == {"enabled": True}
