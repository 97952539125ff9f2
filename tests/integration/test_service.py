"""The service module against the local Engine: every scenario first in check mode, asserting the
prediction equals what the real run then does, then for real, then a no-op rerun.

Each step is the module run as its own process (the ``module`` fixture): check mode of one task, what the run
then writes and its no-op rerun are the module's own behaviour. What the controller adds (predictions carried
across the check-mode tasks of a play, ``--diff`` as printed) is proved in test_check_across_tasks.py and
test_service_output.py; ``converge_play``/``converge_next`` stay for the tests that play a service in a playbook.
"""
import copy

from . import engine_state as es
from .conftest import side, sides, warning_texts

SERVICE = {
    "name": "web",
    "load_balancers": ["lb1"],
    "ports": [{"name": "http", "port": 8080, "target_port": 18080}, {"name": "https", "port": 8443, "target_port": 18443}],
    "addresses": ["127.0.10.5"],
    "servers": [{"name": "n1", "address": "127.0.0.1"}, {"name": "n2", "address": "127.0.0.2"}],
}


def task(service):
    return {"anxcloud.lbaas.service": service}


def names(engine, kind):
    return sorted(o["name"] for o in es.objects(engine, kind))


def converge_play(service):
    """converge() as the three tasks of one play, for a test that plays a service in a playbook: check mode
    (prediction, no writes), real (same diff and plan), rerun (no change, no writes), whose requests are told apart
    in the local Engine's log by time."""
    return [dict(task(service), check_mode=True, diff=True), dict(task(service), diff=True),
            dict(task(service), diff=True)], {}


def converge_next(engine, plays):
    """Plays the next play of the session ``plays`` (``ansible.session``), a converge_play, and checks it;
    returns its check-mode and real results."""
    engine.reset_requests()
    play = plays.next()
    assert len(play.records) == 3 and not any(play.failed(i) for i in range(3)), play
    return converged(play[0], play[1], play[2], play.writes(engine, 0), play.writes(engine, 2))


def converged(check, real, rerun, check_writes, rerun_writes):
    """Checks a check -> real -> rerun of one declaration, given the mutating requests of the check-mode step and of
    the rerun; returns the check-mode and real results."""
    assert check_writes == 0
    assert sides(real) == sides(check) and real["plan"] == check["plan"]
    assert real["changed"] == check["changed"]
    # what check mode predicted is what the Engine now holds (a load balancer the service left is empty)
    for lb, predicted in side(real, "after").items():
        assert side(rerun, "before").get(lb, {}) == predicted, lb
    assert rerun["diff"]["before"] == rerun["diff"]["after"]   # in sync: Ansible prints no diff
    assert rerun["changed"] is False and rerun_writes == 0
    return check, real


def converge(module, engine, service):
    """check -> real -> rerun of ``service``, each step the module as its own process; checked as converge_next
    checks a converge_play."""
    steps = [module("service", service, check=True, diff=True), module("service", service, diff=True),
             module("service", service, diff=True)]
    assert not any(step.failed for step in steps), steps
    check, real, rerun = steps
    return converged(check.result, real.result, rerun.result, check.writes(engine), rerun.writes(engine))


def apply(module, service, check=False):
    """One run of the module for ``service`` (a real one sets the scene), which must not fail; its result."""
    run = module("service", service, check=check)
    assert not run.failed, run
    return run.result


def setup_play(service):
    """A real run that only sets the scene (what converge() proves is not the point there)."""
    return [task(service)], {}


def set_up(run):
    """The result of a finished setup_play, which must not have failed."""
    assert not run.failed(), run
    return run.last


def test_fresh_create_and_noop_rerun(engine, module):
    check, real = converge(module, engine, SERVICE)
    # ten objects, then the marker's line: bookkeeping, not counted in the summary nor shown in the diff
    assert check["changed"] is True and len(check["plan"]) == 2 + 2 + 2 + 4 + 1 and len(objects_of(check)) == 10
    assert check["plan"][-1] == dict(
        load_balancer="lb1", action="mark", type="marker", name="anxlb-reconciled.web", id=None, changes={}, tags=[],
        reason="records that declaration %s is applied here (written once its objects are written and tagged, during the wait)"
        % check["declaration_hash"])
    lb1 = side(check, "after")["lb1"]
    assert list(lb1) == ["http.web", "https.web"]
    assert list(lb1["http.web"]["servers"]) == ["n1.http.web", "n2.http.web"]
    assert lb1["http.web"]["frontend"]["default_backend"] == "http.web"
    assert lb1["https.web"]["binds"] == {"v4.https.web": {"address": "127.0.10.5", "port": 8443, "ssl": False}}
    assert side(check, "before") == {"lb1": {}}
    assert check["summary"] == "lb1: 10 to add, 0 to change, 0 to destroy"
    assert real["summary"] == "lb1: 10 added, 0 changed, 0 destroyed"
    assert check["diff"]["after_header"] == check["summary"] and real["diff"]["after_header"] == real["summary"]
    assert all(a["load_balancer"] == "lb1" for a in check["plan"])
    (marker,) = [t for t in es.tags(engine, es.lb_id(engine)) if t.startswith("anxlb-reconciled.web=")]
    assert marker.startswith("anxlb-reconciled.web=1,0.1.0,%s," % real["declaration_hash"])
    assert real["status"] == {"load_balancers": {"lb1": {"127.0.10.5": [8080, 8443]}}, "all": {"127.0.10.5": [8080, 8443]}}
    assert names(engine, "server") == ["n1.http.web", "n1.https.web", "n2.http.web", "n2.https.web"]
    # ownership by containment: the backends and frontends carry the owner tag, their binds and servers none
    assert all(es.tags(engine, o["identifier"]) == ["anxlb-svc=web"] for kind in ("backend", "frontend")
               for o in es.objects(engine, kind))
    assert all(es.tags(engine, o["identifier"]) == [] for kind in ("bind", "server") for o in es.objects(engine, kind))


def test_removing_a_port_and_a_node_touches_only_those(engine, module):
    smaller = copy.deepcopy(SERVICE)
    smaller["ports"] = smaller["ports"][1:]
    smaller["servers"] = smaller["servers"][:1]
    apply(module, SERVICE)
    kept = dict((o["name"], o["identifier"]) for kind in ("backend", "frontend", "bind", "server")
                for o in es.objects(engine, kind))
    check, real = converge(module, engine, smaller)
    assert sorted((a["action"], a["name"]) for a in objects_of(check)) == [
        ("delete", "http.web"), ("delete", "http.web"), ("delete", "n1.http.web"), ("delete", "n2.http.web"),
        ("delete", "n2.https.web"), ("delete", "v4.http.web")]
    after = dict((o["name"], o["identifier"]) for kind in ("backend", "frontend", "bind", "server")
                 for o in es.objects(engine, kind))
    assert after == dict((n, i) for n, i in kept.items() if n in after) and sorted(after) == [
        "https.web", "n1.https.web", "v4.https.web"]


def test_absent_then_rerun(engine, module):
    apply(module, SERVICE)
    check, real = converge(module, engine, dict(SERVICE, state="absent"))
    assert check["changed"] is True and all(a["action"] == "delete" for a in objects_of(check))
    # absent: the marker goes too, once the objects it vouched for are gone
    assert check["plan"][-1]["action"] == "mark" and check["plan"][-1]["reason"].startswith(
        "the service's marker goes: nothing of the service is left here")
    assert [t for t in es.tags(engine, es.lb_id(engine)) if t.startswith("anxlb-reconciled.")] == []
    # every object of the service goes, its servers too: they carry no owner tag, ours by their backends
    assert all(names(engine, kind) == [] for kind in ("backend", "frontend", "bind", "server"))
    assert real["status"] == {"load_balancers": {"lb1": {}}, "all": {}}


def ids_by_name(engine):
    return dict((o["name"], o["identifier"]) for kind in ("backend", "frontend", "bind", "server")
                for o in es.objects(engine, kind))


def objects_of(result):
    """The plan's lines of objects: without the marker's (bookkeeping, ``test_fresh_create_and_noop_rerun``)."""
    return [a for a in result["plan"] if a["type"] != "marker"]


def plan_of(result):
    return sorted((a["action"], a["type"], a["name"]) for a in objects_of(result))


def test_add_a_port_change_a_target_port_and_add_a_node(engine, module):
    grown = copy.deepcopy(SERVICE)
    grown["ports"].append({"name": "metrics", "port": 9100})
    grown["ports"][1]["target_port"] = 28443
    grown["servers"].append({"name": "n3", "address": "127.0.0.3"})
    apply(module, SERVICE)
    before = ids_by_name(engine)
    check, real = converge(module, engine, grown)
    assert plan_of(check) == sorted(
        [("create", "backend", "metrics.web"), ("create", "frontend", "metrics.web"),
         ("create", "bind", "v4.metrics.web")]
        + [("create", "server", "%s.metrics.web" % n) for n in ("n1", "n2", "n3")]
        + [("create", "server", "n3.http.web"), ("create", "server", "n3.https.web")]
        + [("update", "server", "n1.https.web"), ("update", "server", "n2.https.web")])
    after = ids_by_name(engine)
    assert all(after[name] == ident for name, ident in before.items())   # updated in place, nothing recreated


def test_an_unnamed_port_whose_number_changes_is_replaced_with_a_warning(engine, module):
    unnamed = copy.deepcopy(SERVICE)
    unnamed["ports"][0] = {"port": 8080, "target_port": 18080}   # named by its number: 8080.web
    moved = copy.deepcopy(unnamed)
    moved["ports"][0]["port"] = 8081
    moved["ports"][1]["port"] = 9443   # a named port: updated in place, nothing to warn about
    apply(module, unnamed)
    before = ids_by_name(engine)
    check, real = converge(module, engine, moved)
    assert ("delete", "backend", "8080.web") in plan_of(check) and ("create", "backend", "8081.web") in plan_of(check)
    for result in (check, real):
        (warning,) = [w for w in warning_texts(result) if "without a name" in w]
        assert "objects of port 8080 (8080.web) are deleted and those of port 8081 (8081.web) created" in warning
        assert warning.startswith("service web: ports[0] without a name") and "https" not in warning
    after = ids_by_name(engine)
    assert after["v4.https.web"] == before["v4.https.web"] and "8080.web" not in after and "8081.web" in after


def test_ipv6_address_added_and_another_text_form_causes_no_churn(engine, module):
    v6 = copy.deepcopy(SERVICE)
    v6["addresses"].append("FD00:10:0:0::0005")
    apply(module, SERVICE)
    check, real = converge(module, engine, v6)
    assert plan_of(check) == [("create", "bind", "v6.http.web"), ("create", "bind", "v6.https.web")]
    assert real["status"]["all"] == {"127.0.10.5": [8080, 8443], "fd00:10::5": [8080, 8443]}
    # The Engine may hand the address back in another text form: still no change.
    bind = [o for o in es.objects(engine, "bind") if o["name"] == "v6.http.web"][0]
    engine.api("PUT", "/api/LBaaS/v1/bind.json/" + bind["identifier"], json={"address": "fd00:0010:0000::5"})
    engine.reset_requests()
    assert apply(module, v6)["changed"] is False and engine.mutating_requests() == 0


def test_frontend_deleted_behind_our_back_only_it_and_its_binds_come_back(engine, module):
    apply(module, SERVICE)
    before = ids_by_name(engine)
    frontend = [o for o in es.objects(engine, "frontend") if o["name"] == "https.web"][0]
    for bind in es.objects(engine, "bind"):
        if bind["frontend"]["identifier"] == frontend["identifier"]:
            engine.api("DELETE", "/api/LBaaS/v1/bind.json/" + bind["identifier"])
    engine.api("DELETE", "/api/LBaaS/v1/frontend.json/" + frontend["identifier"])
    check, real = converge(module, engine, SERVICE)
    assert plan_of(check) == [("create", "bind", "v4.https.web"), ("create", "frontend", "https.web")]
    after = ids_by_name(engine)
    assert all(after[n] == i for n, i in before.items() if n not in ("https.web", "v4.https.web"))


def test_duplicate_backend_and_untagged_object_with_the_desired_name(engine, module):
    lb = es.lb_id(engine)
    untagged = es.create(engine, "backend", name="http.web", mode="tcp", health_check='"adv_check": "tcp-check"',
                         load_balancer=lb)
    check, real = converge(module, engine, SERVICE)
    assert ("tag", "backend", "http.web") in plan_of(check)
    assert ("create", "backend", "http.web") not in plan_of(check)
    assert es.tags(engine, untagged) == ["anxlb-svc=web"]
    dup = es.create(engine, "backend", name="http.web", mode="tcp", load_balancer=lb)
    es.tag(engine, dup, "anxlb-svc=web")
    check, real = converge(module, engine, SERVICE)
    assert objects_of(check) == [{"load_balancer": "lb1", "action": "delete", "type": "backend", "name": "http.web", "id": dup,
                                 "changes": {}, "tags": [], "reason": "duplicate of %s under the same parent" % untagged}]


def test_tagged_orphan_bind_goes_and_foreign_objects_stay(engine, module):
    lb = es.lb_id(engine)
    foreign_backend = es.create(engine, "backend", name="http.shop", mode="tcp", load_balancer=lb)
    foreign = es.create(engine, "frontend", name="http.shop", mode="tcp", load_balancer=lb,
                        default_backend=foreign_backend)
    es.tag(engine, foreign, "anxlb-svc=shop")
    foreign_bind = es.create(engine, "bind", name="v4.http.shop", address="127.0.10.6", port=80, frontend=foreign)
    es.tag(engine, foreign_bind, "anxlb-svc=shop")
    orphan = es.create(engine, "bind", name="v4.stray.web", address="127.0.10.6", port=81, frontend=foreign)
    es.tag(engine, orphan, "anxlb-svc=web")   # ours, but under a frontend that is not
    check, real = converge(module, engine, SERVICE)
    assert ("delete", "bind", "v4.stray.web") in plan_of(check)
    names_now = ids_by_name(engine)
    assert names_now["http.shop"] and names_now["v4.http.shop"] == foreign_bind and "v4.stray.web" not in names_now


def test_a_conflicting_service_fails_without_writing_and_names_the_holder(engine, module):
    other = dict(copy.deepcopy(SERVICE), name="shop", servers=[{"name": "s1", "address": "127.0.0.9"}])
    apply(module, SERVICE)
    engine.reset_requests()
    for check in (True, False):   # check mode, then a real run
        run = module("service", other, check=check)
        assert run.failed, run
        result = run.result
        assert result["conflicts"] == [
            {"load_balancer": "lb1", "load_balancer_id": es.lb_id(engine), "address": "127.0.10.5", "port": port,
             "bind": "v4.%s.shop" % name, "holder": "web", "holder_bind": "v4.%s.web" % name,
             "holder_bind_id": ids_by_name(engine)["v4.%s.web" % name]}
            for name, port in (("http", 8080), ("https", 8443))]
        assert result["msg"].startswith("service shop conflicts with binds it does not own: 127.0.10.5:8080 on lb1 "
                                        "is held by web (bind v4.http.web)")
    assert engine.mutating_requests() == 0


def test_two_load_balancers_converge_in_one_run(engine, module):
    both = dict(copy.deepcopy(SERVICE), load_balancers=["lb1", "lb2"])
    check, real = converge(module, engine, both)
    assert sorted(side(check, "after")) == ["lb1", "lb2"]
    assert side(check, "after")["lb1"] == side(check, "after")["lb2"]   # the load balancer is the key, not in the nodes
    assert check["summary"] == "lb1: 10 to add, 0 to change, 0 to destroy; lb2: 10 to add, 0 to change, 0 to destroy"
    assert real["status"]["all"] == {"127.0.10.5": [8080, 8443]}
    assert len(es.objects(engine, "server")) == 8


def test_objects_still_deploying_and_a_failed_one(engine, module):
    apply(module, SERVICE)
    ids = ids_by_name(engine)
    backend = [o for o in es.objects(engine, "backend") if o["name"] == "http.web"][0]["identifier"]
    engine.set_state(ids["n1.http.web"], "NewlyCreated")
    engine.set_state(backend, "DeploymentError")
    assert plan_of(apply(module, SERVICE, check=True)) == [("redeploy", "backend", "http.web")]
    engine.set_state(ids["n1.http.web"], None)
    assert apply(module, SERVICE)["objects"]["lb1"]["backends"][0]["state"] == "Updated"
