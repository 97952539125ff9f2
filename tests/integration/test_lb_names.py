"""A load balancer name two load balancers have is refused the same way by every module that takes one (service,
gc, service_info, the per-object and info modules): the option with its index, the count, the ids and "give the
id"; nothing is written, and the id picks one. Each module runs as its own process (the ``module`` fixture): the
refusal is the module's own."""
from . import engine_state as es


def refused(engine, run):
    """The message of a module process that must have failed without a traceback and without a mutating request."""
    assert run.writes(engine) == 0, run
    return run.message()


def test_a_name_two_load_balancers_have_is_refused_the_same_way_everywhere_and_the_id_picks_one(engine, module):
    lb1 = es.lb_id(engine)
    twin = es.create(engine, "loadbalancer", name="lb1")
    ids = "%s, %s" % tuple(sorted([lb1, twin]))
    web = {"name": "web", "addresses": ["127.0.10.9"], "ports": [{"name": "http", "port": 8080, "target_port": 18080}],
           "servers": [{"name": "n1", "address": "127.0.0.1"}]}
    engine.reset_requests()
    many = "2 load balancers named 'lb1' (ids %s); give the id to pick one" % ids
    assert refused(engine, module("service", dict(web, load_balancers=["lb2", "lb1"]))) == "load_balancers[1]: " + many
    assert refused(engine, module("gc", {"keep": ["web"], "load_balancers": ["lb2", "lb1"]})) == "load_balancers[1]: " + many
    assert refused(engine, module("service_info", {"load_balancers": ["lb1"]})) == "load_balancers[0]: " + many
    assert refused(engine, module("backend", {"load_balancer": "lb1", "name": "80.web", "mode": "tcp"})) == (
        "load_balancer: " + many)
    assert refused(engine, module("backend_info", {"load_balancer": "lb1"})) == "load_balancer: " + many
    check = module("service", dict(web, load_balancers=["lb2", twin]), check=True)
    assert not check.failed and check["changed"] is True, check
    # the id picked the twin: every backend the plan creates goes onto lb2 or the twin, none onto the other lb1
    parents = sorted(a["changes"]["load_balancer"]["after"] for a in check["plan"] if a["type"] == "backend")
    assert parents == sorted([es.lb_id(engine, "lb2"), twin])
    info = module("service_info", {"load_balancers": [twin]})
    assert not info.failed and info["services"] == [], info
    assert engine.mutating_requests() == 0
