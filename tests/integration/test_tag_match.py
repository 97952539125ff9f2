"""The Engine's ``tag_name`` listing is not documented to match exactly. Under every matching the local
Engine offers, services ``shop`` and ``shop2`` (and their addresses) on one load balancer never touch
each other's objects: ownership found through the listing is confirmed on each object's own tags
before anything is written to it. The subject is each module's own reading of ownership, so every task runs
as a module process of its own (``module_tasks``), the check-mode ones without earlier predictions."""
import pytest
from localengine.testing import MUTATING

from . import engine_state as es
from .conftest import module_task, module_tasks
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


# every matching against today's Engine; the loosest also against one that lists whole objects (issue 42)
@pytest.mark.parametrize("mode, full_listings", [("exact", "ignore"), ("substring", "ignore"), ("prefix", "ignore"),
                                                 ("casefold", "ignore"), ("substring", "honour")])
def test_shop_never_touches_shop2(engine, module, mode, full_listings):
    engine.set_options(tag_match=mode, full_listings=full_listings)
    # reconcile shop again, smaller, then remove it and its address: in check mode and for real
    again = [service(dict(SHOP, servers=[])), service(SHOP, state="absent"), ip("shop", state="absent")]
    run = module_tasks(module, [service(SHOP2), ip("shop2"), service(SHOP), ip("shop")])
    assert not any(run.failed(i) for i in range(4)), run
    shop2 = ids_of(engine, ".shop2")
    assert len(shop2) == 4
    shop2_address = [a["address"] for a in run[1]["addresses"]]
    engine.reset_requests()
    for check in (True, False):
        run = module_tasks(module, again, check=check)
        assert not any(run.failed(i) for i in range(3)), run
    written = " ".join(r["path"] for r in engine.requests()["log"] if r["method"] in MUTATING)
    assert not [i for i in shop2 if i in written], "shop's runs wrote to shop2's objects"
    assert ids_of(engine, ".shop2") == shop2 and ids_of(engine, ".shop") == []
    # shop2's tags as written: on its backend and frontend; its bind and server are its by containment (untagged)
    parents = set(o["identifier"] for kind in ("backend", "frontend") for o in es.objects(engine, kind))
    assert all(es.tags(engine, i) == (["anxlb-svc=shop2"] if i in parents else []) for i in shop2)
    run = module_task(module, ip("shop2"), check=True)
    assert [a["address"] for a in run["addresses"]] == shop2_address and run["changed"] is False
    assert shop2_address[0] in addresses(engine, V4)
