"""The acl and rule modules (and their _info) with real ansible-playbook runs against the local Engine:
create, update in place, reorder by index, rename an ACL with its rules in one play, absent; check mode
predicts what the real run does and writes nothing; another owner's ACL is never written; a rule naming
an ACL that does not exist fails before any write."""
import copy

import requests

from . import engine_state as es
from .conftest import side

PATHS = {"acl": "/api/LBaaS/v1/ACL.json", "rule": "/api/LBaaS/v1/rule.json"}


def listed(engine, kind):
    """{name: object} of the ACLs or rules, read through the Engine's own API (go-anxcloud's paths)."""
    head = {"Authorization": "Token " + engine.token}
    items = requests.get(engine.url + PATHS[kind], params={"page": 1, "limit": 1000, "filters": ""}, headers=head,
                         timeout=10).json()["data"]["data"]
    out = {}
    for item in items:
        obj = requests.get(engine.url + PATHS[kind] + "/" + item["identifier"], headers=head, timeout=10).json()
        out[obj["name"]] = obj
    return out


def post(engine, kind, **body):
    resp = requests.post(engine.url + PATHS[kind], json=body, headers={"Authorization": "Token " + engine.token},
                         timeout=10)
    resp.raise_for_status()
    return resp.json()["identifier"]


def state(engine):
    """What the ACL and rule tests compare: every ACL and rule (fields, parent by id) and its tags."""
    out = {}
    for kind in ("acl", "rule"):
        for name, obj in listed(engine, kind).items():
            fields = dict((k, v) for k, v in obj.items() if k not in ("state", "identifier"))
            for link in ("frontend", "backend"):
                if isinstance(fields.get(link), dict):
                    fields[link] = fields[link]["identifier"]
            out["%s %s" % (kind, name)] = dict(fields, tags=es.tags(engine, obj["identifier"]))
    return out


def setup(engine, owner=None):
    """A backend and a frontend named 80.web on lb1 (tagged for ``owner`` when given: the ACLs and rules in them
    are then the owner's by containment); their ids."""
    lb = es.lb_id(engine)
    backend = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    frontend = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=backend)
    if owner:
        for ident in (backend, frontend):
            es.tag(engine, ident, "anxlb-svc=%s" % owner)
    return {"frontend": frontend, "backend": backend}


def acl(name, value, index=None, parent="frontend", **extra):
    args = {"load_balancer": "lb1", parent: "80.web", "name": name, "criterion": "src", "value": value,
            "owner": "web"}
    if index is not None:
        args["index"] = index
    args.update(extra)
    return {"name": "acl %s" % name, "anxcloud.lbaas.acl": args}


def rule(name, test, action, index=None, **extra):
    args = {"load_balancer": "lb1", "frontend": "80.web", "name": name, "condition_test": test, "action": action,
            "owner": "web"}
    if index is not None:
        args["index"] = index
    args.update(extra)
    return {"name": "rule %s" % name, "anxcloud.lbaas.rule": args}


ALLOW_LIST = [
    acl("office", "10.0.0.0/8", 0),
    acl("any-v4", "0.0.0.0/0", 1),
    acl("any-v6", "::/0", 2),
    rule("accept-office", "office", "accept", 0),
    rule("reject-v4", "any-v4", "reject", 1),
    rule("reject-v6", "any-v6", "reject", 2, condition="if", type="connection"),   # the defaults, given
]


def plain(action):
    """A plan entry without what only a real run knows: identifiers of new objects (a parent's too)."""
    changes = dict((f, dict(c, after=None) if f in ("frontend", "backend") else c) for f, c in action["changes"].items())
    return dict(action, id=None, changes=changes)


def check_then_real_plays(tasks):
    """The tasks in check mode, then for real, then again: three plays."""
    return [(tasks, {"check_mode": True, "diff": True}), (tasks, {"diff": True}), (tasks, {})]


def check_then_real(ansible, engine, tasks):
    """check_then_real_plays in a run of their own (checked_then_real)."""
    return checked_then_real(engine, ansible.session(check_then_real_plays(tasks)), len(tasks))


def checked_then_real(engine, plays, count):
    """Plays the next check_then_real_plays, of ``count`` tasks, of the session ``plays``. Check mode writes
    nothing: no write request, and the Engine's whole state, read back after its play, is what it was before.
    Check mode's results equal the real run's, except for ids the Engine gave to new objects; the real play
    changes the state exactly when it says it changed, the third play leaves it as it was."""
    engine.reset_requests()
    dumps = [engine.dump()]
    check = plays.next()
    dumps.append(engine.dump())
    real = plays.next()
    dumps.append(engine.dump())
    again = plays.next()
    dumps.append(engine.dump())
    tasks = range(count)
    assert not any(check.failed(i) for i in tasks), check
    assert sum(check.writes(engine, i) for i in tasks) == 0
    assert dumps[1] == dumps[0]
    assert not any(real.failed(i) for i in tasks), real
    for i in tasks:
        assert check[i]["changed"] == real[i]["changed"]
        assert side(check[i], "before") == side(real[i], "before")
        assert side(check[i], "after") == side(real[i], "after")
        assert [plain(a) for a in check[i]["plan"]] == [plain(a) for a in real[i]["plan"]]
    assert (dumps[2] != dumps[1]) == any(real[i]["changed"] for i in tasks)
    assert not any(again[i]["changed"] for i in tasks), again
    assert dumps[3] == dumps[2]
    return check, real


def test_allow_list_create_update_reorder_and_absent(engine, ansible):
    ids = setup(engine, owner="web")
    update = [acl("office", "192.168.0.0/16", 0)]
    reorder = [rule("reject-v4", "any-v4", "reject", 2), rule("reject-v6", "any-v6", "reject", 1)]
    # absent: rules first, then the ACLs they named
    gone = copy.deepcopy(list(reversed(ALLOW_LIST)))
    for task in gone:
        args = next(v for k, v in task.items() if k.startswith("anxcloud."))
        for key in ("criterion", "value", "condition_test", "action", "index"):
            args.pop(key, None)
        args["state"] = "absent"
    plays = ansible.session(check_then_real_plays(ALLOW_LIST) + check_then_real_plays(update)
                            + [([acl("office", "192.168.0.0/16 ", 0)], {})] + check_then_real_plays(reorder)
                            + [([{"anxcloud.lbaas.rule_info": {"load_balancer": "lb1", "frontend": "80.web"}}], {}),
                               ([{"anxcloud.lbaas.acl_info": {"owner": "web"}}], {})]
                            + check_then_real_plays(gone))
    check, real = checked_then_real(engine, plays, len(ALLOW_LIST))
    acls, rules = listed(engine, "acl"), listed(engine, "rule")
    assert {n: (a["criterion"], a["value"], a["index"], a["parent_type"], a["frontend"]["identifier"], a["backend"])
            for n, a in acls.items()} == {
        "office": ("src", "10.0.0.0/8", 0, "frontend", ids["frontend"], None),
        "any-v4": ("src", "0.0.0.0/0", 1, "frontend", ids["frontend"], None),
        "any-v6": ("src", "::/0", 2, "frontend", ids["frontend"], None)}
    assert {n: (r["condition"], r["condition_test"], r["type"], r["action"], r["index"]) for n, r in rules.items()} == {
        "accept-office": ("if", "office", "connection", "accept", 0),
        "reject-v4": ("if", "any-v4", "connection", "reject", 1),
        "reject-v6": ("if", "any-v6", "connection", "reject", 2)}
    # ours by containment: the frontend carries the owner tag, its ACLs and rules none
    assert all(es.tags(engine, o["identifier"]) == [] for o in list(acls.values()) + list(rules.values()))
    assert real[0]["acl"]["value"] == "10.0.0.0/8" and real[3]["rule"]["condition_test"] == "office"
    assert side(check[0], "after") == {"name": "office", "frontend": "80.web", "parent_type": "frontend",
                                       "criterion": "src", "value": "10.0.0.0/8", "index": 0, "owner": "web"}

    # update in place: another network (written in another form), same identifier
    office = acls["office"]["identifier"]
    _check, real = checked_then_real(engine, plays, len(update))
    assert real[0]["plan"][0]["action"] == "update"
    assert real[0]["plan"][0]["changes"] == {"value": {"before": "10.0.0.0/8", "after": "192.168.0.0/16"}}
    assert listed(engine, "acl")["office"] == dict(listed(engine, "acl")["office"], identifier=office,
                                                   value="192.168.0.0/16")
    unchanged = plays.next()
    assert unchanged[0]["changed"] is False

    # reorder: the two reject rules swap places, in place
    before = dict((n, r["identifier"]) for n, r in listed(engine, "rule").items())
    checked_then_real(engine, plays, len(reorder))
    rules = listed(engine, "rule")
    assert (rules["reject-v4"]["index"], rules["reject-v6"]["index"]) == (2, 1)
    assert dict((n, r["identifier"]) for n, r in rules.items()) == before

    info = plays.next()
    assert [r["name"] for r in info[0]["rules"]] == ["accept-office", "reject-v6", "reject-v4"]
    info = plays.next()
    assert [a["name"] for a in info[0]["acls"]] == ["office", "any-v4", "any-v6"]
    assert all(a["owner"] == "web" for a in info[0]["acls"])

    # absent; a second run is ok and unchanged
    checked_then_real(engine, plays, len(gone))
    assert listed(engine, "acl") == {} and listed(engine, "rule") == {}


def test_rename_an_acl_with_its_rules_in_one_play(engine, ansible):
    setup(engine, owner="web")
    rename = [acl("office-v4", "10.0.0.0/8", 0), rule("accept-office", "office-v4", "accept", 0),
              {"name": "old name", "anxcloud.lbaas.acl": {"load_balancer": "lb1", "frontend": "80.web",
                                                          "name": "office", "owner": "web", "state": "absent"}}]
    plays = ansible.session([(ALLOW_LIST[:1] + ALLOW_LIST[3:4], {})] + check_then_real_plays(rename))
    setup_run = plays.next()
    assert [setup_run[i]["changed"] for i in range(2)] == [True, True], setup_run
    check, real = checked_then_real(engine, plays, len(rename))
    plans = [real[i]["plan"] for i in range(3)]
    assert [[a["action"] for a in plan] for plan in plans] == [["create"], ["update"], ["delete"]], plans
    assert plans[1][0]["changes"] == {"condition_test": {"before": "office", "after": "office-v4"}}
    assert set(listed(engine, "acl")) == {"office-v4"}
    assert listed(engine, "rule")["accept-office"]["condition_test"] == "office-v4"


def test_an_acl_a_rule_names_is_neither_renamed_nor_deleted(engine, ansible):
    setup(engine, owner="web")
    setup_run = ansible.run(ALLOW_LIST[:1] + ALLOW_LIST[3:4])
    assert [setup_run[i]["changed"] for i in range(2)] == [True, True], setup_run
    office = listed(engine, "acl")["office"]["identifier"]
    before = state(engine)
    engine.reset_requests()
    run = ansible.run([
        {"anxcloud.lbaas.acl": {"load_balancer": "lb1", "frontend": "80.web", "name": "office", "owner": "web",
                                "state": "absent"}, "ignore_errors": True},
        {"anxcloud.lbaas.acl": {"id": office, "name": "office-v4", "owner": "web"}, "ignore_errors": True}])
    for i, doing in ((0, "deleted"), (1, "renamed")):
        assert run.failed(i)
        assert "cannot be %s: rule 'accept-office'" % doing in run[i]["msg"]
        assert run[i]["blockers"][0]["name"] == "accept-office"
        assert run.writes(engine, i) == 0
    assert state(engine) == before


def test_a_rule_naming_a_missing_acl_fails_before_any_write(engine, ansible):
    setup(engine, owner="web")
    before = state(engine)
    engine.reset_requests()
    missing = [dict(rule("accept-office", "office", "accept", 0), ignore_errors=True)]
    plays = ansible.session([(missing, {"check_mode": True}), (missing, {}),
                             (ALLOW_LIST[:1] + ALLOW_LIST[3:4], {"check_mode": True})])
    for _check_then_real in range(2):
        run = plays.next()
        assert run.failed(0)
        assert run[0]["msg"].startswith("condition_test: no ACL named 'office' on frontend '80.web'")
        assert run.writes(engine, 0) == 0
    assert state(engine) == before
    # in check mode, an ACL an earlier task of the play would create counts
    run = plays.next()
    assert not run.failed() and run[1]["changed"] is True
    assert state(engine) == before


def test_backend_acls(engine, ansible):
    ids = setup(engine, owner="web")
    check, real = check_then_real(ansible, engine, [acl("port", "8080", 0, parent="backend", criterion="dst_port")])
    obj = listed(engine, "acl")["port"]
    assert (obj["parent_type"], obj["backend"]["identifier"], obj["frontend"], obj["value"]) == (
        "backend", ids["backend"], None, "8080")
    assert real[0]["acl"]["backend"] == ids["backend"] and real[0]["acl"]["parent_type"] == "backend"
    by_id = ansible.run({"anxcloud.lbaas.acl": {"id": obj["identifier"], "index": 3, "owner": "web"}})
    assert by_id[0]["changed"] is True and listed(engine, "acl")["port"]["index"] == 3
    info = ansible.run({"anxcloud.lbaas.acl_info": {"load_balancer": "lb1", "backend": "80.web"}})
    assert [a["name"] for a in info[0]["acls"]] == ["port"]


def test_another_owners_acl_is_never_written(engine, ansible):
    ids = setup(engine, owner="web")
    theirs = post(engine, "acl", name="office", parent_type="frontend", frontend=ids["frontend"], criterion="src",
                  value="10.0.0.0/8", index=0)
    es.tag(engine, theirs, "anxlb-svc=shop")
    before = state(engine)
    engine.reset_requests()
    run = ansible.run([dict(acl("office", "192.168.0.0/16", 0), ignore_errors=True),
                       dict({"anxcloud.lbaas.acl": {"load_balancer": "lb1", "frontend": "80.web", "name": "office",
                                                    "owner": "web", "state": "absent"}}, ignore_errors=True)])
    for i in range(2):
        assert run.failed(i) and "is owned by 'shop', not 'web'" in run[i]["msg"]
        assert run.writes(engine, i) == 0
    assert state(engine) == before


def test_bad_values_are_refused_naming_the_option(engine, ansible):
    setup(engine, owner="web")
    engine.reset_requests()
    run = ansible.run([dict(acl("office", "10.0.0.1/8", 0), ignore_errors=True),
                       dict(acl("port", "http", 0, criterion="dst_port"), ignore_errors=True),
                       dict(rule("r", "office", "accept", 0, condition="unless"), ignore_errors=True),
                       dict(acl("office", "10.0.0.0/8", -1), ignore_errors=True)])
    assert run[0]["msg"] == "value: '10.0.0.1/8' has host bits set; write the network 10.0.0.0/8"
    assert run[1]["msg"].startswith("value: 'http' is not a port")
    assert run[2]["msg"].startswith("condition: 'unless' is not supported")
    assert run[3]["msg"] == "index must be 0 or more, got -1"
    assert all(run.failed(i) and run.writes(engine, i) == 0 for i in range(4))


def test_check_mode_under_a_frontend_an_earlier_task_creates(engine, ansible):
    """Check mode: the ACL and the rule go under the frontend the play's first task would create (its
    placeholder), the rule finds the predicted ACL; the real run does the same and a rerun nothing."""
    setup(engine, owner="web")
    frontend = {"name": "frontend", "anxcloud.lbaas.frontend": {
        "load_balancer": "lb1", "name": "81.web", "mode": "tcp", "default_backend": "80.web", "owner": "web"}}
    tasks = [frontend] + [dict(t, **{k: dict(v, frontend="81.web") for k, v in t.items() if k.startswith("anxcloud.")})
                          for t in (ALLOW_LIST[0], ALLOW_LIST[3])]
    check, real = check_then_real(ansible, engine, tasks)
    assert [check[i]["changed"] for i in range(3)] == [True, True, True]
    assert check[1]["acl"]["frontend"] == "(new frontend 81.web)"
    assert real[2]["rule"]["frontend"] == real[0]["frontend"]["id"]
    assert listed(engine, "rule")["accept-office"]["frontend"]["name"] == "81.web"


def test_a_frontend_whose_acls_and_rules_earlier_tasks_delete_goes_in_check_mode_as_for_real(engine, ansible):
    """Issue 28, the other way round: once the play's earlier tasks delete the rule and the ACL, nothing blocks the
    frontend any more, in check mode (from the earlier tasks' predictions) as in the real run; a third run finds
    nothing to do."""
    ids = setup(engine, owner="web")
    post(engine, "acl", name="office", parent_type="frontend", frontend=ids["frontend"], criterion="src",
         value="10.0.0.0/8", index=0)
    post(engine, "rule", name="accept-office", parent_type="frontend", frontend=ids["frontend"], index=0,
         condition="if", condition_test="office", type="connection", action="accept")
    parent = {"load_balancer": "lb1", "frontend": "80.web", "owner": "web", "state": "absent"}
    teardown = [{"anxcloud.lbaas.rule": dict(parent, name="accept-office")},
                {"anxcloud.lbaas.acl": dict(parent, name="office")},
                {"anxcloud.lbaas.frontend": {"load_balancer": "lb1", "name": "80.web", "owner": "web",
                                             "state": "absent"}}]
    check, real = check_then_real(ansible, engine, teardown)
    assert [real[i]["plan"][0]["action"] for i in range(3)] == ["delete"] * 3
    assert listed(engine, "acl") == listed(engine, "rule") == {}
    assert [f["name"] for f in es.objects(engine, "frontend")] == []


def test_the_parent_options_come_from_the_declaration_and_are_named_when_missing(engine, module):
    """frontend and backend (the parent kinds the declaration gives ACLs and rules) are the parent options: one is
    required, both at once are refused, each message naming them (module processes, no controller)."""
    engine.reset_requests()
    assert module("acl", {"load_balancer": "lb1", "name": "office"}).message() == (
        "one of frontend or backend is required unless id is given")
    assert module("rule_info", {"load_balancer": "lb1"}).message() == "one of frontend, backend, id or owner is required"
    assert module("acl_info", {"frontend": "80.web", "backend": "80.web"}).message() == (
        "parameters are mutually exclusive: frontend|backend")
    assert engine.mutating_requests() == 0
