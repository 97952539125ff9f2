"""The read-only modules: loadbalancer_info with its tree, and <type>_info by parent, id and owner."""
from . import engine_state as es


def seed_tree(engine):
    lb = es.lb_id(engine)
    b = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    s = es.create(engine, "server", name="n1.80.web", ip="127.0.0.2", port=18080, check="enabled", backend=b)
    f = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=b)
    bind = es.create(engine, "bind", name="v4.80.web", address="127.0.0.1", port=8080, frontend=f)
    for ident in (b, s, f, bind):
        es.tag(engine, ident, "anxlb-svc=web")
    other = es.create(engine, "backend", name="81.shop", mode="http", load_balancer=lb)
    return dict(lb=lb, backend=b, server=s, frontend=f, bind=bind, other=other)


def test_loadbalancer_info_tree_and_type_info_by_parent_id_and_owner(engine, ansible):
    ids = seed_tree(engine)
    engine.reset_requests()
    run = ansible.run([{"anxcloud.lbaas.loadbalancer_info": {}, "check_mode": True},
                       {"anxcloud.lbaas.loadbalancer_info": {"name": "lb1", "tree": True}, "check_mode": True},
                       {"anxcloud.lbaas.backend_info": {"load_balancer": "lb1"}},
                       {"anxcloud.lbaas.backend_info": {"owner": "web"}},
                       {"anxcloud.lbaas.server_info": {"backend": "80.web", "load_balancer": "lb1"}},
                       {"anxcloud.lbaas.bind_info": {"id": ids["bind"]}},
                       {"anxcloud.lbaas.frontend_info": {"load_balancer": "lb1", "owner": "shop"}},
                       {"anxcloud.lbaas.backend_info": {}}])
    assert len(run.records) == 8 and not any(run.failed(i) for i in range(7)), run
    # loadbalancer_info, with its tree (in check mode, as users preview)
    assert [lb["name"] for lb in run[0]["load_balancers"]] == ["lb1", "lb2"]
    (lb,) = run[1]["load_balancers"]
    assert [b["name"] for b in lb["backends"]] == ["80.web", "81.shop"]
    assert lb["backends"][0]["servers"] == [{"id": ids["server"], "name": "n1.80.web", "backend": ids["backend"],
                                             "ip": "127.0.0.2", "port": 18080, "check": "enabled", "state": "Deployed"}]
    assert lb["frontends"][0]["binds"][0]["address"] == "127.0.0.1"
    assert lb["frontends"][0]["default_backend"] == ids["backend"]
    # <type>_info by parent, owner and id
    assert [b["name"] for b in run[2]["backends"]] == ["80.web", "81.shop"]
    assert [(b["name"], b["owner"], b["tags"]) for b in run[3]["backends"]] == [("80.web", "web", ["anxlb-svc=web"])]
    assert [s["id"] for s in run[4]["servers"]] == [ids["server"]]
    assert run[5]["binds"][0]["port"] == 8080 and run[5]["binds"][0]["frontend"] == ids["frontend"]
    assert run[6]["frontends"] == []
    assert run.failed(7) and run[7]["msg"] == "one of load_balancer, id or owner is required"
    assert engine.mutating_requests() == 0   # read-only, in check mode and out of it
