"""What else carries an owner's tag, as the allocation and the service read it anyway (the role's release of a
dropped family runs only when both name a resource): ``ip_address``'s ``tagged_elsewhere`` and ``service``'s
``tagged_other``, against the local Engine, with the requests each run sends."""
import copy

from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._request import AddressRequest
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._run import run_addresses
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import ServiceDeclaration
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._run import run_service

from ..conftest import engine_log, new_client, reset_log

POOL = ["anxlb-pool=demo"]
WEB = dict(name="web", name_suffix=None, load_balancers=["lb1"], addresses=[],
           ports=[{"name": "http", "port": 8080, "target_port": 18080, "mode": "tcp", "health_check": None,
                   "server_timeout": None, "client_timeout": None, "ssl": False, "ssl_certificate_path": None,
                   "allow_sources": None}],
           servers=[{"name": "n1", "address": "127.0.0.1", "check": "enabled"}], tag_prefix="anxlb", lease_timeout=600,
           lease_holder=None, state="present", wait=True, wait_timeout=60, allow_sources=None)


def allocate(client, family, check_mode=False):
    return run_addresses(client, AddressRequest(owner="web", pool=POOL, family=family), check_mode)


def reconcile(client, addresses, check_mode=False):
    params = copy.deepcopy(WEB)
    params["addresses"] = addresses
    return run_service(client, ServiceDeclaration.from_params(params), check_mode, lambda _w: None)


def tag_listings(engine):
    return [e for e in engine_log(engine)["log"] if e["method"] == "GET" and "tag_name=anxlb-svc" in e["path"]]


def test_the_allocation_and_the_service_name_what_else_the_owner_holds_without_a_request_of_their_own(engine):
    client = new_client(engine.url + "/", token=engine.token)
    v4 = allocate(client, "v4")["addresses"][0]
    v6 = allocate(client, "v6")["addresses"][0]
    service = reconcile(client, [v4["address"], v6["address"]])
    assert service["changed"] is True
    lbaas = set(i["identifier"] for kind in ("backend", "frontend") for i in client.lbaas_list(kind))

    # A rerun of each, as the role runs them on a steady pass: v4 declared, v6 still held.
    reset_log(engine)
    again = allocate(client, "v4")
    assert again["changed"] is False and again["address_list"] == [v4["address"]]
    # the v6 address and the LBaaS objects carrying the tag (backend, frontend); not the pool's own v4 address
    assert set(again["tagged_elsewhere"]) == lbaas | {v6["id"]}
    assert len(tag_listings(engine)) == 1   # the one listing the allocation reads anyway
    reset_log(engine)
    observed = reconcile(client, [v4["address"]], check_mode=True)
    assert observed["tagged_other"] == sorted([v4["id"], v6["id"]])   # tagged, and no LBaaS object
    assert len(tag_listings(engine)) == 1
    # what the role keeps: the resources both name, the v6 address alone
    assert sorted(set(again["tagged_elsewhere"]) & set(observed["tagged_other"])) == [v6["id"]]

    # Its bind gone, then the v6 address released (the role's order): nothing is left that both name, so the role
    # runs no release on the passes after.
    reconcile(client, [v4["address"]])
    run_addresses(client, AddressRequest(owner="web", family="v6", state="absent"), False)
    steady = allocate(client, "v4")
    assert set(steady["tagged_elsewhere"]) == lbaas and reconcile(client, [v4["address"]])["tagged_other"] == [v4["id"]]


def test_check_mode_names_what_the_real_run_names_for_a_new_address(engine):
    # A first allocation: predicted in check mode, made in a real run; neither is elsewhere, before or after.
    client = new_client(engine.url + "/", token=engine.token)
    predicted = allocate(client, "v4", check_mode=True)
    assert predicted["changed"] is True and predicted["tagged_elsewhere"] == []
    made = allocate(client, "v4")
    assert made["changed"] is True and made["tagged_elsewhere"] == []   # read before the run wrote
    assert allocate(client, "v4")["tagged_elsewhere"] == []
