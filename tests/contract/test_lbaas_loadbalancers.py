"""Contract: the LoadBalancer object through the life terraform-provider-anxcloud gives it
(tfp:anxcloud/resource_lbaas_loadbalancer.go, schema_lbaas.go), on go-anxcloud's generic client
(gac:pkg/apis/lbaas/v1/loadbalancer_types.go, loadbalancer_genclient.go): registered by a POST of ``name`` and
``ip_address`` (both required by the schema; it provisions nothing), tagged as a core resource
(tagsMiddlewareCreate), read and imported by identifier, updated by a PUT of the whole object without ``state``,
deregistered by a DELETE whose 404 the provider ignores (api.IgnoreNotFound). The anxcloud.lbaas.loadbalancer
module relies on each step (docs/engine-api-facts.md, LBaaS objects)."""
from .helpers import (COMMON_KEYS, IDENTIFIER, LB1, after_delay, backend, create, error_of, frontend, get, items,
                      lbaas, ok, request_body, tag_path)


def register(engine, name="lb3", ip_address="192.0.2.10"):
    """resourceLBaaSLoadBalancerCreate: lbaasv1.LoadBalancer{Name, IpAddress} through api.Create."""
    return create(engine, "loadbalancer", name=name, ip_address=ip_address)


def test_a_registration_is_a_post_of_name_and_ip_address_answering_the_whole_object(engine):
    lb = register(engine)
    assert IDENTIFIER.match(lb["identifier"]) and set(lb) == COMMON_KEYS | {"ip_address"}
    assert (lb["name"], lb["ip_address"]) == ("lb3", "192.0.2.10")
    # resourceLBaaSLoadBalancerRead (and ImportStatePassthroughContext): a GET by identifier answers it
    assert get(engine, "loadbalancer", lb["identifier"]) == lb
    listed = items(ok(engine.api("GET", lbaas("loadbalancer"), params={"page": 1, "limit": 10})))
    assert {"identifier": lb["identifier"], "name": "lb3"} in listed


def test_a_registered_load_balancer_is_a_core_resource_tags_are_written_to_and_vanish_with_it(engine):
    """tagsMiddlewareCreate tags the new identifier as a core resource; the collection's owner tag is such a tag."""
    lb = register(engine)
    ok(engine.api("POST", tag_path(lb["identifier"], "anxlb-svc=infra"), json=""))
    resource = ok(engine.api("GET", "/api/core/v1/resource.json/" + lb["identifier"]))
    assert [t["name"] for t in resource["tags"]] == ["anxlb-svc=infra"]
    ok(engine.api("DELETE", lbaas("loadbalancer", lb["identifier"])))
    error_of(engine.api("GET", "/api/core/v1/resource.json/" + lb["identifier"]), 404)


def test_an_update_is_the_whole_object_without_state_and_deploys(slow_engine):
    """resourceLBaaSLoadBalancerUpdate sends {identifier, name, ip_address}; the generic client's LoadBalancer body
    has no state (two embedded fields claim the key), so a change deploys without one."""
    lb = register(slow_engine)
    after_delay()
    body = {"identifier": lb["identifier"], "name": "lb3-ams", "ip_address": "192.0.2.11"}
    put = ok(slow_engine.api("PUT", lbaas("loadbalancer", lb["identifier"]), json=body))
    assert (put["name"], put["ip_address"], put["state"]["title"]) == ("lb3-ams", "192.0.2.11", "Updating")
    after_delay()
    assert get(slow_engine, "loadbalancer", lb["identifier"])["state"]["title"] == "Updated"
    # the same body again changes nothing and deploys nothing
    again = ok(slow_engine.api("PUT", lbaas("loadbalancer", lb["identifier"]), json=request_body(get(
        slow_engine, "loadbalancer", lb["identifier"]))))
    assert again["state"]["title"] == "Updated"


def test_a_deregistration_answers_200_then_the_object_is_gone_and_a_repeat_is_a_404(engine):
    """resourceLBaaSLoadBalancerDelete: api.Destroy, a 404 ignored (api.IgnoreNotFound): gone is done."""
    lb = register(engine)
    assert ok(engine.api("DELETE", lbaas("loadbalancer", lb["identifier"]))) == {}
    error_of(engine.api("GET", lbaas("loadbalancer", lb["identifier"])), 404)
    error_of(engine.api("DELETE", lbaas("loadbalancer", lb["identifier"])), 404)


def test_a_load_balancer_holding_a_frontend_or_a_backend_is_not_deregistered(engine):
    """The Engine refuses to delete a parent with children (docs/engine-api-facts.md, Writes): 409 naming them, and
    the load balancer stays."""
    b = backend(engine)
    f = frontend(engine, b["identifier"])
    message = error_of(engine.api("DELETE", lbaas("loadbalancer", LB1)), 409)["message"]
    assert "backend %s" % b["identifier"] in message and "frontend %s" % f["identifier"] in message
    assert get(engine, "loadbalancer", LB1)["name"] == "lb1"
