"""The integration matrix of every per-object module, each run a module process against the local Engine (the
subject is the module's own behaviour; a task of a playbook adds the controller, which the check-mode predictions
across tasks and the printed diff are tested with): check mode + diff (nothing written) -> real run (same diff)
-> rerun (no change, no write) -> rerun in check mode; then an in-place update and a delete the same way."""
import re

import pytest

from . import engine_state as es
from .conftest import side

HC = '"adv_check": "tcp-check"'


def setup_backend(engine, owner=None):
    backend = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=es.lb_id(engine))
    if owner:
        es.tag(engine, backend, "anxlb-svc=" + owner)
    return backend


def setup_frontend(engine, owner=None):
    backend = setup_backend(engine)
    frontend = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=es.lb_id(engine),
                         default_backend=backend)
    if owner:
        es.tag(engine, frontend, "anxlb-svc=" + owner)
    return frontend


CASES = {
    "backend": dict(
        setup=lambda engine: {"parent": es.lb_id(engine)},
        task={"load_balancer": "lb1", "name": "80.web", "mode": "tcp", "health_check": HC, "owner": "web"},
        after=lambda ids: {"name": "80.web", "load_balancer": ids["parent"], "mode": "tcp", "health_check": HC,
                           "server_timeout": None, "enabled": True, "owner": "web"},   # created enabled
        update=("mode", "tcp", "http"),
    ),
    "frontend": dict(
        setup=lambda engine: {"parent": es.lb_id(engine), "backend": setup_backend(engine)},
        task={"load_balancer": "lb1", "name": "80.web", "mode": "tcp", "default_backend": "80.web",
              "client_timeout": "5000", "owner": "web"},
        after=lambda ids: {"name": "80.web", "load_balancer": ids["parent"], "mode": "tcp",
                           "default_backend": ids["backend"], "client_timeout": "5000", "enabled": True, "owner": "web"},
        update=("client_timeout", "5000", "6000"),
    ),
    "bind": dict(
        # with owner, a bind's frontend carries the owner tag (ownership by containment)
        setup=lambda engine: {"parent": setup_frontend(engine, owner="web")},
        task={"load_balancer": "lb1", "frontend": "80.web", "name": "v4.80.web", "address": "127.0.0.1",
              "port": 8080, "owner": "web"},
        after=lambda ids: {"name": "v4.80.web", "frontend": ids["parent"], "address": "127.0.0.1", "port": 8080,
                           "ssl": None, "ssl_certificate_path": None, "owner": "web"},
        update=("port", 8080, 8081),
    ),
    "server": dict(
        setup=lambda engine: {"parent": setup_backend(engine, owner="web")},
        task={"load_balancer": "lb1", "backend": "80.web", "name": "n1.80.web", "ip": "127.0.0.2", "port": 18080,
              "check": "enabled", "owner": "web"},
        after=lambda ids: {"name": "n1.80.web", "backend": ids["parent"], "ip": "127.0.0.2", "port": 18080,
                           "check": "enabled", "owner": "web"},
        update=("ip", "127.0.0.2", "127.0.0.3"),
    ),
}


def shown(diff, names):
    """A diff of object dicts as the modules show it: ids in ``names`` by name, no None values."""
    return dict((which, dict((k, names.get(v, v)) for k, v in fields.items() if v is not None))
                for which, fields in diff.items())


def converge(engine, module, kind, args, expect_diff, names):
    """The four runs of the matrix, module processes one after another (each one's requests told apart in the local
    Engine's log by time): check mode, real, rerun, check mode again; checks them and returns the real run's
    result. Check mode writes nothing: no write request, and the Engine's state read back is what it was."""
    engine.reset_requests()
    before = engine.dump()
    check = module(kind, args, check=True, diff=True)
    assert engine.dump() == before
    real, rerun, recheck = (module(kind, args, check=mode, diff=True) for mode in (False, False, True))
    assert not any(run.failed for run in (check, real, rerun, recheck)), (check, real, rerun, recheck)
    assert check["changed"] is True
    # the diff as a person reads it: YAML text, parent and links by name (not id), unset fields left out
    assert all(isinstance(check["diff"][which], str) for which in ("before", "after"))
    assert dict(before=side(check, "before"), after=side(check, "after")) == shown(expect_diff, names)
    assert list(side(check, "after")) == list(shown(expect_diff, names)["after"])
    assert check.writes(engine) == 0

    assert real["changed"] is True
    assert real["diff"] == check["diff"]
    assert real["plan"] == check["plan"]

    assert rerun["changed"] is False
    assert rerun["plan"] == []
    assert side(rerun, "before") == side(rerun, "after")
    assert rerun.writes(engine) == 0

    assert recheck["changed"] is False
    assert recheck.writes(engine) == 0
    return real.result


@pytest.mark.parametrize("kind", sorted(CASES))
def test_create_update_delete(kind, engine, module):
    case = CASES[kind]
    ids = case["setup"](engine)
    args = dict(case["task"])
    # what the setup created, by name: the load balancer lb1, a backend and a frontend both named 80.web
    names = dict((i, "lb1" if i == es.lb_id(engine) else "80.web") for i in ids.values())

    field, old, new = case["update"]
    gone = {"name": args["name"], "state": "absent", "owner": "web"}
    gone.update(dict((k, v) for k, v in args.items() if k in ("load_balancer", "frontend", "backend")))

    # create
    result = converge(engine, module, kind, args, {"before": {}, "after": case["after"](ids)}, names)
    obj = result[kind]
    assert re.match(r"^[0-9a-f]{32}$", obj["id"])
    assert obj["state"] in ("Deployed", "Updated")
    expected = dict(case["after"](ids), id=obj["id"], state=obj["state"])
    assert obj == expected
    stored = es.by_name(engine, kind)[args["name"]]
    assert stored["identifier"] == obj["id"]
    # a backend or frontend carries the owner tag; a bind or server none: its parent's tag makes it the owner's
    assert es.tags(engine, obj["id"]) == ([] if kind in ("bind", "server") else ["anxlb-svc=web"])
    if kind in ("bind", "server"):
        assert es.tags(engine, ids["parent"]) == ["anxlb-svc=web"]
    assert result["plan"][0]["action"] == "create"

    # in-place update of one field: same identifier, only that field differs
    args[field] = new
    before = case["after"](ids)
    after = dict(before)
    after[field] = new
    result = converge(engine, module, kind, args, {"before": before, "after": after}, names)
    assert result[kind]["id"] == obj["id"]
    assert result["plan"] == [{"load_balancer": "lb1", "action": "update", "type": kind, "name": args["name"], "id": obj["id"],
                               "changes": {field: {"before": old, "after": new}}, "tags": [],
                               "reason": "differs in %s" % field}]
    assert es.by_name(engine, kind)[args["name"]][field] == new

    # delete
    result = converge(engine, module, kind, gone, {"before": after, "after": {}}, names)
    assert result[kind] == {}
    assert args["name"] not in es.by_name(engine, kind)
