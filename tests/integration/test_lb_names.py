"""A load balancer name two load balancers have is refused the same way by every module that takes one (service,
gc, service_info, the per-object and info modules): the option with its index, the count, the ids and "give the
id"; nothing is written, and the id picks one."""
from . import engine_state as es
from .test_object_errors import failed_without_writes, failing


def test_a_name_two_load_balancers_have_is_refused_the_same_way_everywhere_and_the_id_picks_one(engine, ansible):
    lb1 = es.lb_id(engine)
    twin = es.create(engine, "loadbalancer", name="lb1")
    ids = "%s, %s" % tuple(sorted([lb1, twin]))
    web = {"name": "web", "addresses": ["127.0.10.9"], "ports": [{"name": "http", "port": 8080, "target_port": 18080}],
           "servers": [{"name": "n1", "address": "127.0.0.1"}]}
    engine.reset_requests()
    play = ansible.run([
        failing({"anxcloud.lbaas.service": dict(web, load_balancers=["lb2", "lb1"])}),
        failing({"anxcloud.lbaas.gc": {"keep": ["web"], "load_balancers": ["lb2", "lb1"]}}),
        failing({"anxcloud.lbaas.service_info": {"load_balancers": ["lb1"]}}),
        failing({"anxcloud.lbaas.backend": {"load_balancer": "lb1", "name": "80.web", "mode": "tcp"}}),
        failing({"anxcloud.lbaas.backend_info": {"load_balancer": "lb1"}}),
        {"anxcloud.lbaas.service": dict(web, load_balancers=["lb2", twin]), "check_mode": True},
        {"anxcloud.lbaas.service_info": {"load_balancers": [twin]}},
    ])
    assert len(play.records) == 7, play
    many = "2 load balancers named 'lb1' (ids %s); give the id to pick one" % ids
    assert failed_without_writes(engine, play, 0) == "load_balancers[1]: " + many
    assert failed_without_writes(engine, play, 1) == "load_balancers[1]: " + many
    assert failed_without_writes(engine, play, 2) == "load_balancers[0]: " + many
    assert failed_without_writes(engine, play, 3) == "load_balancer: " + many
    assert failed_without_writes(engine, play, 4) == "load_balancer: " + many
    assert not play.failed(5) and play[5]["changed"] is True
    # the id picked the twin: every backend the plan creates goes onto lb2 or the twin, none onto the other lb1
    parents = sorted(a["changes"]["load_balancer"]["after"] for a in play[5]["plan"] if a["type"] == "backend")
    assert parents == sorted([es.lb_id(engine, "lb2"), twin])
    assert not play.failed(6) and play[6]["services"] == []
    assert engine.mutating_requests() == 0
