"""The Engine's ``tag_name`` listing is not documented to match exactly. Under every matching the local
Engine offers, services ``shop`` and ``shop2`` (and their addresses) on one load balancer never touch
each other's objects: ownership found through the listing is confirmed on each object's own tags
before anything is written to it."""
import pytest
from localengine.testing import MUTATING

from . import engine_state as es
from .test_ip_address import V4, addresses

SHOP = {"name": "shop", "load_balancers": ["lb1"], "ports": [{"name": "http", "port": 8080}],
        "addresses": ["127.0.10.30"], "servers": [{"name": "n1", "address": "127.0.0.1"}]}
SHOP2 = dict(SHOP, name="shop2", addresses=["127.0.10.31"], servers=[{"name": "n2", "address": "127.0.0.2"}])


def service(decl, **extra):
    return {"anxcloud.lbaas.service": dict(decl, **extra)}


def ip(owner, **extra):
    return {"anxcloud.lbaas.ip_address": dict({"pool": [V4], "owner": owner, "family": "v4"}, **extra)}


def ids_of(engine, suffix):
    return sorted(o["identifier"] for kind in ("backend", "frontend", "bind", "server")
                  for o in es.objects(engine, kind) if o["name"].endswith(suffix))


@pytest.mark.parametrize("mode", ["exact", "substring", "prefix", "casefold"])
def test_shop_never_touches_shop2(engine, ansible, mode):
    engine.set_options(tag_match=mode)
    # reconcile shop again, smaller, then remove it and its address: in check mode and for real
    again = [service(dict(SHOP, servers=[])), service(SHOP, state="absent"), ip("shop", state="absent")]
    plays = ansible.session([([service(SHOP2), ip("shop2"), service(SHOP), ip("shop")], {}),
                             (again, {"check_mode": True}), (again, {}), ([ip("shop2")], {"check_mode": True})])
    run = plays.next()
    assert not run.failed(), run
    shop2 = ids_of(engine, ".shop2")
    assert len(shop2) == 4
    shop2_address = [a["address"] for a in run[1]["addresses"]]
    engine.reset_requests()
    for _check_then_real in range(2):
        run = plays.next()
        assert not run.failed(), run
    written = " ".join(r["path"] for r in engine.requests()["log"] if r["method"] in MUTATING)
    assert not [i for i in shop2 if i in written], "shop's runs wrote to shop2's objects"
    assert ids_of(engine, ".shop2") == shop2 and ids_of(engine, ".shop") == []
    # shop2's tags as written: on its backend and frontend; its bind and server are its by containment (untagged)
    parents = set(o["identifier"] for kind in ("backend", "frontend") for o in es.objects(engine, kind))
    assert all(es.tags(engine, i) == (["anxlb-svc=shop2"] if i in parents else []) for i in shop2)
    run = plays.next()
    assert [a["address"] for a in run.last["addresses"]] == shop2_address and run.last["changed"] is False
    assert shop2_address[0] in addresses(engine, V4)
