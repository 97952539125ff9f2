"""Idempotent teardown, honest results and input refused before any request (issue 18, points 5 and 6).

Every scenario runs the modules as their own processes against the local Engine (the ``module`` fixture, here forked
from a server that imported Ansible's module base once: ``ForkedModule``): an
idempotent teardown, an honest result and a refusal are the module's own behaviour; the first case of the matrix of
refused input also runs in real ansible-playbook, for real and in check mode. The Engine's request log proves where
nothing was written, and its own API is read back for what must (or must not) be there.
"""

from . import engine_state as es
from .conftest import warning_texts
from .test_service import SERVICE, objects_of

from localengine.testing import MUTATING

LB = "lb1"


def obj(kind, **args):
    return {"anxcloud.lbaas.%s" % kind: args}


def absent(task):
    (module, args), = task.items()
    return {module: dict(args, state="absent")}


def failing(task):
    return dict(task, ignore_errors=True)


def writes_of(run, engine):
    """The mutating requests a module process sent."""
    return [e for e in run.requests(engine) if e["method"] in MUTATING]


def run(module, task):
    """``task`` ({"anxcloud.lbaas.X": args}, perhaps with task keywords) as the module's own process."""
    (name,) = [key for key in task if key.startswith("anxcloud.lbaas.")]
    return module(name.rsplit(".", 1)[1], task[name])


BACKEND = obj("backend", load_balancer=LB, name="80.web", mode="tcp")
SERVER = obj("server", load_balancer=LB, backend="80.web", name="n1.80.web", address="127.0.0.1", port=18080)
FRONTEND = obj("frontend", load_balancer=LB, name="80.web", mode="tcp", default_backend="80.web")
BIND = obj("bind", load_balancer=LB, frontend="80.web", name="v4.80.web", address="127.0.10.5", port=8080)
TEARDOWN = [absent(BIND), absent(FRONTEND), absent(SERVER), absent(BACKEND)]   # dependency order


def test_a_teardown_run_twice_is_ok_and_unchanged_the_second_time(engine, module):
    service = dict(SERVICE, name="gone")
    tasks = [BACKEND, SERVER, FRONTEND, BIND] + TEARDOWN + TEARDOWN + [
        # the load balancer itself is gone: nothing can be left to delete there
        absent(obj("backend", load_balancer="no-such-lb", name="80.web")),
        absent(obj("bind", load_balancer="no-such-lb", frontend="80.web", name="v4.80.web")),
        {"anxcloud.lbaas.service": dict(service, load_balancers=["no-such-lb"], state="absent")},
        {"anxcloud.lbaas.service": dict(service, load_balancers=["no-such-lb"])},   # present still fails
    ]
    runs = [run(module, task) for task in tasks]
    assert not any(r.failed for r in runs[:15]), runs
    for index in range(4, 8):   # the first teardown deleted one object each
        assert runs[index]["changed"] is True and [a["action"] for a in runs[index]["plan"]] == ["delete"]
    for index in range(8, 15):  # the second, and under a gone load balancer: nothing to do, nothing written
        assert runs[index]["changed"] is False and runs[index]["plan"] == [], (index, runs[index])
        assert writes_of(runs[index], engine) == [], index
    assert warning_texts(runs[14].result) == [
        "service gone: load_balancers[0]: no load balancer named 'no-such-lb' exists; nothing to remove there"]
    assert runs[15].message() == "load_balancers[0]: no load balancer named 'no-such-lb' exists"
    assert writes_of(runs[15], engine) == []
    for kind in ("backend", "frontend", "bind", "server"):
        assert es.objects(engine, kind) == [], kind


def test_a_run_that_wrote_then_failed_reports_changed_and_its_plan(engine, module):
    # Every read of a server answers 500 once the servers exist: the creates land, the wait fails.
    engine.set_faults({"script": [{"method": "GET", "path": "/api/LBaaS/v1/server.json/*", "status": 500, "count": 100}]})
    service = dict(SERVICE, api_retries=0)
    runs = [module("service", service), module("backend", dict(load_balancer=LB, name="81.web", mode="tcp", api_retries=0)),
            module("server", dict(load_balancer=LB, backend="81.web", name="n1", address="127.0.0.1", port=18081,
                                  api_retries=0))]
    engine.clear_faults()   # for the read back
    result = runs[0]
    assert result["changed"] is True, result
    assert "HTTP 500" in result.message() and "/api/LBaaS/v1/server.json/" in result["msg"]
    assert sorted(set((a["action"], a["type"]) for a in objects_of(result))) == [
        ("create", "backend"), ("create", "bind"), ("create", "frontend"), ("create", "server")]
    assert len(objects_of(result)) == 10
    written = writes_of(result, engine)
    assert len([e for e in written if e["method"] == "POST" and "/tags/" not in e["path"]]) == 10
    # what the plan created is there, read back: the changed=true is the truth
    assert sorted(es.by_name(engine, "server")) == ["n1", "n1.http.web", "n1.https.web", "n2.http.web", "n2.https.web"]
    # the per-object modules too: a backend that needs no server read succeeds, the server's wait fails
    assert not runs[1].failed and runs[1]["changed"] is True
    assert runs[2].failed and runs[2]["changed"] is True, runs[2]
    assert [(a["action"], a["type"], a["name"]) for a in runs[2]["plan"]] == [("create", "server", "n1")]


def test_an_adopted_object_in_deployment_error_is_redeployed_then_fails_clearly(engine, module):
    lb = es.lb_id(engine)
    failed_twice = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    recovers = es.create(engine, "backend", name="81.web", mode="tcp", load_balancer=lb)
    for ident in (failed_twice, recovers):   # untagged leftovers in DeploymentError
        engine.set_state(ident, "DeploymentError")
    engine.set_faults({"deploy": [{"match": "80.web", "outcome": "error"}]})   # its redeploy fails too
    runs = [module("backend", dict(load_balancer=LB, name="80.web", mode="tcp", owner="web")),
            module("backend", dict(load_balancer=LB, name="81.web", mode="tcp", owner="web"))]
    result = runs[0]
    assert result["changed"] is True, result
    assert result.message() == ("backend '80.web' (%s) failed to deploy (DeploymentError) again after a redeploy request: "
                                "the Engine gives no reason; its fields: mode=tcp, enabled=True" % failed_twice)
    assert [(a["action"], a["reason"]) for a in result["plan"]] == [("tag", "owner tag missing")]
    redeploys = [e for e in writes_of(result, engine) if e["method"] == "PUT"]
    assert len(redeploys) == 1 and redeploys[0]["body"]["state"] == "0" and failed_twice in redeploys[0]["path"]
    # the other one is adopted, redeployed once and deployed: ok, changed, its state read back
    assert not runs[1].failed and runs[1]["changed"] is True and runs[1]["backend"]["state"] == "Updated"
    backends = es.by_name(engine, "backend")
    assert backends["81.web"]["state"]["title"] == "Updated"
    assert backends["80.web"]["state"]["title"] == "DeploymentError"
    assert es.tags(engine, failed_twice) == es.tags(engine, recovers) == ["anxlb-svc=web"]


def test_a_service_adopting_a_leftover_in_deployment_error_waits_for_it(engine, module):
    lb = es.lb_id(engine)
    service = dict(SERVICE, ports=[SERVICE["ports"][0]], servers=[SERVICE["servers"][0]])
    leftover = es.create(engine, "backend", name="http.web", mode="tcp", health_check='"adv_check": "tcp-check"',
                         load_balancer=lb)
    engine.set_state(leftover, "DeploymentError")
    done = module("service", service)
    assert not done.failed, done
    adopted = [a for a in done["plan"] if a["id"] == leftover]
    assert [a["action"] for a in adopted] == ["tag"]
    assert [e["method"] for e in writes_of(done, engine) if e["path"].endswith(leftover)] == ["PUT"]   # redeployed
    assert es.by_name(engine, "backend")["http.web"]["state"]["title"] == "Updated"


def test_an_object_listed_then_gone_before_its_get_counts_as_gone(engine, module):
    lb = es.lb_id(engine)
    backend = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    other = es.create(engine, "frontend", name="other", mode="tcp", load_balancer=lb)
    # Deleting the backend reads every frontend of the load balancer (which ones point at it); one of them
    # answers 404 between its listing and its read, as one deleted meanwhile by another run does.
    engine.set_faults({"script": [{"method": "GET", "path": "/api/LBaaS/v1/frontend.json/" + other, "status": 404}]})
    done = run(module, absent(BACKEND))
    assert not done.failed, done
    assert done["changed"] is True
    gets = [e for e in done.requests(engine) if e["method"] == "GET" and e["path"].endswith(other)]
    assert [e["status"] for e in gets] == [404]
    assert [e["path"] for e in writes_of(done, engine)] == ["/api/LBaaS/v1/backend.json/" + backend]
    assert sorted(es.by_name(engine, "frontend")) == ["other"] and es.objects(engine, "backend") == []


REFUSED = [
    (dict(SERVICE, addresses=["0.0.0.0"]),
     "addresses[0]: '0.0.0.0' is the unspecified address, which means every address; give one address"),
    (dict(SERVICE, addresses=["127.0.10.5", "::"]),
     "addresses[1]: '::' is the unspecified address, which means every address; give one address"),
    (dict(SERVICE, addresses=["::ffff:127.0.10.5"]),
     "addresses[0]: '::ffff:127.0.10.5' is an IPv4-mapped IPv6 address; write the IPv4 address 127.0.10.5"),
    (dict(SERVICE, servers=[{"name": "n1", "address": "0.0.0.0"}]),
     "servers[0].address: '0.0.0.0' is the unspecified address, which means every address; give one address"),
    (dict(SERVICE, ports=[{"name": "http", "port": 8080, "server_timeout": "9999999h"}]),
     "ports[0].server_timeout must be at most 2147483647 milliseconds (about 24 days, HAProxy's limit), got '9999999h'"),
    (dict(SERVICE, ports=[{"name": "http", "port": 8080, "client_timeout": 2147483648}]),
     "ports[0].client_timeout must be at most 2147483647 milliseconds (about 24 days, HAProxy's limit), got 2147483648"),
]
REFUSED_OBJECTS = [
    (dict(BIND, **{"anxcloud.lbaas.bind": dict(BIND["anxcloud.lbaas.bind"], address="0.0.0.0")}),
     "address: '0.0.0.0' is the unspecified address, which means every address; give one address"),
    (dict(BIND, **{"anxcloud.lbaas.bind": dict(BIND["anxcloud.lbaas.bind"], address="::ffff:127.0.10.5")}),
     "address: '::ffff:127.0.10.5' is an IPv4-mapped IPv6 address; write the IPv4 address 127.0.10.5"),
    (obj("backend", load_balancer=LB, name="80.web", server_timeout="596524h"),
     "server_timeout must be at most 2147483647 milliseconds (about 24 days, HAProxy's limit), got '596524h'"),
    (obj("backend", load_balancer=LB, name=""), "name must not be empty"),
    (absent(obj("frontend", load_balancer=LB, name=" ")), "name must not be empty"),
    (obj("server", load_balancer=LB, backend="", name="n1", address="127.0.0.1", port=80), "backend must not be empty"),
]


def test_input_that_cannot_be_right_is_refused_before_any_request(engine, ansible, module):
    cases = [({"anxcloud.lbaas.service": service}, msg) for service, msg in REFUSED] + REFUSED_OBJECTS
    engine.reset_requests()
    # the playbook path, for real and in check mode
    (first, first_message), rest = cases[0], cases[1:]
    play = ansible.run([failing(first), failing(dict(first, check_mode=True))])
    assert len(play.records) == 2, play
    for index in (0, 1):
        assert play.failed(index) and play[index]["msg"] == first_message, (index, play[index])
        assert "Traceback" not in play[index].get("exception", "")
    # the others, for real and in check mode: the module's own refusal, each run as its own process
    for task, msg in rest:
        (name, args), = task.items()
        for check in (False, True):
            refused = module(name.rsplit(".", 1)[1], args, check=check)
            assert refused.message() == msg, (task, check, refused)
    assert engine.requests()["total"] == 0


def test_a_create_that_landed_unanswered_is_adopted_and_waited_for(engine, module):
    # The backend's create is carried out but its answer lost (504), and its deployment fails once: the next
    # round adopts it (untagged, the desired name) and waits for it, which redeploys it.
    engine.set_faults({"script": [{"method": "POST", "path": "/api/LBaaS/v1/backend.json", "commit_then": 504}],
                       "deploy": [{"match": "http.web", "outcome": "error", "count": 1}]})
    service = dict(SERVICE, ports=[SERVICE["ports"][0]], servers=[SERVICE["servers"][0]])
    done = module("service", service)
    assert not done.failed, done
    assert done["changed"] is True and done["interruptions"], done
    (backend,) = list(es.objects(engine, "backend"))   # adopted, not duplicated
    assert backend["name"] == "http.web" and backend["state"]["title"] == "Updated"
    assert es.tags(engine, backend["identifier"]) == ["anxlb-svc=web"]
    redeploys = [e for e in writes_of(done, engine) if e["method"] == "PUT" and e["path"].endswith(backend["identifier"])]
    assert len(redeploys) == 1 and redeploys[0]["body"]["state"] == "0"


def test_gc_that_removed_part_of_an_owner_then_failed_reports_changed(engine, module):
    service = dict(SERVICE, ports=[SERVICE["ports"][0]], servers=[SERVICE["servers"][0]])
    setup = module("service", service)
    assert not setup.failed, setup
    # The children go; every delete of the backend then fails: the owner is left half removed.
    engine.set_faults({"script": [{"method": "DELETE", "path": "/api/LBaaS/v1/backend.json/*", "status": 500,
                                   "count": 100}]})
    gc = module("gc", {"remove": ["web"], "api_retries": 0})
    engine.clear_faults()
    assert gc["changed"] is True and gc.message().startswith("gc could not remove everything of web: ")
    deleted = set(e["path"].split("/")[4] for e in writes_of(gc, engine) if e["method"] == "DELETE")
    assert {"server.json", "bind.json", "frontend.json"} <= deleted
    assert es.objects(engine, "server") == [] and [b["name"] for b in es.objects(engine, "backend")] == ["http.web"]
