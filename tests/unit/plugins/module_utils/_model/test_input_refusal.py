"""Input that cannot be right, refused by the pure validation functions (issue 18, point 6), and Engine
answers of the wrong shape or gone since their listing, as the client turns them into clear outcomes."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._durations import HAPROXY_MAX_MS, to_ms
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import EngineError, UnexpectedResponseError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import normalize_ip, one_host_ip
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import build

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
