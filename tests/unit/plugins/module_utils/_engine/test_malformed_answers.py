"""Engine answers of the wrong shape (issue 30, point 4): a list item that is a string where an object is
expected, a resource whose tags are not tag objects, a read answered with something else than an object.
The client turns each into an ``UnexpectedResponseError`` naming the endpoint and what it expected, never a
TypeError ("string indices must be integers") deep inside a caller; the service module then fails with
that message and without a traceback."""
import json

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import ServiceDeclaration
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import UnexpectedResponseError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._run import run_service

A = "a" * 32
LB1 = "0a11ba1a000000000000000000000001"


def page(items):
    return {"page": 1, "total_pages": 1, "total_items": len(items), "limit": 10, "data": items}


@pytest.mark.parametrize("call, endpoint, expected", [
    (lambda c: c.resources_by_tag("anxlb-svc=web"), "/api/core/v1/resource.json", "with an identifier"),
    (lambda c: c.tag_entities("anxlb"), "/api/core/v1/tags.json", "with an identifier and a name"),
    (lambda c: c.prefix_list(), "/api/ipam/v1/prefix.json", "with an identifier and a name"),
    (lambda c: c.address_list(), "/api/ipam/v1/address.json", "with an identifier and a name"),
    (lambda c: c.address_list(prefix=A), "/api/ipam/v1/address/filtered.json", "with an identifier and a name"),
])
def test_a_string_in_a_listing_names_the_endpoint_and_the_shape_expected(stub, call, endpoint, expected):
    stub.respond = lambda req: (200, page([{"identifier": A, "name": "x"}, "0a11ba1a"]))
    with pytest.raises(UnexpectedResponseError) as err:
        call(stub.client())
    assert str(err.value) == ("GET %s: unexpected answer from the Engine: expected list items %s, got a string "
                              "'0a11ba1a' as item 1" % (endpoint, expected))


def test_an_lbaas_listing_with_a_string_item_names_it(stub):
    stub.respond = lambda req: (200, {"state": "OK", "messages": [], "data": page(["lb1"])})
    with pytest.raises(UnexpectedResponseError) as err:
        stub.client().lbaas_list("loadbalancer")
    assert str(err.value) == ("GET /api/LBaaS/v1/loadbalancer.json: unexpected answer from the Engine: expected list "
                              "items with an identifier, got a string 'lb1' as item 0")


@pytest.mark.parametrize("answer, expected", [
    ("resource", "expected one object, got a string 'resource'"),
    ([{"identifier": A}], "expected one object, got a list of 1 item"),
    ({"identifier": A, "tags": "anxlb-svc=web"}, "expected the resource's tags as a list, got a string 'anxlb-svc=web'"),
    ({"identifier": A, "tags": [{"name": "a"}, {"identifier": A}]},
     "expected the resource's tags as objects with a name, got an object with keys identifier as tag 1"),
    ({"identifier": A, "tags": [7]}, "expected the resource's tags as objects with a name, got a int as tag 0"),
    ({"identifier": A, "resource_type": "LBaaS Backend"},
     "expected the resource's resource_type as an object, got a string 'LBaaS Backend'"),
])
def test_a_resource_of_the_wrong_shape_names_the_request(stub, answer, expected):
    stub.respond = lambda req: (200, json.dumps(answer), {"Content-Type": "application/json"})
    with pytest.raises(UnexpectedResponseError) as err:
        stub.client().resource_get(A)
    assert str(err.value) == "GET /api/core/v1/resource.json/%s: unexpected answer from the Engine: %s" % (A, expected)


def test_resource_tags_as_names_or_objects_pass(stub):
    answer = {"identifier": A, "tags": ["a", {"identifier": A, "name": "b"}], "resource_type": {"identifier": A}}
    stub.respond = lambda req: (200, answer)
    assert stub.client().resource_get(A) == answer


@pytest.mark.parametrize("call, path", [
    (lambda c: c.prefix_get(A), "/api/ipam/v1/prefix.json/" + A),
    (lambda c: c.address_get(A), "/api/ipam/v1/address.json/" + A),
    (lambda c: c.vlan_get(A), "/api/vlan/v1/vlan.json/" + A),
    (lambda c: c.tag_entity_get(A), "/api/core/v1/tags.json/" + A),
])
def test_a_read_answered_with_a_string_names_the_request(stub, call, path):
    stub.respond = lambda req: (200, '"not an object"', {"Content-Type": "application/json"})
    with pytest.raises(UnexpectedResponseError) as err:
        call(stub.client())
    assert str(err.value) == ("GET %s: unexpected answer from the Engine: expected one object, got a string "
                              "'not an object'" % path)


def test_the_service_module_fails_with_the_message_instead_of_a_type_error(stub):
    """The run observes through the real client; the owner-tag listing holds a string: the run stops with the
    client's error (which the module base turns into fail_json) before any write."""
    def respond(req):
        route = req["route"]
        if route == "/api/LBaaS/v1/loadbalancer.json":
            return (200, {"state": "OK", "messages": [], "data": page([{"identifier": LB1, "name": "lb1"}])})
        if route.startswith("/api/LBaaS/v1/"):
            return (200, {"state": "OK", "messages": [], "data": page([])})
        if route == "/api/core/v1/resource.json":
            return (200, page(["anxlb-svc=web"]))
        if route.startswith("/api/core/v1/resource.json/"):
            return (200, {"identifier": LB1, "tags": []})
        return (404, {"error": {"code": 404, "message": "not here"}})
    stub.respond = respond
    params = dict(name="web", name_suffix=None, load_balancers=["lb1"], ports=[{"port": 80}], addresses=["127.0.10.5"],
                  servers=[{"name": "n1", "address": "127.0.0.1"}], tag_prefix="anxlb", lease_timeout=600,
                  lease_holder=None, state="present", wait=True, wait_timeout=5, allow_sources=None)
    warnings = []
    with pytest.raises(UnexpectedResponseError) as err:
        run_service(stub.client(), ServiceDeclaration.from_params(params), False, warnings.append)
    assert "GET /api/core/v1/resource.json: unexpected answer from the Engine: expected list items with an " \
           "identifier, got a string 'anxlb-svc=web' as item 0" == str(err.value)
    assert [r["method"] for r in stub.seen if r["method"] != "GET"] == []
