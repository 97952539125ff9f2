"""The maintenance switch (issue 43) through the modules, each run as its own process against the local Engine: the
per-object modules' ``enabled`` (check mode and diff first, one PUT, a rerun writes nothing, a PUT for another field
keeps it off), the info modules, the service's summary, diff and status, and input refused before any request.

Each claim holds against both readings of what the Engine does with a PUT that leaves ``enable`` out
(``--put-enable reset``, the pessimistic default, and ``keep``): the collection sends it on every PUT, so the
answers are the same. Real traffic through HAProxy: tests/e2e/test_maintenance.py."""
import pytest

from localengine.testing import MUTATING

from . import engine_state as es

BEHAVIOURS = ["reset", "keep"]   # the local Engine's put_enable: what a PUT without enable does


def lbaas_writes(done, engine):
    """(method, kind, body) of the LBaaS writes a module process sent (tag writes of leases and markers left out)."""
    out = []
    for entry in done.requests(engine):
        if entry["method"] in MUTATING and entry["path"].startswith("/api/LBaaS/"):
            out.append((entry["method"], entry["path"].split("/")[4].split(".")[0], entry["body"]))
    return out


def objects(engine, kind):
    return dict((o["name"], o) for o in es.objects(engine, kind))


@pytest.mark.parametrize("put_enable", BEHAVIOURS)
@pytest.mark.parametrize("kind", ["frontend", "backend"])
def test_an_object_module_takes_it_out_of_service_and_back_with_one_write_each(engine, module, kind, put_enable):
    engine.set_options(put_enable=put_enable)
    lb = es.lb_id(engine)
    es.create(engine, kind, name="80.web", mode="tcp", load_balancer=lb)
    task = {"load_balancer": "lb1", "name": "80.web"}

    preview = module(kind, dict(task, enabled=False), check=True, diff=True)
    assert preview["changed"] and preview.writes(engine) == 0, preview
    assert [a["changes"] for a in preview["plan"]] == [{"enabled": {"before": True, "after": False}}]
    assert "enabled: true" in preview["diff"]["before"] and "enabled: false" in preview["diff"]["after"]
    assert preview[kind]["enabled"] is False and objects(engine, kind)["80.web"]["enable"] is True

    done = module(kind, dict(task, enabled=False))
    assert done["changed"] and done[kind]["enabled"] is False, done
    ((method, written, body),) = lbaas_writes(done, engine)
    assert (method, written, body["enable"]) == ("PUT", kind, 0)   # the integer, as the legacy client writes it
    assert objects(engine, kind)["80.web"]["enable"] is False
    again = module(kind, dict(task, enabled=False))
    assert not again["changed"] and again.writes(engine) == 0, again

    # a PUT for another field, the task leaving enabled out: sent as it is, so it stays off whatever the Engine does
    other = dict(task, client_timeout="5s") if kind == "frontend" else dict(task, server_timeout="5s")
    changed = module(kind, other)
    ((method, written, body),) = lbaas_writes(changed, engine)
    assert method == "PUT" and body["enable"] == 0 and changed[kind]["enabled"] is False, changed
    assert objects(engine, kind)["80.web"]["enable"] is False
    info = module(kind + "_info", {"load_balancer": "lb1", "name": "80.web"})
    assert [o["enabled"] for o in info[kind + "s"]] == [False]

    back = module(kind, dict(task, enabled=True))
    ((method, written, body),) = lbaas_writes(back, engine)
    assert (method, body["enable"], back[kind]["enabled"]) == ("PUT", 1, True)
    assert objects(engine, kind)["80.web"]["enable"] is True


def test_a_create_that_starts_out_of_service_sends_enable_0(engine, module):
    made = module("frontend", {"load_balancer": "lb1", "name": "81.web", "mode": "tcp", "enabled": False})
    ((method, kind, body),) = lbaas_writes(made, engine)
    assert (method, kind, body["enable"], made["frontend"]["enabled"]) == ("POST", "frontend", 0, False)
    assert objects(engine, "frontend")["81.web"]["enable"] is False
    plain = module("backend", {"load_balancer": "lb1", "name": "81.web", "mode": "tcp"})   # on, as every new object
    ((method, kind, body),) = lbaas_writes(plain, engine)
    assert (method, body["enable"], plain["backend"]["enabled"]) == ("POST", 1, True)


def test_bad_input_fails_before_any_request_naming_the_option(engine, module):
    """``enabled: maybe`` anywhere it is taken, and ``enabled`` where the Engine has no switch (a bind, a server):
    Ansible's argument spec (the per-object modules' from the kinds' declaration) refuses them, naming the option."""
    engine.reset_requests()
    service = {"name": "web", "load_balancers": ["lb1"], "ports": [{"port": 80}], "servers": []}
    refused = {
        ("frontend", "maybe"): module("frontend", {"load_balancer": "lb1", "name": "80.web", "enabled": "maybe"}),
        ("backend", "maybe"): module("backend", {"load_balancer": "lb1", "name": "80.web", "enabled": "maybe"}),
        ("service", "maybe"): module("service", dict(service, enabled="maybe")),
        ("service", "port"): module("service", dict(service, ports=[{"port": 80, "enabled": "maybe"}])),
        ("bind", "unsupported"): module("bind", {"frontend": "80.web", "name": "v4", "port": 80, "enabled": False}),
        ("server", "unsupported"): module("server", {"backend": "80.web", "name": "n1", "address": "127.0.0.1",
                                                     "port": 80, "enabled": False}),
    }
    for (name, case), done in refused.items():
        text = done.message()
        if case == "unsupported":
            assert text.startswith("Unsupported parameters for (") and "enabled" in text.split(". Supported")[0], text
        else:
            assert "'enabled'" in text and "'maybe' is not a valid boolean" in text, text
            assert ("found in 'ports'" in text) == (case == "port"), text
    assert engine.requests()["total"] == 0


@pytest.mark.parametrize("put_enable", BEHAVIOURS)
def test_a_service_port_out_of_service_is_one_frontend_write_said_in_its_summary_diff_and_status(engine, module, put_enable):
    engine.set_options(put_enable=put_enable)
    ports = [{"name": "http", "port": 80}, {"name": "admin", "port": 9000}]
    service = {"name": "web", "load_balancers": ["lb1"], "addresses": ["127.0.10.31"], "ports": ports,
               "servers": [{"name": "n1", "address": "127.0.0.1"}]}
    assert not module("service", service).failed
    listening = {"127.0.10.31": [80, 9000]}
    off = dict(service, ports=[ports[0], dict(ports[1], enabled=False)])

    preview = module("service", off, check=True, diff=True)
    assert preview["changed"] and preview.writes(engine) == 0, preview
    assert preview["summary"] == "lb1: 0 to add, 1 to change (1 frontend to disable), 0 to destroy"
    assert preview["diff"]["after_header"] == preview["summary"]
    assert "    frontend: {mode: tcp, enabled: false, default_backend: admin.web}" in preview["diff"]["after"]
    assert "enabled:" not in preview["diff"]["before"]   # on, as every object unless it says otherwise
    assert preview["status"]["all"] == {"127.0.10.31": [80]}
    assert [(a["action"], a["type"], a["name"], a["changes"]) for a in preview["plan"] if a["type"] != "marker"] == [
        ("update", "frontend", "admin.web", {"enabled": {"before": True, "after": False}})]

    done = module("service", off)
    assert done["summary"] == "lb1: 0 added, 1 changed (1 frontend disabled), 0 destroyed", done
    ((method, kind, body),) = lbaas_writes(done, engine)
    assert (method, kind, body["name"], body["enable"]) == ("PUT", "frontend", "admin.web", 0)
    assert objects(engine, "frontend")["admin.web"]["enable"] is False
    assert objects(engine, "frontend")["http.web"]["enable"] is True
    assert done["status"]["all"] == {"127.0.10.31": [80]}
    assert [f["enabled"] for f in done["objects"]["lb1"]["frontends"]] == [False, True]   # admin.web, http.web
    rerun = module("service", off)
    assert not rerun["changed"] and rerun.writes(engine) == 0, rerun

    # another change of the disabled port (its timeout): the frontend's PUT keeps it off
    slower = dict(off, ports=[ports[0], dict(ports[1], enabled=False, client_timeout="20s")])
    changed = module("service", slower)
    ((method, kind, body),) = lbaas_writes(changed, engine)
    assert (body["name"], body["client_timeout"], body["enable"]) == ("admin.web", "20000", 0)
    assert objects(engine, "frontend")["admin.web"]["enable"] is False
    assert changed["summary"] == "lb1: 0 added, 1 changed, 0 destroyed"

    back = module("service", dict(service, ports=[ports[0], dict(ports[1], client_timeout="20s")]))
    assert back["summary"] == "lb1: 0 added, 1 changed (1 frontend enabled), 0 destroyed"
    ((method, kind, body),) = lbaas_writes(back, engine)
    assert (body["name"], body["enable"]) == ("admin.web", 1) and back["status"]["all"] == listening
