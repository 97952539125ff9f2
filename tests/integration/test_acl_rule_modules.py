"""The acl and rule modules (and their _info) against the local Engine: create, update in place, reorder by index,
absent, check mode of each action of each module predicting what its real run does and writing nothing (and, across
a play's tasks, the check-mode plays predicting the real plays); another owner's ACL is never written; a rule
naming an ACL that does not exist fails before any write. A module's own behaviour runs as a module
process (the ``module`` fixture); what needs the controller (check mode predicting from the play's earlier tasks:
an ACL renamed with its rules, ACLs and rules under a frontend an earlier task creates, a frontend whose ACLs and
rules earlier tasks delete) runs as the plays of one ansible-playbook run."""
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


def parts(task):
    """A task dict's module (its short name) and arguments, to run it as a module process."""
    (key,) = [k for k in task if k.startswith("anxcloud.lbaas.")]
    return key[len("anxcloud.lbaas."):], task[key]


def same_prediction(check, real):
    """Check mode's result equals the real run's, except for ids the Engine gave to new objects."""
    assert check["changed"] == real["changed"]
    assert side(check, "before") == side(real, "before")
    assert side(check, "after") == side(real, "after")
    assert [plain(a) for a in check["plan"]] == [plain(a) for a in real["plan"]]


def rerun_changes_nothing(engine, module, tasks):
    """Each task again, for real, as a module process: unchanged, no write, the Engine's state as it was."""
    before = engine.dump()
    for task in tasks:
        again = module(*parts(task))
        assert not again.failed and again["changed"] is False and again.writes(engine) == 0, again
    assert engine.dump() == before


def converged(engine, module, task):
    """One task as module processes: in check mode (with diff), for real (with diff), again. Check mode writes
    nothing (no write request, and the Engine's whole state, read back, is what it was before) and predicts the real
    run; the real run changes the state exactly when it says it changed; the rerun changes nothing."""
    name, args = parts(task)
    before = engine.dump()
    check = module(name, args, check=True, diff=True)
    assert not check.failed and check.writes(engine) == 0, check
    assert engine.dump() == before
    real = module(name, args, diff=True)
    assert not real.failed, real
    same_prediction(check, real)
    assert (engine.dump() != before) == real["changed"]
    rerun_changes_nothing(engine, module, [task])
    return check, real


def check_then_real_plays(tasks):
    """The tasks in check mode, then for real: two plays of a session (checked_then_real)."""
    return [(tasks, {"check_mode": True, "diff": True}), (tasks, {"diff": True})]


def checked_then_real(engine, plays, tasks):
    """Plays the next check_then_real_plays of ``tasks`` of the session ``plays``: check mode, predicting across the
    play's tasks, writes nothing (no write request, the Engine's whole state read back unchanged) and its results
    equal the real play's, except for ids; the real play changes the state exactly when it says it changed. (A rerun
    changing nothing is the module's own: test_allow_list_create_update_reorder_and_absent reruns the acl and rule
    tasks of every action, test_object_modules.py the frontend's.)"""
    engine.reset_requests()
    before = engine.dump()
    check = plays.next()
    assert engine.dump() == before
    real = plays.next()
    count = range(len(tasks))
    assert not any(check.failed(i) for i in count), check
    assert sum(check.writes(engine, i) for i in count) == 0
    assert not any(real.failed(i) for i in count), real
    for i in count:
        same_prediction(check[i], real[i])
    assert (engine.dump() != before) == any(real[i]["changed"] for i in count)
    return check, real


def applied(engine, module, task):
    """One task for real only, as a module process: it changes the state and says so. For a task whose check mode and
    rerun would prove nothing a task of the same shape before it did not (the same module, action and options)."""
    before = engine.dump()
    real = module(*parts(task))
    assert not real.failed and real["changed"] is True, real
    assert engine.dump() != before
    return real


def test_allow_list_create_update_reorder_and_absent(engine, module):
    """Check mode (nothing written, the real run predicted), the real run and a rerun (nothing written) for each
    action of each module: an ACL of either family and a rule with and without the defaults given are created, an
    ACL updated, two rules reordered, a rule and an ACL deleted. any-v4 and reject-v4 are created, and the other
    rules and ACLs deleted, by their real run alone: the same module, action and options as office and
    accept-office, and the end state is read back for all of them."""
    ids = setup(engine, owner="web")
    update = acl("office", "192.168.0.0/16", 0)
    reorder = [rule("reject-v4", "any-v4", "reject", 2), rule("reject-v6", "any-v6", "reject", 1)]
    # absent: rules first, then the ACLs they named
    gone = copy.deepcopy(list(reversed(ALLOW_LIST)))
    for task in gone:
        args = parts(task)[1]
        for key in ("criterion", "value", "condition_test", "action", "index"):
            args.pop(key, None)
        args["state"] = "absent"
    engine.reset_requests()
    check, real = {}, {}
    for index, task in enumerate(ALLOW_LIST):
        if index in (1, 4):   # any-v4 as office, reject-v4 as accept-office
            real[index] = applied(engine, module, task)
        else:
            check[index], real[index] = converged(engine, module, task)
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
    _check, real = converged(engine, module, update)
    assert real["plan"][0]["action"] == "update"
    assert real["plan"][0]["changes"] == {"value": {"before": "10.0.0.0/8", "after": "192.168.0.0/16"}}
    assert listed(engine, "acl")["office"] == dict(listed(engine, "acl")["office"], identifier=office,
                                                   value="192.168.0.0/16")
    unchanged = module(*parts(acl("office", "192.168.0.0/16 ", 0)))
    assert unchanged["changed"] is False and unchanged.writes(engine) == 0, unchanged

    # reorder: the two reject rules swap places, in place
    before = dict((n, r["identifier"]) for n, r in listed(engine, "rule").items())
    for task in reorder:
        converged(engine, module, task)
    rules = listed(engine, "rule")
    assert (rules["reject-v4"]["index"], rules["reject-v6"]["index"]) == (2, 1)
    assert dict((n, r["identifier"]) for n, r in rules.items()) == before

    info = module("rule_info", {"load_balancer": "lb1", "frontend": "80.web"})
    assert [r["name"] for r in info["rules"]] == ["accept-office", "reject-v6", "reject-v4"]
    info = module("acl_info", {"owner": "web"})
    assert [a["name"] for a in info["acls"]] == ["office", "any-v4", "any-v6"]
    assert all(a["owner"] == "web" for a in info["acls"])

    # absent; a second run is ok and unchanged (the first rule and the first ACL to go; the others as they are)
    for task in gone:
        if task["name"] in ("rule reject-v6", "acl any-v6"):
            converged(engine, module, task)
        else:
            applied(engine, module, task)
    assert listed(engine, "acl") == {} and listed(engine, "rule") == {}


def test_check_mode_predicts_across_a_plays_tasks_as_the_real_run_does(engine, ansible, module):
    """Check mode predicting from the play's earlier tasks (the action plugins carry the predictions), each
    scenario a check-mode play then a real one of one ansible-playbook run, on one Engine one after another: an
    ACL renamed with the rules naming it (the rule finds the ACL an earlier task would create); issue 28's
    teardown (once earlier tasks delete the rule and the ACL nothing blocks the frontend, in check mode as for
    real); the ACL and the rule under the frontend the play's first task would create (the rule finding the ACL
    predicted there)."""
    setup(engine, owner="web")
    renamed = [acl("office-v4", "10.0.0.0/8", 0), rule("accept-office", "office-v4", "accept", 0),
               {"name": "old name", "anxcloud.lbaas.acl": {"load_balancer": "lb1", "frontend": "80.web",
                                                           "name": "office", "owner": "web", "state": "absent"}}]
    parent = {"load_balancer": "lb1", "frontend": "80.web", "owner": "web", "state": "absent"}
    teardown = [{"anxcloud.lbaas.rule": dict(parent, name="accept-office")},
                {"anxcloud.lbaas.acl": dict(parent, name="office-v4")},
                {"anxcloud.lbaas.frontend": {"load_balancer": "lb1", "name": "80.web", "owner": "web",
                                             "state": "absent"}}]
    frontend = {"name": "frontend", "anxcloud.lbaas.frontend": {
        "load_balancer": "lb1", "name": "81.web", "mode": "tcp", "default_backend": "80.web", "owner": "web"}}
    under_new = [frontend] + [dict(t, **{k: dict(v, frontend="81.web") for k, v in t.items() if k.startswith("anxcloud.")})
                              for t in (ALLOW_LIST[0], ALLOW_LIST[3])]
    plays = ansible.session(check_then_real_plays(renamed) + check_then_real_plays(teardown)
                            + check_then_real_plays(under_new))
    for task in ALLOW_LIST[:1] + ALLOW_LIST[3:4]:   # the ACL office and the rule naming it, to rename
        assert module(*parts(task))["changed"] is True

    # rename an ACL with its rules in one play: create the new name, point the rule at it, delete the old
    check, real = checked_then_real(engine, plays, renamed)
    assert check[1]["changed"] is True   # in check mode, the ACL the first task would create counts for the rule
    plans = [real[i]["plan"] for i in range(3)]
    assert [[a["action"] for a in plan] for plan in plans] == [["create"], ["update"], ["delete"]], plans
    assert plans[1][0]["changes"] == {"condition_test": {"before": "office", "after": "office-v4"}}
    assert set(listed(engine, "acl")) == {"office-v4"}
    assert listed(engine, "rule")["accept-office"]["condition_test"] == "office-v4"

    # the rule, the ACL, then the frontend holding them
    check, real = checked_then_real(engine, plays, teardown)
    assert [real[i]["plan"][0]["action"] for i in range(3)] == ["delete"] * 3
    assert listed(engine, "acl") == listed(engine, "rule") == {}
    assert [f["name"] for f in es.objects(engine, "frontend")] == []

    # under the frontend the play's first task creates (its placeholder in check mode)
    check, real = checked_then_real(engine, plays, under_new)
    assert [check[i]["changed"] for i in range(3)] == [True, True, True]
    assert check[1]["acl"]["frontend"] == "(new frontend 81.web)"
    assert real[2]["rule"]["frontend"] == real[0]["frontend"]["id"]
    assert listed(engine, "rule")["accept-office"]["frontend"]["name"] == "81.web"


def test_an_acl_a_rule_names_is_neither_renamed_nor_deleted(engine, module):
    setup(engine, owner="web")
    for task in ALLOW_LIST[:1] + ALLOW_LIST[3:4]:
        assert module(*parts(task))["changed"] is True
    office = listed(engine, "acl")["office"]["identifier"]
    before = state(engine)
    engine.reset_requests()
    runs = [module("acl", {"load_balancer": "lb1", "frontend": "80.web", "name": "office", "owner": "web",
                           "state": "absent"}),
            module("acl", {"id": office, "name": "office-v4", "owner": "web"})]
    for run, doing in zip(runs, ("deleted", "renamed")):
        assert "cannot be %s: rule 'accept-office'" % doing in run.message()
        assert run["blockers"][0]["name"] == "accept-office"
        assert run.writes(engine) == 0
    assert state(engine) == before


def test_a_rule_naming_a_missing_acl_fails_before_any_write(engine, module):
    """In check mode as for real (the check mode of a play whose earlier task would create the ACL: in
    test_check_mode_predicts_across_a_plays_tasks_as_the_real_run_does)."""
    setup(engine, owner="web")
    before = state(engine)
    engine.reset_requests()
    name, args = parts(rule("accept-office", "office", "accept", 0))
    for check in (True, False):
        run = module(name, args, check=check)
        assert run.message().startswith("condition_test: no ACL named 'office' on frontend '80.web'")
        assert run.writes(engine) == 0
    assert state(engine) == before


def test_backend_acls(engine, module):
    ids = setup(engine, owner="web")
    check, real = converged(engine, module, acl("port", "8080", 0, parent="backend", criterion="dst_port"))
    obj = listed(engine, "acl")["port"]
    assert (obj["parent_type"], obj["backend"]["identifier"], obj["frontend"], obj["value"]) == (
        "backend", ids["backend"], None, "8080")
    assert real["acl"]["backend"] == ids["backend"] and real["acl"]["parent_type"] == "backend"
    by_id = module("acl", {"id": obj["identifier"], "index": 3, "owner": "web"})
    assert by_id["changed"] is True and listed(engine, "acl")["port"]["index"] == 3
    info = module("acl_info", {"load_balancer": "lb1", "backend": "80.web"})
    assert [a["name"] for a in info["acls"]] == ["port"]


def test_another_owners_acl_is_never_written(engine, module):
    ids = setup(engine, owner="web")
    theirs = post(engine, "acl", name="office", parent_type="frontend", frontend=ids["frontend"], criterion="src",
                  value="10.0.0.0/8", index=0)
    es.tag(engine, theirs, "anxlb-svc=shop")
    before = state(engine)
    engine.reset_requests()
    runs = [module(*parts(acl("office", "192.168.0.0/16", 0))),
            module("acl", {"load_balancer": "lb1", "frontend": "80.web", "name": "office", "owner": "web",
                           "state": "absent"})]
    for run in runs:
        assert "is owned by 'shop', not 'web'" in run.message()
        assert run.writes(engine) == 0
    assert state(engine) == before


def test_bad_values_are_refused_naming_the_option(engine, module):
    setup(engine, owner="web")
    engine.reset_requests()
    runs = [module(*parts(task)) for task in (acl("office", "10.0.0.1/8", 0), acl("port", "http", 0, criterion="dst_port"),
                                              rule("r", "office", "accept", 0, condition="unless"),
                                              acl("office", "10.0.0.0/8", -1))]
    assert runs[0].message() == "value: '10.0.0.1/8' has host bits set; write the network 10.0.0.0/8"
    assert runs[1].message().startswith("value: 'http' is not a port")
    assert runs[2].message().startswith("condition: 'unless' is not supported")
    assert runs[3].message() == "index must be 0 or more, got -1"
    assert all(run.writes(engine) == 0 for run in runs)


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
