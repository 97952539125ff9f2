"""Bad input and Engine errors: a clear message naming the option, no traceback, nothing written. The modules'
own refusals run as module processes; the token's, which the controller must not show, through ansible-playbook."""

from . import engine_state as es
from .conftest import warning_texts


def backend(**args):
    base = {"load_balancer": "lb1", "name": "80.web", "mode": "tcp"}
    base.update(args)
    return {"anxcloud.lbaas.backend": base}


def failed_without_writes(engine, play, index=-1):
    """The message of the ``index``-th task of ``play``, which must have failed without a traceback and
    without a mutating request (its requests told apart in the local Engine's log by time)."""
    assert play.failed(index), play
    assert play.writes(engine, index) == 0
    result = play[index]
    # ansible-core 2.19 puts "(traceback unavailable)" on every failure without one
    assert "Traceback" not in result.get("exception", "") and "Traceback" not in play.proc.stdout
    return result["msg"]


def failing(task):
    """``task`` in a play that goes on after it fails."""
    return dict(task, ignore_errors=True)


def test_unknown_parent(engine, module):
    server = {"backend": "nope", "load_balancer": "lb1", "name": "s", "ip": "127.0.0.1", "port": 80}
    engine.reset_requests()
    check = module("server", server, check=True)
    # check mode predicts as if an earlier task of the play created the parent
    assert not check.failed and check["changed"] is True, check
    assert warning_texts(check.result) == ["backend: no backend named 'nope' exists yet; predicting as if an earlier "
                                           "task created it"]
    assert check.writes(engine) == 0
    real, other = module("server", server), module("backend", backend(load_balancer="nope")["anxcloud.lbaas.backend"])
    assert real.message() == "backend: no backend named 'nope' exists on load balancer 'lb1'"
    assert other.message() == "load_balancer: no load balancer named 'nope' exists"
    assert engine.mutating_requests() == 0


def test_ambiguous_name(engine, module):
    lb = es.lb_id(engine)
    ids = sorted(es.create(engine, "backend", name="dup", mode="tcp", load_balancer=lb) for dummy in range(2))
    engine.reset_requests()
    assert module("backend", backend(name="dup")["anxcloud.lbaas.backend"]).message() == (
        "name: 2 backends named 'dup' on load balancer 'lb1' (ids %s, %s); give the id to pick one" % tuple(ids))
    assert engine.mutating_requests() == 0
    # then the escape hatch picks one of them
    picked = module("backend", {"name": "dup", "id": ids[0], "mode": "tcp"})
    assert not picked.failed, picked
    assert picked["changed"] is False and picked["backend"]["id"] == ids[0]


BIND = {"frontend": "80.web", "load_balancer": "lb1", "name": "v4.80.web", "address": "127.0.0.1", "port": 80}
INVALID_BINDS = [
    ({"port": 70000}, "port must be between 1 and 65535, got 70000"),
    ({"port": 0}, "port must be between 1 and 65535, got 0"),
    ({"address": "300.1.1.1"}, "address: '300.1.1.1' is not a valid IP address"),
    ({"address": "fe80::zz"}, "address: 'fe80::zz' is not a valid IP address"),
]


def test_invalid_bind_and_server_input(engine, module):
    """The module's own refusal, each case a process of its own (a refusal through the controller, without a
    traceback in its output: test_a_missing_or_wrong_token_is_reported_and_never_shown)."""
    engine.reset_requests()
    for args, msg in INVALID_BINDS:
        run = module("bind", dict(BIND, **args))
        assert run.message() == msg, args
        assert run.requests(engine) == []   # refused before asking the Engine anything
    run = module("server", {"backend": "80.web", "name": "s", "ip": "not-an-ip", "port": 80})
    assert run.message() == "address: 'not-an-ip' is not a valid IP address"   # ip is the alias
    assert run.requests(engine) == []
    assert engine.requests()["total"] == 0


def test_a_task_the_engine_throttled_says_what_to_set(engine, module):
    """Two 429s with Retry-After 0: retried, the read succeeds, and the task warns that it halved its requests
    in flight twice (16 -> 4) and names the setting."""
    engine.set_faults({"retry_after": 0, "script": [{"method": "GET", "path": "/api/", "status": 429, "count": 2}]})
    run = module("frontend_info", {"load_balancer": "lb1"})
    assert not run.failed and run["frontends"] == [], run
    assert warning_texts(run.result) == ["the Engine rate-limited this task (HTTP 429), so it sent at most 4 requests at once "
                                         "from then on instead of 16; set api_concurrency to 4 or run fewer forks"]
    assert [e["status"] for e in run.requests(engine)][:3] == [429, 429, 200]


def test_a_missing_or_wrong_token_is_reported_and_never_shown(engine, ansible):
    secret = "wrong-token-0123456789abcdef"
    engine.reset_requests()
    play = ansible.run([failing(backend()), failing(backend(api_token=secret))], token=False)
    assert len(play.records) == 2, play
    assert failed_without_writes(engine, play, 0) == (
        "missing required arguments: api_token. api_token: set the api_token option (for example under module_defaults "
        "for group/anxcloud.lbaas.lbaas) or the ANEXIA_TOKEN environment variable.")
    assert play.requests(engine, 0) == []
    msg = failed_without_writes(engine, play, 1)
    assert "403" in msg and "access denied" in msg.lower()
    assert play[1]["error"]["status"] == 403
    assert play[1]["error"]["method"] == "GET"
    assert secret not in play.proc.stdout + play.proc.stderr + repr(play.records)


def test_a_delete_the_engine_would_refuse_fails_alike_in_check_mode_and_for_real(engine, module):
    """Children present: the Engine answers 409. Check mode must not promise the delete; both runs fail
    with the same message, naming what still hangs on the object, and write nothing."""
    lb = es.lb_id(engine)
    backend_id = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    server = es.create(engine, "server", name="n1.80.web", ip="127.0.0.1", port=80, backend=backend_id)
    frontend = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=backend_id)
    before = engine.dump()
    engine.reset_requests()
    args = backend(state="absent")["anxcloud.lbaas.backend"]
    runs = [module("backend", args, check=True), module("backend", args)]
    msgs = [run.message() for run in runs]
    assert [run.writes(engine) for run in runs] == [0, 0]
    assert msgs[0] == msgs[1] == (
        "backend '80.web' (%s) cannot be deleted: server 'n1.80.web' (%s), frontend '80.web' (%s) still use it; "
        "delete those first" % (backend_id, server, frontend))
    assert sorted(o["identifier"] for o in es.objects(engine, "backend")) == [backend_id]
    assert engine.dump() == before


def test_moving_a_server_by_name_with_recreate_creates_before_it_deletes(engine, module):
    lb = es.lb_id(engine)
    old_backend = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    es.create(engine, "backend", name="81.web", mode="tcp", load_balancer=lb)
    old = es.create(engine, "server", name="n1", ip="127.0.0.1", port=80, backend=old_backend)
    args = {"load_balancer": "lb1", "backend": "81.web", "name": "n1", "ip": "127.0.0.1", "port": 80, "recreate": True}
    before = engine.dump()
    engine.reset_requests()
    check = module("server", args, check=True, diff=True)
    assert engine.dump() == before
    real, rerun = module("server", args, diff=True), module("server", args)   # check, real, rerun
    assert not any(run.failed for run in (check, real, rerun)), (check, real, rerun)
    assert check.writes(engine) == 0
    assert [(a["action"], a["id"] == old) for a in check["plan"]] == [("create", False), ("delete", True)]
    writes = [(r["method"], r["path"].split("?")[0]) for r in real.requests(engine) if r["method"] != "GET"]
    assert writes[0] == ("POST", "/api/LBaaS/v1/server.json") and writes[-1] == ("DELETE", "/api/LBaaS/v1/server.json/" + old)
    assert rerun["changed"] is False and rerun.writes(engine) == 0
    servers = es.objects(engine, "server")
    assert [(s["name"], s["backend"]["name"]) for s in servers] == [("n1", "81.web")]   # moved, not copied


def test_moving_a_frontend_to_another_load_balancer_deletes_it_where_it_was(engine, module):
    """recreate=true by id across load balancers: the plan creates the copy on lb2 and labels the old one's delete
    with lb1, where it is (it used to say lb2 for both), in check mode as in the real run."""
    old = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=es.lb_id(engine))
    args = {"id": old, "load_balancer": "lb2", "recreate": True}
    before = engine.dump()
    engine.reset_requests()
    check = module("frontend", args, check=True)
    assert check.writes(engine) == 0 and engine.dump() == before
    real = module("frontend", args)
    for run in (check, real):
        assert not run.failed, run
        assert [(a["action"], a["load_balancer"], a["id"] == old) for a in run["plan"]] == [
            ("create", "lb2", False), ("delete", "lb1", True)]
    assert [(f["name"], f["load_balancer"]["name"]) for f in es.objects(engine, "frontend")] == [("80.web", "lb2")]


def acl_body(name, parent_type, parent, index=0, value="10.0.0.0/8"):
    return {"name": name, "parent_type": parent_type, parent_type: parent, "criterion": "src", "value": value,
            "index": index}


def test_a_parent_holding_acls_and_rules_fails_alike_in_check_mode_and_for_real(engine, module):
    """Issue 28: a frontend holding an ACL and a rule, a backend holding a server and an ACL. What blocks a delete
    comes from the kinds' declaration (children of every kind, objects linking to it): check mode fails as the
    real run does, with the same message naming every child, and neither sends a write (the Engine read back)."""
    lb = es.lb_id(engine)
    backend_id = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    server = es.create(engine, "server", name="n1.80.web", ip="127.0.0.1", port=80, backend=backend_id)
    backend_acl = es.create(engine, "ACL", **acl_body("health", "backend", backend_id))
    frontend = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=backend_id)
    office = es.create(engine, "ACL", **acl_body("office", "frontend", frontend))
    rule = es.create(engine, "rule", name="accept-office", parent_type="frontend", frontend=frontend, index=0,
                     condition="if", condition_test="office", type="connection", action="accept")
    before = engine.dump()
    engine.reset_requests()
    runs = {}
    for kind in ("frontend", "backend"):
        args = {"load_balancer": "lb1", "name": "80.web", "state": "absent"}
        runs[kind] = [module(kind, args, check=True), module(kind, args)]
    for kind, (check, real) in runs.items():
        assert check.message() == real.message(), kind
        assert check.writes(engine) == real.writes(engine) == 0, kind
        assert check["blockers"] == real["blockers"]
    assert runs["frontend"][0].message() == (
        "frontend '80.web' (%s) cannot be deleted: ACL 'office' (%s), rule 'accept-office' (%s) still use it; "
        "delete those first" % (frontend, office, rule))
    assert runs["backend"][0].message() == (
        "backend '80.web' (%s) cannot be deleted: server 'n1.80.web' (%s), ACL 'health' (%s), frontend '80.web' (%s) "
        "still use it; delete those first" % (backend_id, server, backend_acl, frontend))
    assert runs["frontend"][0]["blockers"] == [{"type": "acl", "id": office, "name": "office"},
                                               {"type": "rule", "id": rule, "name": "accept-office"}]
    assert engine.mutating_requests() == 0
    assert engine.dump() == before
    # one listing per kind that can point at it (bind, ACL, rule), and no reads of the children's details
    frontend_check = [r["path"].split("?")[0] for r in runs["frontend"][0].requests(engine)]
    assert not [p for p in frontend_check if p.startswith(("/api/LBaaS/v1/ACL.json/", "/api/LBaaS/v1/rule.json/",
                                                           "/api/LBaaS/v1/bind.json/"))], frontend_check
