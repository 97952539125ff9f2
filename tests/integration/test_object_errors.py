"""Bad input and Engine errors: a clear message naming the option, no traceback, nothing written."""
import pytest

from . import engine_state as es


def backend(**args):
    base = {"load_balancer": "lb1", "name": "80.web", "mode": "tcp"}
    base.update(args)
    return {"anxcloud.lbaas.backend": base}


def failed_without_writes(engine, run):
    assert run.failed(), run
    assert engine.mutating_requests() == 0
    result = run.last
    # ansible-core 2.19 puts "(traceback unavailable)" on every failure without one
    assert "Traceback" not in result.get("exception", "") and "Traceback" not in run.proc.stdout
    return result["msg"]


@pytest.mark.parametrize("check", [False, True])
def test_unknown_parent(engine, ansible, check):
    engine.reset_requests()
    run = ansible.run({"anxcloud.lbaas.server": {"backend": "nope", "load_balancer": "lb1", "name": "s", "ip": "127.0.0.1",
                                                 "port": 80}}, check=check)
    if check:   # check mode predicts as if an earlier task of the play created the parent
        assert not run.failed() and run.last["changed"] is True
        assert run.last["warnings"] == ["backend: no backend named 'nope' exists yet; predicting as if an earlier "
                                        "task created it"]
        assert engine.mutating_requests() == 0
    else:
        assert failed_without_writes(engine, run) == "backend: no backend named 'nope' exists on load balancer 'lb1'"


def test_unknown_load_balancer(engine, ansible):
    engine.reset_requests()
    run = ansible.run(backend(load_balancer="nope"))
    assert failed_without_writes(engine, run) == "load_balancer: no load balancer named 'nope' exists"


def test_ambiguous_name(engine, ansible):
    lb = es.lb_id(engine)
    ids = sorted(es.create(engine, "backend", name="dup", mode="tcp", load_balancer=lb) for dummy in range(2))
    engine.reset_requests()
    run = ansible.run(backend(name="dup"))
    assert failed_without_writes(engine, run) == (
        "name: 2 backends named 'dup' on load balancer 'lb1' (ids %s, %s); give the id to pick one" % tuple(ids))
    # the escape hatch picks one of them
    run = ansible.run(backend(name="dup", id=ids[0], load_balancer=None))
    assert not run.failed(), run
    assert run.last["changed"] is False and run.last["backend"]["id"] == ids[0]


@pytest.mark.parametrize("args, msg", [
    ({"port": 70000}, "port must be between 1 and 65535, got 70000"),
    ({"port": 0}, "port must be between 1 and 65535, got 0"),
    ({"address": "300.1.1.1"}, "address: '300.1.1.1' is not a valid IP address"),
    ({"address": "fe80::zz"}, "address: 'fe80::zz' is not a valid IP address"),
])
def test_invalid_bind_input(engine, ansible, args, msg):
    task = {"frontend": "80.web", "load_balancer": "lb1", "name": "v4.80.web", "address": "127.0.0.1", "port": 80}
    task.update(args)
    engine.reset_requests()
    run = ansible.run({"anxcloud.lbaas.bind": task})
    assert failed_without_writes(engine, run) == msg
    assert engine.requests()["total"] == 0   # refused before asking the Engine anything


def test_invalid_server_ip(engine, ansible):
    engine.reset_requests()
    run = ansible.run({"anxcloud.lbaas.server": {"backend": "80.web", "name": "s", "ip": "not-an-ip", "port": 80}})
    assert failed_without_writes(engine, run) == "address: 'not-an-ip' is not a valid IP address"   # ip is the alias


def test_missing_token(engine, ansible):
    engine.reset_requests()
    run = ansible.run(backend(), token=False)
    assert failed_without_writes(engine, run) == "missing required arguments: api_token"
    assert engine.requests()["total"] == 0


def test_wrong_token_is_reported_and_never_shown(engine, ansible):
    secret = "wrong-token-0123456789abcdef"
    engine.reset_requests()
    run = ansible.run(backend(api_token=secret))
    msg = failed_without_writes(engine, run)
    assert "403" in msg and "access denied" in msg.lower()
    assert run.last["error"]["status"] == 403
    assert run.last["error"]["method"] == "GET"
    assert secret not in run.proc.stdout + run.proc.stderr + repr(run.records)


def test_a_delete_the_engine_would_refuse_fails_alike_in_check_mode_and_for_real(engine, ansible):
    """Children present: the Engine answers 409. Check mode must not promise the delete; both runs fail
    with the same message, naming what still hangs on the object, and write nothing."""
    lb = es.lb_id(engine)
    backend_id = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    server = es.create(engine, "server", name="n1.80.web", ip="127.0.0.1", port=80, backend=backend_id)
    frontend = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=backend_id)
    msgs = []
    for check in (True, False):
        engine.reset_requests()
        run = ansible.run(backend(state="absent"), check=check)
        msgs.append(failed_without_writes(engine, run))
    assert msgs[0] == msgs[1] == (
        "backend '80.web' (%s) cannot be deleted: server 'n1.80.web' (%s), frontend '80.web' (%s) still use it; "
        "delete those first" % (backend_id, server, frontend))
    assert sorted(o["identifier"] for o in es.objects(engine, "backend")) == [backend_id]


def test_moving_a_server_by_name_with_recreate_creates_before_it_deletes(engine, ansible):
    lb = es.lb_id(engine)
    old_backend = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    es.create(engine, "backend", name="81.web", mode="tcp", load_balancer=lb)
    old = es.create(engine, "server", name="n1", ip="127.0.0.1", port=80, backend=old_backend)
    task = {"anxcloud.lbaas.server": {"load_balancer": "lb1", "backend": "81.web", "name": "n1", "ip": "127.0.0.1",
                                      "port": 80, "recreate": True}}
    engine.reset_requests()
    check = ansible.run(task, check=True, diff=True)
    assert not check.failed(), check
    assert engine.mutating_requests() == 0
    assert [(a["action"], a["id"] == old) for a in check.last["plan"]] == [("create", False), ("delete", True)]
    engine.reset_requests()
    real = ansible.run(task, diff=True)
    assert not real.failed(), real
    writes = [(r["method"], r["path"].split("?")[0]) for r in engine.requests()["log"] if r["method"] != "GET"]
    assert writes[0] == ("POST", "/api/LBaaS/v1/server.json") and writes[-1] == ("DELETE", "/api/LBaaS/v1/server.json/" + old)
    servers = es.objects(engine, "server")
    assert [(s["name"], s["backend"]["name"]) for s in servers] == [("n1", "81.web")]   # moved, not copied
    rerun = ansible.run(task)
    assert not rerun.failed() and rerun.last["changed"] is False, rerun
