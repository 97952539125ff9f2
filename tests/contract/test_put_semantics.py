"""Contract: what an LBaaS PUT means (README.md, "Strict by default"). By default a PUT replaces the
whole object and only a body with "state": "0" starts a deployment, because that is all the official
clients ever send; --put merge and --deploy-on change are the lenient options."""
import pytest

from .helpers import LB1, backend, create, error_of, get, lbaas, ok, put_full, request_body, tree

# kind -> the fields a whole-object PUT must carry (what a create requires)
REQUIRED = {"loadbalancer": {"name"}, "backend": {"name", "load_balancer"}, "frontend": {"name", "load_balancer"},
            "bind": {"name", "frontend", "port"}, "server": {"name", "backend", "ip", "port"}}


def undeployed(engine, ident):
    return [o for o in engine.dump()["objects"] if o["identifier"] == ident][0].get("_undeployed", False)


@pytest.mark.parametrize("kind", sorted(REQUIRED))
def test_a_put_without_the_fields_a_create_requires_is_422_naming_each(engine, kind):
    """gac:pkg/apis/lbaas/v1/helper.go requestBody and *_genclient.go FilterAPIRequestBody: the generic
    client PUTs the whole object (name, parent link, every field) with "state": "0"."""
    ident = tree(engine)[kind]
    before = get(engine, kind, ident)
    err = error_of(engine.api("PUT", lbaas(kind, ident), json={"state": "0"}), 422)
    assert set(err["validation"]) == REQUIRED[kind]
    assert all("replaces the whole object" in text for text in err["validation"].values())
    assert get(engine, kind, ident) == before   # nothing changed, no deployment


@pytest.mark.parametrize("kind", sorted(REQUIRED))
def test_the_whole_object_as_the_generic_client_sends_it_is_accepted(engine, kind):
    """gac:pkg/apis/lbaas/v1/helper.go requestBody: read back, links as identifiers, "state": "0"."""
    ident = tree(engine)[kind]
    before = get(engine, kind, ident)
    after = put_full(engine, kind, ident, state="0")
    assert dict(after, state=None) == dict(before, state=None) and after["state"]["title"] == "Updated"


def test_acls_need_the_link_their_parent_type_names(engine):
    """gac:pkg/apis/lbaas/v1/acl_types.go: parent_type names the one link that is set."""
    ids = tree(engine)
    acl = create(engine, "ACL", name="a", parent_type="frontend", frontend=ids["frontend"], criterion="dst_port",
                 value="8080", index=0)
    body = {"name": "a", "parent_type": "frontend", "criterion": "dst_port", "value": "8080", "index": 0}
    err = error_of(engine.api("PUT", lbaas("ACL", acl["identifier"]), json=body), 422)
    assert set(err["validation"]) == {"frontend"}


def test_optional_fields_left_out_read_back_as_after_a_create_without_them(engine):
    """The generic client leaves out empty optional fields (omitempty, gac:pkg/apis/lbaas/v1/backend_types.go
    server_timeout): with replace they are cleared, as a create without them stores them."""
    b = backend(engine, health_check="hc", server_timeout=5)
    bare = create(engine, "backend", name="web", load_balancer=LB1)
    put = ok(engine.api("PUT", lbaas("backend", b["identifier"]),
                        json={"name": "web", "load_balancer": LB1, "state": "0"}))
    fields = ("mode", "health_check", "server_timeout", "load_balancer")
    assert [put[f] for f in fields] == [bare[f] for f in fields] == [None, None, None,
                                                                     {"identifier": LB1, "name": "lb1"}]


def test_merge_keeps_what_a_put_leaves_out(engine):
    """--put merge: the lenient reading the legacy client's partial updates need (gac:CHANGELOG.md,
    "loadbalancer: only update fields that are set explicitly")."""
    engine.set_options(put="merge")
    b = backend(engine, health_check="hc")
    put = ok(engine.api("PUT", lbaas("backend", b["identifier"]), json={"mode": "http", "state": "0"}))
    assert (put["name"], put["mode"], put["health_check"]) == ("web", "http", "hc")


def test_a_change_without_state_0_is_stored_but_never_deployed(engine):
    """gac:pkg/apis/lbaas/v1/helper.go requestBody sets "state": "0" on every update, and
    ccm:anx/provider/loadbalancer/reconciliation/reconciliation.go updateFailedResources says the LBaaS
    API serialises updates with state 0: a change without it need not deploy."""
    b = backend(engine)
    put = put_full(engine, "backend", b["identifier"], mode="http")
    assert put["mode"] == "http" and put["state"]["title"] == "Deployed"   # the old state
    assert get(engine, "backend", b["identifier"])["mode"] == "http" and undeployed(engine, b["identifier"])
    assert put_full(engine, "backend", b["identifier"], state="0")["state"]["title"] == "Updated"
    assert not undeployed(engine, b["identifier"])


def test_the_legacy_clients_state_1_does_not_deploy_either(engine):
    """gac:pkg/lbaas/backend/definition.go: the legacy client sends the state id it is given ("1")."""
    b = backend(engine)
    assert put_full(engine, "backend", b["identifier"], mode="http", state="1")["state"]["title"] == "Deployed"
    assert undeployed(engine, b["identifier"])


def test_an_undeployed_change_leaves_a_deployment_error_standing(engine):
    """ccm:.../reconciliation.go updateFailedResources recovers a DeploymentError by a whole-object
    update with state 0; a change without it is no way out."""
    b = backend(engine)
    engine.set_state(b["identifier"], "DeploymentError")
    assert put_full(engine, "backend", b["identifier"], mode="http")["state"]["title"] == "DeploymentError"
    assert put_full(engine, "backend", b["identifier"], state="0")["state"]["title"] == "Updated"


def test_deploy_faults_are_used_up_by_deployments_only(engine):
    """A deploy rule's count belongs to real deployments (README.md, "Faults")."""
    b = backend(engine)
    engine.set_faults({"deploy": [{"match": "web", "outcome": "error", "count": 1}]})
    put_full(engine, "backend", b["identifier"], mode="http")
    assert engine.admin("GET", "faults")["deploy"][0]["count"] == 1
    assert put_full(engine, "backend", b["identifier"], state="0")["state"]["title"] == "DeploymentError"


def test_deploy_on_change_deploys_any_change(engine):
    """--deploy-on change: the lenient reading (any change deploys, as the local Engine did before)."""
    engine.set_options(deploy_on="change")
    b = backend(engine)
    assert put_full(engine, "backend", b["identifier"], mode="http")["state"]["title"] == "Updated"
    assert not undeployed(engine, b["identifier"])
    assert put_full(engine, "backend", b["identifier"], state="1")["state"]["title"] == "Updated"   # no change


def test_load_balancer_changes_deploy_without_a_state(engine):
    """gac:pkg/apis/lbaas/v1/loadbalancer_genclient.go with loadbalancer_types.go: two embedded fields
    claim the key "state", so the generic client's LoadBalancer bodies carry none (docs/engine-api-facts.md, Writes)."""
    lb = create(engine, "loadbalancer", name="lb3", ip_address="lb3.test")
    put = ok(engine.api("PUT", lbaas("loadbalancer", lb["identifier"]), json=request_body(lb, ip_address="x.test")))
    assert (put["ip_address"], put["state"]["title"]) == ("x.test", "Updated")
