"""The one planner for LBaaS objects (_lbaas/_planner.py), as a unit: the per-object modules and the service both
decide through it, so its ladder and its refusals are checked here once, without an Engine."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas import _planner
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import (
    CREATE, REDEPLOY, TAG, UPDATE, is_placeholder)

from ..fakes import state

BACKEND, BIND = KINDS["backend"], KINDS["bind"]
LB = {"id": "a" * 32, "name": "lb1"}
TAGS = ["anxlb-svc=web"]


def backend(**fields):
    obj = {"kind": "backend", "id": "b" * 32, "name": "80.web", "load_balancer": LB["id"], "mode": "tcp",
           "health_check": None, "server_timeout": None, "state": state("Deployed"), "tags": []}
    obj.update(fields)
    return obj


def test_diff_names_each_differing_field_with_before_and_after_and_never_the_name():
    obj = backend(health_check="hc")
    assert _planner.diff(obj, {"name": "other", "mode": "http", "health_check": "hc"}) == {"mode": ("tcp", "http")}
    # None is a value: a field set on the object and wanted unset differs
    assert _planner.diff(obj, {"health_check": None}) == {"health_check": ("hc", None)}
    assert _planner.diff(obj, {"mode": "http"}, skip=("mode",)) == {}


def test_a_create_carries_every_field_of_its_kind_its_parent_and_a_placeholder_id():
    action = _planner.create(BACKEND, "80.web", LB["id"], {"mode": "http"}, "missing", tags=TAGS, lb=LB)
    assert action.op == CREATE and action.kind is BACKEND and action.lb == LB and action.reason == "missing"
    assert is_placeholder(action.obj["id"])
    # an unset field is None, or the kind's default (a backend is created on: enabled)
    assert action.obj == dict({"kind": "backend", "id": action.obj["id"], "name": "80.web", "load_balancer": LB["id"],
                               "mode": "http", "enabled": True},
                              **dict((f, None) for f in BACKEND.fields if f not in ("mode", "enabled")))
    # what is set, as (before, after): not the unset fields, nor the kind or the id
    assert action.changes == {"name": (None, "80.web"), "load_balancer": (None, LB["id"]), "mode": (None, "http"),
                              "enabled": (None, True)}
    assert action.tags == TAGS


def test_one_name_on_two_load_balancers_gets_two_placeholders():
    ids = [_planner.create(BACKEND, "80.web", None, {}, "", where=where).obj["id"] for where in ("lb1", "lb2")]
    assert ids[0] != ids[1]


def test_a_child_is_never_owner_tagged_its_parent_is():
    assert _planner.owner_tags_for(BACKEND, TAGS) == TAGS
    assert _planner.owner_tags_for(BIND, TAGS) == [] and _planner.owner_tags_for("server", TAGS) == []
    assert _planner.create(BIND, "v4.80.web", "f" * 32, {"port": 80}, "", tags=TAGS).tags == []


def test_the_ladder_update_first_and_adding_the_missing_tags_with_it():
    (action,) = _planner.converge(BACKEND, backend(), {"mode": ("tcp", "http")}, missing_tags=TAGS, lb=LB,
                                  adopting="adopted by name")
    assert (action.op, action.tags, action.lb) == (UPDATE, TAGS, LB)
    assert action.reason == "differs in mode; adopted by name"
    (plain,) = _planner.converge(BACKEND, backend(), {"mode": ("tcp", "http"), "health_check": (None, "hc")})
    assert plain.reason == "differs in health_check, mode" and plain.tags == []


def test_the_ladder_then_the_missing_owner_tag_alone():
    (action,) = _planner.converge(BACKEND, backend(), {}, missing_tags=TAGS)
    assert (action.op, action.tags, action.reason) == (TAG, TAGS, "owner tag missing")
    (adopted,) = _planner.converge(BACKEND, backend(), {}, missing_tags=TAGS, adopting="adopted by name")
    assert adopted.reason == "adopted by name"
    # a child's missing tag is no action at all: its parent carries the owner
    assert list(_planner.converge(BIND, dict(backend(), kind="bind"), {}, missing_tags=TAGS)) == []


def test_the_ladder_then_a_redeploy_of_an_object_in_deployment_error():
    (action,) = _planner.converge(BACKEND, backend(state=state("DeploymentError")), {})
    assert action.op == REDEPLOY and action.reason == "the object is in DeploymentError"
    # a change wins over the redeploy: the update deploys the object again anyway
    (update,) = _planner.converge(BACKEND, backend(state=state("DeploymentError")), {"mode": ("tcp", "http")})
    assert update.op == UPDATE


@pytest.mark.parametrize("title", ["NewlyCreated", "Updating"])
def test_the_ladder_then_a_wait_for_an_object_still_deploying_which_is_no_change(title):
    plan = _planner.converge(BACKEND, backend(state=state(title)), {})
    assert list(plan) == [] and plan.waits == [("backend", "b" * 32, "80.web")]


def test_an_object_in_sync_needs_nothing():
    plan = _planner.converge(BACKEND, backend(), {})
    assert list(plan) == [] and plan.waits == []


def test_a_refused_delete_names_each_blocker_and_what_to_do():
    one = _planner.refused_delete("backend", backend(), [("frontend", {"identifier": "f" * 32, "name": "80.web"})])
    assert isinstance(one, Failure)
    assert one.msg == ("backend '80.web' (%s) cannot be deleted: frontend '80.web' (%s) still uses it; delete it first"
                       % ("b" * 32, "f" * 32))
    assert one.details["blockers"] == [{"type": "frontend", "id": "f" * 32, "name": "80.web"}]
    two = _planner.refused_delete("backend", backend(), [("server", {"identifier": "1" * 32, "name": "n1.80.web"}),
                                                         ("server", {"identifier": "2" * 32, "name": "n2.80.web"})])
    assert two.msg.endswith("server 'n1.80.web' (%s), server 'n2.80.web' (%s) still use it; delete those first"
                            % ("1" * 32, "2" * 32))


def test_the_services_refusal_for_a_backend_a_foreign_frontend_uses():
    blocked = [{"load_balancer": "lb1", "backend": "80.web", "backend_id": "b" * 32, "frontend": "theirs",
                "frontend_id": "f" * 32}]
    failure = _planner.refused_backend_deletes(blocked, "anxlb-svc=web")
    assert failure.msg == (
        "backend '80.web' (%s) on load balancer lb1 cannot be deleted: frontend 'theirs' (%s), which is not this "
        "service's, uses it as its default backend; point that frontend elsewhere or delete it (or tag it with "
        "anxlb-svc=web to make it this service's), then run again" % ("b" * 32, "f" * 32))
    assert failure.details["blockers"] == blocked
    two = _planner.refused_backend_deletes(blocked * 2, "anxlb-svc=web")
    assert "; point those frontends elsewhere or delete them (or tag them with" in two.msg
