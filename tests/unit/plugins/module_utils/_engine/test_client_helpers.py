"""The typed helpers: exact requests (stub) and their meaning against the local Engine."""
import json

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._client import KINDS
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import NotFoundError

from ..conftest import LB1, PREFIX4, engine_log, reset_log

A = "a" * 32
B = "b" * 32


# ---- the exact request of each helper ----------------------------------------------------------
@pytest.mark.parametrize("call, method, path, body", [
    (lambda c: c.lbaas_get("server", A), "GET", "/api/LBaaS/v1/server.json/" + A, None),
    (lambda c: c.lbaas_update("bind", A, {"name": "v4.80.web", "port": 81, "frontend": {"identifier": B}}), "PUT",
     "/api/LBaaS/v1/bind.json/" + A, {"name": "v4.80.web", "port": 81, "frontend": B, "state": "0"}),
    (lambda c: c.lbaas_redeploy("backend", A, {"name": "80.web", "mode": "tcp", "load_balancer": {"identifier": B},
                                               "state": {"id": "2", "title": "DeploymentError", "type": 0}}),
     "PUT", "/api/LBaaS/v1/backend.json/" + A, {"name": "80.web", "mode": "tcp", "load_balancer": B, "state": "0"}),
    (lambda c: c.lbaas_delete("loadbalancer", A), "DELETE", "/api/LBaaS/v1/loadbalancer.json/" + A, None),
    (lambda c: c.resource_get(A), "GET", "/api/core/v1/resource.json/" + A, None),
    (lambda c: c.tag_add(A, "anxlb-svc=a b"), "POST", "/api/core/v1/resource.json/%s/tags/anxlb-svc=a%%20b" % A, ""),
    (lambda c: c.tag_remove(A, "k=v"), "DELETE", "/api/core/v1/resource.json/%s/tags/k=v" % A, None),
    # tag entities exactly as go-anxcloud pkg/core/tags/tags.go sends them (List, Get, Delete)
    (lambda c: c.tag_entities("anxlb-lease=x@y:1@2"), "GET",
     "/api/core/v1/tags.json?limit=100&order=&organization_identifier=&page=1&query=anxlb-lease%3Dx%40y%3A1%402"
     "&service_identifier=&sort_descending=false", None),
    (lambda c: c.tag_entity_get(A), "GET", "/api/core/v1/tags.json/" + A, None),
    (lambda c: c.tag_entity_delete(A, B), "DELETE", "/api/core/v1/tags.json/%s?service_identifier=%s" % (A, B), None),
    (lambda c: c.address_update(A, "10.0.0.5", description="vip"), "PUT", "/api/ipam/v1/address.json/" + A,
     {"name": "10.0.0.5", "description_customer": "vip", "role": "Default", "rdns_name": ""}),
    (lambda c: c.prefix_get(A), "GET", "/api/ipam/v1/prefix.json/" + A, None),
    (lambda c: c.address_get(A), "GET", "/api/ipam/v1/address.json/" + A, None),
    (lambda c: c.address_create(A, "10.0.0.5", description="vip"), "POST", "/api/ipam/v1/address.json",
     {"prefix": A, "name": "10.0.0.5", "description_customer": "vip", "role": "Default", "organization": "",
      "rdns_name": ""}),
    (lambda c: c.address_delete(A), "DELETE", "/api/ipam/v1/address.json/" + A, None),
    (lambda c: c.address_reserve_random("loc", "vlan", count=2, version=4), "POST",
     "/api/ipam/v1/address/reserve/ip/count.json",
     {"location_identifier": "loc", "vlan_identifier": "vlan", "count": 2, "ip_version": 4}),
    (lambda c: c.vlan_get(A), "GET", "/api/vlan/v1/vlan.json/" + A, None),
])
def test_each_helper_sends_one_exact_request(stub, call, method, path, body):
    stub.respond = lambda req: (200, {"data": []} if "reserve" in req["path"] or "tags.json?" in req["path"]
                                else {"identifier": A})
    call(stub.client())
    [req] = stub.seen
    assert (req["method"], req["path"]) == (method, path)
    assert (json.loads(req["body"]) if req["body"] else None) == body


def test_every_kind_has_its_collection(stub):
    stub.respond = lambda req: (200, {"identifier": A})
    client = stub.client()
    client.lbaas_get_many("frontend", [A, B])
    for kind in KINDS:
        client.lbaas_create(kind, {"name": "x"})
    assert sorted(r["path"] for r in stub.seen[:2]) == ["/api/LBaaS/v1/frontend.json/" + A,
                                                        "/api/LBaaS/v1/frontend.json/" + B]
    # go-anxcloud's collections: ACL.json (acl_types.go), rule.json (rule_types.go)
    paths = ("loadbalancer", "frontend", "backend", "bind", "server", "ACL", "rule")
    assert [r["path"] for r in stub.seen[2:]] == ["/api/LBaaS/v1/%s.json" % p for p in paths]
    with pytest.raises(ValueError):
        client.lbaas_get_many("listener", [A])


# ---- meaning against the local Engine ----------------------------------------------------------
def test_lbaas_round_trip(engine, make_client):
    client = make_client()
    backend = client.lbaas_create("backend", {"name": "80.web", "mode": "tcp", "load_balancer": LB1})
    ident = backend["identifier"]
    assert backend["load_balancer"] == {"identifier": LB1, "name": "lb1"}
    frontend = client.lbaas_create("frontend", {"name": "80.web", "mode": "tcp", "load_balancer": LB1,
                                                "default_backend": backend})   # a whole object as a link
    assert frontend["default_backend"]["identifier"] == ident
    whole = dict(client.lbaas_get("backend", ident), server_timeout=30)
    assert client.lbaas_update("backend", ident, whole)["mode"] == "tcp"
    assert client.lbaas_get("backend", ident)["server_timeout"] == 30
    engine.set_state(ident, "DeploymentError")
    reset_log(engine)
    assert client.lbaas_redeploy("backend", ident)["identifier"] == ident   # reads the object, PUTs it whole
    assert [(e["method"], e["status"]) for e in engine_log(engine, total=2)["log"]] == [("GET", 200), ("PUT", 200)]
    assert client.lbaas_list("frontend", load_balancer=LB1) == [{"identifier": frontend["identifier"],
                                                                 "name": "80.web"}]
    assert client.lbaas_delete("frontend", frontend["identifier"]) is True
    assert client.lbaas_delete("frontend", frontend["identifier"]) is False   # 404: already gone
    with pytest.raises(NotFoundError):
        client.lbaas_get("frontend", frontend["identifier"])


def test_tags(engine, make_client):
    client = make_client()
    tag = "anxlb-lease=web@ctl:1@1800000000"
    assert client.tag_add(LB1, tag) is True
    reset_log(engine)
    assert client.tag_add(LB1, tag) is False     # 422, and the read-back shows it: already tagged = success
    assert [(e["method"], e["status"]) for e in engine_log(engine, total=2)["log"]] == [("POST", 422), ("GET", 200)]
    assert client.resource_tags(LB1) == [tag]
    assert client.resources_by_tag(tag) == [{"identifier": LB1, "name": "lb1"}]
    assert client.tag_remove(LB1, tag) is True
    assert client.tag_remove(LB1, tag) is False  # 404: not tagged = success
    reset_log(engine)
    assert client.resources_by_tag(tag) == []    # 422: nothing carries it
    assert [e["status"] for e in engine_log(engine)["log"]] == [422]


def test_ipam(engine, make_client):
    client = make_client()
    prefix = client.prefix_get(PREFIX4)
    assert prefix["name"] == "127.0.10.0/24"
    vlan = client.vlan_get(prefix["vlans"][0]["identifier"])
    created = client.address_create(PREFIX4, "127.0.10.7", description="vip web")
    assert created["name"] == "127.0.10.7" and created["description_customer"] == "vip web"
    assert client.address_get(created["identifier"])["prefix"] == PREFIX4
    assert [a["identifier"] for a in client.address_list(search="127.0.10.7")] == [created["identifier"]]
    assert client.address_delete(created["identifier"]) is True
    assert client.address_delete(created["identifier"]) is False
    reserved = client.address_reserve_random(vlan["locations"][0]["identifier"], vlan["identifier"], count=2,
                                             prefix_id=PREFIX4, version=4)
    assert len(reserved) == 2 and all(r["prefix"] == PREFIX4 and r["text"].startswith("127.0.10.") for r in reserved)
