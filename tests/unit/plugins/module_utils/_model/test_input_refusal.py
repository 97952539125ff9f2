"""Input that cannot be right, refused by the pure validation functions (issue 18, point 6), and Engine
answers of the wrong shape or gone since their listing, as the client turns them into clear outcomes."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._durations import HAPROXY_MAX_MS, to_ms, to_seconds
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import EngineError, UnexpectedResponseError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._health_check import server_check
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import normalize_ip, one_host_ip
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._names import check_hostname
from ansible_collections.anxcloud.lbaas.plugins.module_utils._module._base import _out_of_bounds as out_of_bounds
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import MAX_SOURCES, build, check_sources

A = "a" * 32
B = "b" * 32


@pytest.mark.parametrize("value, msg", [
    ("0.0.0.0", "addresses[0]: '0.0.0.0' is the unspecified address, which means every address; give one address"),
    ("::", "addresses[0]: '::' is the unspecified address, which means every address; give one address"),
    ("0:0::0", "addresses[0]: '::' is the unspecified address, which means every address; give one address"),
    ("::ffff:10.0.0.1", "addresses[0]: '::ffff:10.0.0.1' is an IPv4-mapped IPv6 address; write the IPv4 address 10.0.0.1"),
    ("::FFFF:0a00:0001",
     "addresses[0]: '::ffff:10.0.0.1' is an IPv4-mapped IPv6 address; write the IPv4 address 10.0.0.1"),
])
def test_addresses_that_name_no_single_host_are_refused(value, msg):
    with pytest.raises(Failure) as err:
        one_host_ip(normalize_ip(value, "addresses[0]"), "addresses[0]")
    assert err.value.msg == msg


@pytest.mark.parametrize("value", ["127.0.10.5", "fd00:10::5", "::1", "0.0.0.1", "", None])
def test_one_host_addresses_pass(value):
    assert one_host_ip(normalize_ip(value), "address") == normalize_ip(value)


def test_the_service_refuses_them_with_the_index():
    with pytest.raises(Failure) as err:
        build({"name": "web", "ports": [{"port": 80}], "addresses": ["10.0.0.1", "::ffff:10.0.0.2"]})
    assert err.value.msg.startswith("addresses[1]: '::ffff:10.0.0.2' is an IPv4-mapped IPv6 address")
    with pytest.raises(Failure) as err:
        build({"name": "web", "ports": [{"port": 80}], "servers": [{"name": "a", "address": "10.0.0.1"},
                                                                   {"name": "b", "address": "::"}]})
    assert err.value.msg.startswith("servers[1].address: '::' is the unspecified address")


@pytest.mark.parametrize("value", [HAPROXY_MAX_MS, str(HAPROXY_MAX_MS), "596h", "35791m"])
def test_timeouts_up_to_haproxys_limit_pass(value):
    assert to_ms(value, "server_timeout")[0] <= HAPROXY_MAX_MS


@pytest.mark.parametrize("value", [HAPROXY_MAX_MS + 1, "596524h", "9999999h", "2147484s"])
def test_timeouts_above_haproxys_limit_are_refused(value):
    with pytest.raises(Failure) as err:
        to_ms(value, "ports[2].client_timeout")
    assert err.value.msg == ("ports[2].client_timeout must be at most 2147483647 milliseconds (about 24 days, "
                             "HAProxy's limit), got %r" % (value,))


# ---- Engine answers ----------------------------------------------------------------------------
@pytest.mark.parametrize("answer, shape", [
    ([{"identifier": A}], "a list of 1 item"),
    ({"name": "80.web"}, "an object with keys name"),
    ({"identifier": ""}, "an object with keys identifier"),
    (42, "a int"),
])
def test_an_object_answer_of_the_wrong_shape_names_the_request(stub, answer, shape):
    stub.respond = lambda req: (200, answer)
    client = stub.client()
    with pytest.raises(UnexpectedResponseError) as err:
        client.lbaas_get("backend", A)
    assert str(err.value) == ("GET /api/LBaaS/v1/backend.json/%s: unexpected answer from the Engine: "
                              "expected one object with an identifier, got %s" % (A, shape))
    with pytest.raises(UnexpectedResponseError) as err:
        client.lbaas_create("backend", {"name": "80.web"})
    assert err.value.method == "POST" and err.value.may_have_landed   # a 2xx write was carried out


def test_list_items_without_identifier_name_the_request(stub):
    stub.respond = lambda req: (200, {"data": {"page": 1, "total_pages": 1, "data": [{"name": "lb1"}]}})
    with pytest.raises(UnexpectedResponseError) as err:
        stub.client().lbaas_list("loadbalancer")
    assert "GET /api/LBaaS/v1/loadbalancer.json" in str(err.value)
    assert "expected list items with an identifier, got an object with keys name" in str(err.value)


def test_an_empty_update_answer_is_passed_on(stub):
    stub.respond = lambda req: (200, b"")
    assert stub.client().lbaas_update("backend", A, {"name": "80.web"}) is None


def test_get_many_leaves_out_objects_gone_since_their_listing(stub):
    def respond(req):
        if req["route"].endswith(B):
            return (404, {"error": {"message": "not found"}})
        return (200, {"identifier": req["route"].rsplit("/", 1)[-1], "name": "x"})
    stub.respond = respond
    assert [o["identifier"] for o in stub.client().lbaas_get_many("frontend", [A, B, A])] == [A, A]


def test_resources_gone_since_their_listing_read_as_none(stub):
    def respond(req):
        if req["route"].endswith(B):
            return (404, {"error": {"message": "not found"}})
        return (200, {"identifier": A, "tags": []})
    stub.respond = respond
    assert stub.client().resource_get_listed([A, B]) == [{"identifier": A, "tags": []}, None]


@pytest.mark.parametrize("status, landed", [(200, 1), (422, 0), (404, 0), (502, 1)])
def test_only_writes_that_may_have_changed_the_engine_count_as_landed(stub, status, landed):
    stub.respond = lambda req: (status, {"identifier": A, "name": "80.web"} if status == 200 else {})
    client = stub.client(retries=0)
    try:
        client.lbaas_update("backend", A, {"name": "80.web"})
    except EngineError:
        pass   # the outcome of the write is beside the point here
    assert client.writes_landed == landed
    client.lbaas_get_many("backend", [])
    assert client.writes_landed == landed   # reads never count


# ---- values written without a check, types users write (issue 30, points 3 and 8) ------------------------
HOSTNAME_RULE = ("rdns_name must be a host name: labels of 1-63 letters, digits or '-' (not starting or ending "
                 "with '-'), separated by '.', 253 characters in all (a trailing '.' allowed); ")


@pytest.mark.parametrize("good", ["shop.example.com", "shop.example.com.", "a", "x-1.example", "A1.B2",
                                  ".".join(["a" * 63] * 3) + "." + "b" * 61, "l" * 63 + ".example.com"])
def test_host_names_pass_unchanged(good):
    assert check_hostname(good, "rdns_name") == good


@pytest.mark.parametrize("bad, problem", [
    ("shop example.com", "the label 'shop example' does not fit"),
    ("shop.example.com\nevil.example", "the label 'com\\nevil' does not fit"),
    ("l" * 64 + ".example.com", "the label '%s...' has 64 characters" % ("l" * 20)),
    (".".join(["a" * 63] * 5), "it has 319 characters"),
    ("shop..example.com", "it has an empty label"),
    ("-shop.example.com", "the label '-shop' does not fit"),
    ("shop_1.example.com", "the label 'shop_1' does not fit"),
    ("shop.example.com..", "it has an empty label"),
])
def test_host_names_that_are_none_are_refused_naming_the_rule_and_the_part(bad, problem):
    with pytest.raises(Failure) as err:
        check_hostname(bad, "rdns_name")
    assert err.value.msg == HOSTNAME_RULE + "%s, got %r" % (problem, bad)
    assert err.value.details == {"option": "rdns_name"}


def sources(count, prefix="10.%d.%d.0/24"):
    return [prefix % (i // 256, i % 256) for i in range(count)]


def test_an_allow_list_is_bounded_and_the_bound_is_in_the_message():
    assert len(check_sources(sources(MAX_SOURCES), "allow_sources")) == MAX_SOURCES == 100
    # duplicates count once: the bound is on the networks, each an ACL and a rule
    assert len(check_sources(sources(MAX_SOURCES) * 2, "allow_sources")) == MAX_SOURCES
    with pytest.raises(Failure) as err:
        build({"name": "web", "ports": [{"port": 80, "allow_sources": sources(3000)}]})
    assert err.value.msg == ("ports[0].allow_sources has 3000 networks; at most 100 are allowed (each is an ACL and a "
                             "rule on every frontend it applies to): merge them into wider networks")


@pytest.mark.parametrize("value, word", [("enabled", "enabled"), ("disabled", "disabled"), (True, "enabled"),
                                         (False, "disabled"), ("true", "enabled"), ("False", "disabled"),
                                         ("yes", "enabled"), (None, None)])
def test_a_server_check_takes_the_engines_words_and_booleans(value, word):
    assert server_check(value, "check") == word


@pytest.mark.parametrize("value", ["on-ish", 1, 0, "", ["enabled"]])
def test_a_server_check_of_another_kind_is_refused(value):
    with pytest.raises(Failure) as err:
        server_check(value, "servers[1].check")
    assert err.value.msg == "servers[1].check must be enabled or disabled (or true/false), got %r" % (value,)


def test_the_service_takes_boolean_checks_and_they_hash_as_the_words():
    def desired(check):
        return build({"name": "web", "ports": [{"port": 80}], "servers": [{"name": "a", "address": "10.0.0.1",
                                                                           "check": check}]})
    assert desired(True).as_data() == desired("enabled").as_data()
    assert desired(False).by_kind["server"][("80", "a")]["check"] == "disabled"
    with pytest.raises(Failure) as err:
        desired("maybe")
    assert err.value.msg == "servers[0].check must be enabled or disabled (or true/false), got 'maybe'"


@pytest.mark.parametrize("value, seconds", [(600, 600), ("600", 600), ("90s", 90), ("10m", 600), ("1h", 3600),
                                            ("1500ms", 2), (0, 0), (None, None)])
def test_wait_timeouts_take_durations_and_bare_seconds(value, seconds):
    assert to_seconds(value, "wait_timeout") == seconds


@pytest.mark.parametrize("value", ["10 minutes", "-5", -5, True, 1.5, "5d"])
def test_wait_timeouts_of_another_form_are_refused(value):
    with pytest.raises(Failure) as err:
        to_seconds(value, "wait_timeout")
    assert err.value.msg == "wait_timeout must be seconds or a duration like 90s, 10m or 1h, got %r" % (value,)


@pytest.mark.parametrize("params, msg", [
    ({"api_timeout": 0}, "api_timeout must be at least 1 second, got 0; there is no 'no timeout': a task would hang "
                         "for good on an Engine that accepts the connection and never answers"),
    ({"api_timeout": -3}, "api_timeout must be at least 1 second, got -3; there is no 'no timeout': a task would hang "
                          "for good on an Engine that accepts the connection and never answers"),
    ({"api_retries": -1}, "api_retries must be at least 0 retries, got -1"),
    ({"api_concurrency": 65}, "api_concurrency must be between 1 and 64 requests at once, got 65"),
    ({"lease_timeout": 10 ** 12}, "lease_timeout must be between 1 and 86400 seconds, got 1000000000000; a lease left "
                                  "by a crashed run blocks other runs on its load balancers until it expires"),
    ({"lease_timeout": 0}, "lease_timeout must be between 1 and 86400 seconds, got 0; a lease left by a crashed run "
                           "blocks other runs on its load balancers until it expires"),
    ({"wait_timeout": "10 min"}, "wait_timeout must be seconds or a duration like 90s, 10m or 1h, got '10 min'"),
])
def test_shared_options_out_of_their_bounds_are_refused_with_the_bound(params, msg):
    assert out_of_bounds(dict(params)) == msg


def test_shared_options_in_their_bounds_pass_and_wait_timeout_becomes_seconds():
    params = {"api_timeout": 1, "api_retries": 0, "api_concurrency": 64, "lease_timeout": 86400, "wait_timeout": "10m"}
    assert out_of_bounds(params) is None and params["wait_timeout"] == 600
