"""The collection speaks to the Engine as go-anxcloud's generic client does, proven through the strict local
Engine's request log (it refuses a partial PUT and deploys only a PUT carrying "state": "0")."""
import copy

from . import engine_state as es
from .test_service import SERVICE, converge_next, converge_play, ids_by_name, objects_of, task

REQUIRED = {"backend": {"name", "load_balancer", "mode"}, "frontend": {"name", "load_balancer", "mode"},
            "bind": {"name", "frontend", "port", "address", "ssl"}, "server": {"name", "backend", "ip", "port", "check"}}


def puts(engine):
    return [r for r in engine.requests()["log"] if r["method"] == "PUT"]


def test_every_update_and_redeploy_is_a_whole_object_put_with_state_0(engine, ansible):
    """gac pkg/apis/lbaas/v1/helper.go requestBody: the whole object, "state": "0"; the cloud controller's
    updateFailedResources redeploys with the same full update."""
    changed = copy.deepcopy(SERVICE)
    changed["ports"][0].update(target_port=28080, server_timeout=5000)
    plays = ansible.session([converge_play(SERVICE), ([task(changed)], {}), ([task(changed)], {})])
    converge_next(engine, plays)
    ids = ids_by_name(engine)
    engine.reset_requests()
    run = plays.next()
    assert not run.failed(), run
    engine.set_state(ids["v4.https.web"], "DeploymentError")
    run = plays.next()
    assert not run.failed() and [a["action"] for a in objects_of(run.last)] == ["redeploy"], run
    bodies = dict((r["path"].rsplit("/", 1)[1], r["body"]) for r in puts(engine))
    kinds = dict((o["identifier"], kind) for kind in REQUIRED for o in es.objects(engine, kind))
    assert set(bodies) <= set(kinds), [r["path"] for r in puts(engine)]
    assert sorted(kinds[i] for i in bodies) == ["backend", "bind", "server", "server"]
    for ident, body in bodies.items():
        assert body["state"] == "0" and body["identifier"] == ident
        assert REQUIRED[kinds[ident]] <= set(body), body
        assert not set(body) & {"customer_identifier", "reseller_identifier", "automation_rules"}
    backend = bodies[es.by_name(engine, "backend")["http.web"]["identifier"]]
    assert backend["server_timeout"] == 5000 and backend["load_balancer"] == es.lb_id(engine)
    # deployed, not merely stored: the strict Engine marks a change without state 0 as undeployed
    dump = dict((o["identifier"], o) for o in engine.dump()["objects"])
    assert not [i for i in bodies if dump[i].get("_undeployed")]
    assert es.by_name(engine, "backend")["http.web"]["state"]["title"] in ("Updated", "Deployed")


def test_a_create_answered_504_after_it_landed_leaves_no_duplicate(engine, ansible):
    """No client retries a write that may have landed: the next observation adopts what was created."""
    engine.set_faults({"script": [{"method": "POST", "path": "/api/LBaaS/v1/*", "commit_then": 504, "count": 3},
                                  {"method": "POST", "path": "/api/core/v1/resource.json/*/tags/anxlb-svc=*",
                                   "commit_then": "drop", "count": 2}]})
    plays = ansible.session([([task(SERVICE)], {}), ([task(SERVICE)], {})])   # the run, then a rerun
    run = plays.next()
    assert not run.failed(), run
    assert run.last["interruptions"], run.last   # the run had to look again, and said so
    engine.clear_faults()
    names = [(kind, o["name"]) for kind in ("backend", "frontend", "bind", "server") for o in es.objects(engine, kind)]
    assert len(names) == len(set(names)) == 10
    # the parents carry the owner tag; binds and servers none (theirs by containment): none was left untagged
    assert all(es.tags(engine, o["identifier"]) == (["anxlb-svc=web"] if kind in ("backend", "frontend") else [])
               for kind in ("backend", "frontend", "bind", "server") for o in es.objects(engine, kind))
    engine.reset_requests()
    rerun = plays.next()
    assert not rerun.failed() and rerun.last["changed"] is False and engine.mutating_requests() == 0, rerun
