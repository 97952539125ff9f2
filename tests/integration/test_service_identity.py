"""Identity and ownership of the service module off the happy path (issue: reconciliation you can trust).

An object belongs to the load balancer it is on; children of our parents are ours; the whole declared
state is owned. Each scenario runs check mode first (no writes, read back), then for real (the same plan
and diff), then a no-op rerun, and reads the Engine back through its own API. Each step is the module run as
its own process (``converge`` of test_service.py): what is proved here is the module's own behaviour, against today's
Engine and one that lists whole objects (``listings``): ownership must not depend on how objects were read.
"""
import copy

from . import engine_state as es
from .conftest import side, warning_texts
from .test_service import SERVICE, apply, converge, ids_by_name, objects_of, plan_of

EMPTY = {}


def on_lb(engine, lb_name):
    """{kind: {name: fields}} of every LBaaS object on one load balancer, read through the Engine's API."""
    lb = es.lb_id(engine, lb_name)
    out = dict((kind, {}) for kind in ("backend", "frontend", "bind", "server"))
    parents = {}
    for kind in ("backend", "frontend"):
        for obj in es.objects(engine, kind):
            if obj["load_balancer"]["identifier"] == lb:
                parents[obj["identifier"]] = obj
                out[kind][obj["name"]] = obj
    for kind, link in (("bind", "frontend"), ("server", "backend")):
        for obj in es.objects(engine, kind):
            if obj[link]["identifier"] in parents:
                out[kind][obj["name"]] = obj
    return out


def declared_names(service):
    names = {"backend": set(), "frontend": set(), "bind": set(), "server": set()}
    for port in service["ports"]:
        suffix = "%s.%s" % (port["name"], service["name"])
        names["backend"].add(suffix)
        names["frontend"].add(suffix)
        for address in service["addresses"]:
            names["bind"].add("%s.%s" % ("v6" if ":" in address else "v4", suffix))
        for server in service["servers"]:
            names["server"].add("%s.%s" % (server["name"], suffix))
    return names


def assert_declared(engine, service, lb_name):
    """The Engine holds exactly the declaration on the load balancer, every backend and frontend carrying the
    owner tag; a bind or server none (ownership by containment) or, written by an earlier version, that tag."""
    found = on_lb(engine, lb_name)
    assert dict((k, set(v)) for k, v in found.items()) == declared_names(service)
    tag = "anxlb-svc=%s" % service["name"]
    for kind, objs in found.items():
        for obj in objs.values():
            assert es.tags(engine, obj["identifier"]) in (([tag],) if kind in ("backend", "frontend") else ([], [tag]))


def assert_empty(engine, lb_name):
    assert all(not objs for objs in on_lb(engine, lb_name).values())


def test_adding_dropping_and_moving_load_balancers(engine, listings, module):
    both = dict(copy.deepcopy(SERVICE), load_balancers=["lb1", "lb2"])
    only2 = dict(copy.deepcopy(SERVICE), load_balancers=["lb2"])
    apply(module, SERVICE)
    lb1_ids = ids_by_name(engine)

    # Adding lb2: a full create there, nothing on lb1 touched.
    check, _real = converge(module, engine, both)
    assert set(a["load_balancer"] for a in objects_of(check)) == {"lb2"}
    assert all(a["action"] == "create" for a in objects_of(check))
    assert check["summary"] == "lb1: 0 to add, 0 to change, 0 to destroy; lb2: 10 to add, 0 to change, 0 to destroy"
    assert_declared(engine, SERVICE, "lb1")
    assert_declared(engine, SERVICE, "lb2")
    assert dict((n, i) for n, i in on_lb_ids(engine, "lb1").items()) == lb1_ids

    # Dropping lb1: everything of ours there goes (children first), lb2 keeps every object as it was.
    lb2_ids = on_lb_ids(engine, "lb2")
    check, _real = converge(module, engine, only2)
    assert sorted(check["diff"]) == ["after", "after_header", "before", "before_header"]
    assert sorted(side(check, "before")) == ["lb1", "lb2"]
    assert side(check, "after")["lb1"] == EMPTY and side(check, "before")["lb1"] != EMPTY
    assert side(check, "after")["lb2"] == side(check, "before")["lb2"]
    assert sorted((a["load_balancer"], a["action"], a["type"]) for a in objects_of(check)) == sorted(
        [("lb1", "delete", "backend")] * 2 + [("lb1", "delete", "frontend")] * 2 + [("lb1", "delete", "bind")] * 2
        + [("lb1", "delete", "server")] * 4)
    assert check["summary"] == "lb2: 0 to add, 0 to change, 0 to destroy; lb1: 0 to add, 0 to change, 10 to destroy"
    assert_empty(engine, "lb1")
    assert_declared(engine, SERVICE, "lb2")
    assert on_lb_ids(engine, "lb2") == lb2_ids

    # Moving from lb2 to lb1 in one step: a full create on lb1, everything of ours on lb2 deleted.
    check, _real = converge(module, engine, SERVICE)
    assert sorted(set((a["load_balancer"], a["action"]) for a in objects_of(check))) == [("lb1", "create"), ("lb2", "delete")]
    assert len(objects_of(check)) == 20
    assert_declared(engine, SERVICE, "lb1")
    assert_empty(engine, "lb2")


def on_lb_ids(engine, lb_name):
    return dict((name, obj["identifier"]) for objs in on_lb(engine, lb_name).values() for name, obj in objs.items())


def test_servers_are_created_untagged_and_removed_with_their_node(engine, listings, module):
    """Ownership by containment: a node added writes no owner tag (its servers are ours through their
    backends), and dropping it again deletes them although they carry none."""
    grown = copy.deepcopy(SERVICE)
    grown["servers"].append({"name": "n3", "address": "127.0.0.3"})
    apply(module, SERVICE)
    engine.reset_requests()
    converge(module, engine, grown)
    assert not [r for r in engine.requests()["log"] if r["method"] == "POST" and "/tags/anxlb-svc=" in r["path"]]
    untagged = [o for o in es.objects(engine, "server") if o["name"].startswith("n3.")]
    assert len(untagged) == 2 and all(es.tags(engine, o["identifier"]) == [] for o in untagged)
    # Dropping n3 again: its untagged servers sit in our backends, so they are ours and go.
    check, _real = converge(module, engine, SERVICE)
    assert sorted((a["action"], a["name"]) for a in objects_of(check)) == [
        ("delete", "n3.http.web"), ("delete", "n3.https.web")]
    assert all("untagged child of a backend of ours" in a["reason"] for a in objects_of(check))
    assert_declared(engine, SERVICE, "lb1")
    # (the service absent then deletes its untagged servers with the rest: test_service.py::test_absent_then_rerun)


def test_an_untagged_child_that_is_wanted_is_ours_as_it_is_not_duplicated_nor_tagged(engine, listings, module):
    grown = copy.deepcopy(SERVICE)
    grown["servers"].append({"name": "n3", "address": "127.0.0.3"})
    apply(module, SERVICE)
    backend = on_lb(engine, "lb1")["backend"]["http.web"]["identifier"]
    # A server someone created by hand in our backend, with the name the service wants.
    crashed = es.create(engine, "server", name="n3.http.web", ip="127.0.0.3", port=18080, backend=backend,
                        check="enabled")
    check, real = converge(module, engine, grown)
    assert plan_of(check) == [("create", "server", "n3.https.web")]
    assert es.tags(engine, crashed) == []
    # the diff shows it as the service's, before and after: its backend's owner tag makes it so
    node = side(check, "after")["lb1"]["http.web"]["servers"]["n3.http.web"]
    was = side(check, "before")["lb1"]["http.web"]["servers"]["n3.http.web"]
    assert "owner" not in was and "owner" not in node   # a node shows an owner only when it is not the service


def test_an_untagged_backend_named_as_ours_is_reported_left_alone_and_adopted_when_declared(engine, listings, module):
    lb1 = es.lb_id(engine, "lb1")
    # As if a run crashed between creating port "metrics"'s backend and tagging it, and the port was
    # then dropped from the declaration: not ours (no tag, no parent of ours), so never written.
    left = es.create(engine, "backend", name="metrics.web", mode="tcp", load_balancer=lb1)
    grown = copy.deepcopy(SERVICE)
    grown["ports"].append({"name": "metrics", "port": 9100})
    engine.reset_requests()
    (warning,) = [w for w in warning_texts(apply(module, SERVICE)) if left in w]
    assert "metrics.web" in warning and "left alone" in warning and "lb1" in warning
    writes = [r for r in engine.requests()["log"] if r["method"] in ("POST", "PUT", "DELETE")]
    assert writes and not [r for r in writes if left in r["path"]]
    assert es.tags(engine, left) == []
    # Declared again, the port's backend is that object, tagged: adopted, not duplicated.
    apply(module, grown)
    assert on_lb(engine, "lb1")["backend"]["metrics.web"]["identifier"] == left
    assert es.tags(engine, left) == ["anxlb-svc=web"]


def test_a_backend_another_frontend_uses_is_not_deleted_and_the_run_says_why(engine, listings, module):
    smaller = dict(copy.deepcopy(SERVICE), ports=SERVICE["ports"][1:])
    apply(module, SERVICE)
    lb = es.lb_id(engine)
    backend = on_lb(engine, "lb1")["backend"]["http.web"]["identifier"]
    # someone else's frontend (no owner tag) uses our backend: the Engine would refuse its delete (409)
    other = es.create(engine, "frontend", name="legacy", mode="tcp", load_balancer=lb, default_backend=backend)
    before = es.snapshot(engine)
    engine.reset_requests()
    for check in (True, False):   # check mode and the real run fail alike, before any write
        run = module("service", smaller, check=check)
        assert run.message() == (
            "backend 'http.web' (%s) on load balancer lb1 cannot be deleted: frontend 'legacy' (%s), which is not this "
            "service's, uses it as its default backend; point that frontend elsewhere or delete it (or tag it with "
            "anxlb-svc=web to make it this service's), then run again" % (backend, other))
        assert run["blockers"] == [dict(load_balancer="lb1", backend="http.web", backend_id=backend,
                                        frontend="legacy", frontend_id=other)]
    assert engine.mutating_requests() == 0 and es.snapshot(engine) == before
    engine.api("DELETE", "/api/LBaaS/v1/frontend.json/" + other).raise_for_status()
    converge(module, engine, smaller)
    assert_declared(engine, smaller, "lb1")


def test_removing_optional_fields_resets_them_and_mode_switches_equal_a_fresh_create(engine, listings, module):
    tuned = copy.deepcopy(SERVICE)
    tuned["ports"][0].update(server_timeout=30000, client_timeout="20000", health_check='"adv_check": "ssl-hello-chk"')
    http = copy.deepcopy(SERVICE)
    http["ports"][0]["mode"] = "http"
    # plain real runs, one per service, for the steps that set the scene; a converge between them
    scenes = [[tuned], [http, dict(copy.deepcopy(http), load_balancers=["lb1", "lb2"])],
              [SERVICE, dict(copy.deepcopy(SERVICE), load_balancers=["lb1", "lb2"])]]

    def apply_all(services):
        for service in services:
            apply(module, service)

    apply_all(scenes[0])
    backend = on_lb(engine, "lb1")["backend"]["http.web"]
    assert (backend["server_timeout"], backend["health_check"]) == (30000, '"adv_check": "ssl-hello-chk"')
    check, _real = converge(module, engine, SERVICE)
    assert plan_of(check) == [("update", "backend", "http.web"), ("update", "frontend", "http.web")]
    found = on_lb(engine, "lb1")
    assert found["backend"]["http.web"]["server_timeout"] is None
    assert found["backend"]["http.web"]["health_check"] == '"adv_check": "tcp-check"'
    assert found["frontend"]["http.web"]["client_timeout"] is None

    def fields(lb_name):
        objs = on_lb(engine, lb_name)
        keep = ("mode", "health_check", "server_timeout", "client_timeout", "address", "port", "ssl",
                "ssl_certificate_path", "ip", "check")
        return dict((kind, dict((n, dict((k, o.get(k)) for k in keep if k in o)) for n, o in v.items()))
                    for kind, v in objs.items())

    # tcp -> http on lb1 gives exactly what a fresh http service gives on lb2; and back again.
    apply_all(scenes[1])
    assert fields("lb1") == fields("lb2")
    assert fields("lb1")["backend"]["http.web"]["health_check"] == '"httpchk": { "method": "GET", "uri": "/" }'
    apply_all(scenes[2])   # lb1 back to tcp, lb2 dropped; lb2 anew
    assert fields("lb1") == fields("lb2")
    assert fields("lb1")["backend"]["http.web"]["health_check"] == '"adv_check": "tcp-check"'


def test_bad_declarations_fail_before_any_request(engine, module):
    """A matrix of the module's own refusals: each case runs the module as its own process, in check mode (the
    playbook path of a refused service is proved in test_teardown_results.py)."""
    engine.reset_requests()
    cases = [
        (dict(SERVICE, addresses=[""]),
         "addresses[0] must not be empty (a bind without an address listens on every address)"),
        (dict(SERVICE, ports=[{"name": "tls", "port": 443, "ssl": True}]),
         "ports[0].ssl_certificate_path is required when ports[0].ssl is true"),
        (dict(SERVICE, load_balancers=["lb1", ""]), "load_balancers[1] must not be empty"),
    ]
    runs = [module("service", service, check=True) for service, _msg in cases]
    assert len(runs) == len(cases), runs
    for run, (_service, msg) in zip(runs, cases):
        assert run.message() == msg, run   # failed, with this message and no traceback
    assert engine.requests()["total"] == 0
