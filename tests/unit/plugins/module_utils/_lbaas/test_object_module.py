"""The per-object modules' planning: only fields the user set are compared, ownership is respected."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._object_module import ObjectState
from ansible_collections.anxcloud.lbaas.plugins.modules.backend import BackendModule

from ..fakes import state

LB = {"kind": "loadbalancer", "id": "a" * 32, "name": "lb1"}


def module(**params):
    m = BackendModule.__new__(BackendModule)
    base = dict(name="80.web", id=None, state="present", owner=None, tag_prefix="anxlb", recreate=False,
                load_balancer="lb1", mode=None, health_check=None, server_timeout=None)
    base.update(params)
    m.params = base
    m.check_mode = False
    return m


def existing(**fields):
    obj = {"kind": "backend", "id": "b" * 32, "name": "80.web", "load_balancer": LB["id"], "mode": "http",
           "health_check": "hc", "server_timeout": 0, "state": state("Deployed"), "tags": []}
    obj.update(fields)
    return obj


def plan(m, obj, parent=None):
    return [a.to_dict() for a in m.plan(ObjectState(parent or LB, obj, {}))]


def test_create_sends_only_what_the_user_set_and_the_kinds_defaults():
    actions = plan(module(mode="tcp", owner="web"), None)
    # enabled: the kind's default, which a create sends (on, as the Engine makes an object without it anyway)
    assert actions == [{"load_balancer": "lb1", "action": "create", "type": "backend", "name": "80.web", "id": "(new backend 80.web)",
                        "changes": {"enabled": {"before": None, "after": True},
                                    "load_balancer": {"before": None, "after": LB["id"]},
                                    "mode": {"before": None, "after": "tcp"},
                                    "name": {"before": None, "after": "80.web"}},
                        "tags": ["anxlb-svc=web"], "reason": "no backend named '80.web' on load balancer 'lb1'"}]


def test_unset_fields_are_not_compared():
    assert plan(module(), existing()) == []


def test_changed_field_is_an_in_place_update():
    (action,) = plan(module(mode="tcp"), existing())
    assert action["action"] == "update"
    assert action["changes"] == {"mode": {"before": "http", "after": "tcp"}}


def test_missing_owner_tag_is_added_without_an_update():
    (action,) = plan(module(owner="web"), existing())
    assert (action["action"], action["tags"]) == ("tag", ["anxlb-svc=web"])


def test_object_of_another_owner_is_never_taken_over():
    with pytest.raises(Failure, match="is owned by 'shop', not 'web'; refusing to change it"):
        plan(module(owner="web", mode="tcp"), existing(tags=["anxlb-svc=shop"]))


def test_absent_with_owner_deletes_only_what_the_owner_holds():
    with pytest.raises(Failure, match="carries no owner tag for 'web'; refusing to delete it"):
        plan(module(owner="web", state="absent"), existing())
    (action,) = plan(module(owner="web", state="absent"), existing(tags=["anxlb-svc=web"]))
    assert action["action"] == "delete"


def test_deployment_error_without_changes_is_redeployed():
    (action,) = plan(module(), existing(state=state("DeploymentError")))
    assert action["action"] == "redeploy"


def test_pending_object_is_waited_for_but_not_a_change():
    m = module()
    p = m.plan(ObjectState(LB, existing(state=state("NewlyCreated")), {}))
    assert list(p) == [] and p.waits == [("backend", "b" * 32, "80.web")]


def test_moving_to_another_parent_needs_recreate():
    other = {"kind": "loadbalancer", "id": "c" * 32, "name": "lb2"}
    with pytest.raises(Failure, match="cannot be moved to another load balancer in place; set recreate=true"):
        plan(module(id="b" * 32), existing(), parent=other)
    m = module(id="b" * 32, recreate=True)
    ordered = m.plan(ObjectState(other, existing(), {})).ordered()
    # the new object exists before the old one goes: a move never leaves a gap
    assert [a.op for a in ordered] == ["create", "delete"]
    actions = ordered.to_list()
    assert actions[0]["changes"]["load_balancer"]["after"] == other["id"]
    assert actions[0]["changes"]["mode"]["after"] == "http"   # carried over from the old object


def test_moving_an_object_something_points_at_fails_before_any_action_as_its_delete_would():
    other = {"kind": "loadbalancer", "id": "c" * 32, "name": "lb2"}
    state = ObjectState(other, existing(), {})
    state.blockers = [("frontend", {"identifier": "f" * 32, "name": "80.web"})]
    with pytest.raises(Failure, match=r"backend '80.web' \(b+\) cannot be deleted: frontend '80.web' \(f+\) still uses it"):
        module(id="b" * 32, recreate=True).plan(state)


def test_without_owner_an_object_carrying_any_owner_tag_is_refused_naming_the_tag_and_the_fix():
    for doing, params in (("change", dict(mode="tcp")), ("delete", dict(state="absent"))):
        with pytest.raises(Failure, match="carries the owner tag xanxlb-svc=web; refusing to %s it: .* set owner: web "
                                          "and tag_prefix: xanxlb" % doing):
            plan(module(**params), existing(tags=["xanxlb-svc=web"]))
    (action,) = plan(module(mode="tcp"), existing(tags=["env=prod"]))   # not an owner tag: the user's own
    assert action["action"] == "update"


def test_with_owner_an_object_of_the_same_owner_under_another_prefix_is_refused():
    with pytest.raises(Failure, match="carries the owner tag xanxlb-svc=web, not anxlb-svc=web; refusing to change it"):
        plan(module(owner="web", mode="tcp"), existing(tags=["anxlb-svc=web", "xanxlb-svc=web"]))


# ---- binds and servers: ownership by containment (their backend or frontend carries the owner tag) ----------
BACKEND = {"kind": "backend", "id": "b" * 32, "name": "80.web", "load_balancer": LB["id"], "tags": ["anxlb-svc=web"]}


def server_module(**params):
    from ansible_collections.anxcloud.lbaas.plugins.modules.server import ServerModule
    m = ServerModule.__new__(ServerModule)
    base = dict(name="n1.80.web", id=None, state="present", owner="web", tag_prefix="anxlb", recreate=False,
                load_balancer="lb1", backend="80.web", ip="10.0.0.1", address=None, port=80, check=None)
    base.update(params)
    m.params = base
    m.check_mode = False
    return m


def server(**fields):
    obj = {"kind": "server", "id": "c" * 32, "name": "n1.80.web", "backend": "b" * 32, "ip": "10.0.0.1", "port": 80,
           "check": "enabled", "state": state("Deployed"), "tags": []}
    obj.update(fields)
    return obj


def test_a_server_with_owner_is_created_without_a_tag_in_a_backend_of_the_owner():
    (action,) = plan(server_module(), None, parent=BACKEND)
    assert (action["action"], action["tags"]) == ("create", [])


def test_a_server_with_owner_needs_its_backend_to_carry_the_owner_tag():
    for tags in ([], ["anxlb-svc=shop"]):
        with pytest.raises(Failure, match="backend '80.web'"):
            plan(server_module(), None, parent=dict(BACKEND, tags=tags))


def test_an_untagged_server_of_our_backend_is_ours_and_a_tagged_one_stays_as_it_is():
    m = server_module()
    assert plan(m, server(), parent=BACKEND) == []                                  # never tagged (adopted) now
    assert m.owner_of(server()) == "web"                                            # its backend's owner
    assert plan(server_module(), server(tags=["anxlb-svc=web"]), parent=BACKEND) == []   # nor untagged
    (action,) = plan(server_module(port=81), server(), parent=BACKEND)
    assert (action["action"], action["tags"]) == ("update", [])
    (action,) = plan(server_module(state="absent"), server(), parent=BACKEND)       # deleted without a tag of its own
    assert action["action"] == "delete"


def test_a_server_carrying_another_owner_tag_under_our_backend_is_not_ours():
    with pytest.raises(Failure, match="carries the owner tag xanxlb-svc=web, not anxlb-svc=web; refusing to delete it"):
        plan(server_module(state="absent"), server(tags=["xanxlb-svc=web"]), parent=BACKEND)


def test_a_server_tagged_by_an_earlier_version_stays_the_owners_in_an_untagged_backend():
    untagged = dict(BACKEND, tags=[])
    assert plan(server_module(), server(tags=["anxlb-svc=web"]), parent=untagged) == []
    (action,) = plan(server_module(state="absent"), server(tags=["anxlb-svc=web"]), parent=untagged)
    assert action["action"] == "delete"
    with pytest.raises(Failure, match="does not carry the owner tag anxlb-svc=web"):
        plan(server_module(state="absent"), server(), parent=untagged)
