"""Honest results (issue 18, point 5): a run that wrote and then failed says it changed something and
what it was doing; an adopted object is waited for (redeployed once, then a clear failure)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._module._base import _with_partial
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import ServerError, ValidationFailedError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import BACKEND
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._loop import Reconciler
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import CREATE, TAG, Action, Plan
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Waiter

from ..fakes import FakeClient
from .test_loop import LB, State, new

WRITES = ("POST", "PUT", "DELETE", "TAG")


class CountingClient(FakeClient):
    """The fake with the real client's ``writes_landed`` (every write the fake carried out), which the
    Reconciler reads."""

    @property
    def writes_landed(self):
        return len([c for c in self.calls if c[0] in WRITES])


def run(client, actions):
    def observe():
        return State(dict((i, BACKEND.from_engine(o)) for i, o in client.objects.items()))
    reconciler = Reconciler(client, check_mode=False, waiter=Waiter(client, 5, sleep=lambda s: None))
    return reconciler.run(observe, lambda state: Plan(list(actions)))


def test_a_failure_after_a_write_carries_changed_and_the_plan():
    client = CountingClient()
    create = Action(CREATE, BACKEND, new(BACKEND, "b", load_balancer=LB, mode="tcp"))
    reads = client.lbaas_get

    def get(kind, ident):   # the create landed; every read of it then fails
        if client.objects.get(ident, {}).get("name") == "b":
            raise ServerError("boom", status=500, method="GET", path="/api/LBaaS/v1/backend.json/" + ident)
        return reads(kind, ident)
    client.lbaas_get = get
    with pytest.raises(ServerError) as err:
        run(client, [create])
    assert err.value.partial_result == {"changed": True, "plan": [create.to_dict()]}
    failure = _with_partial(err.value, dict(msg=str(err.value)))
    assert failure["changed"] is True and failure["plan"][0]["action"] == "create"


def test_a_failure_before_any_write_stays_unchanged():
    client = CountingClient()

    def refuse(kind, body):   # refused: the Engine changed nothing, so no write landed
        raise ValidationFailedError("no", status=422, method="POST", path="/api/LBaaS/v1/backend.json")
    client.lbaas_create = refuse
    with pytest.raises(ValidationFailedError) as err:
        run(client, [Action(CREATE, BACKEND, new(BACKEND, "b", load_balancer=LB, mode="tcp"))])
    assert getattr(err.value, "partial_result", None) is None


def test_a_plan_the_failure_names_itself_wins():
    exc = Failure("did not converge", plan=["still planned"])
    exc.partial_result = {"changed": True, "plan": ["first plan"]}
    expected = {"msg": "did not converge", "plan": ["still planned"], "changed": True}
    assert _with_partial(exc, dict(exc.details, msg=exc.msg)) == expected


def test_an_adopted_object_in_deployment_error_is_redeployed_once_then_fails_clearly():
    client = CountingClient()
    ident = client.add("backend", "b", state="DeploymentError", load_balancer=LB, mode="tcp")
    client.scripts[ident] = ["DeploymentError", "DeploymentError", "DeploymentError"]
    tag = Action(TAG, BACKEND, BACKEND.from_engine(client.objects[ident]), tags=["anxlb-svc=web"])
    with pytest.raises(Failure) as err:
        run(client, [tag])
    assert err.value.msg == ("backend 'b' (%s) failed to deploy (DeploymentError) again after a redeploy request: "
                             "the Engine gives no reason; its fields: mode=tcp, enabled=True" % ident)
    assert [c[0] for c in client.calls if c[0] in WRITES] == ["TAG", "PUT"]
    assert err.value.partial_result["changed"] is True


def test_an_adopted_object_that_recovers_is_reported_deployed():
    client = CountingClient()
    ident = client.add("backend", "b", state="DeploymentError", load_balancer=LB, mode="tcp")
    client.scripts[ident] = ["DeploymentError", "Updated"]
    outcome = run(client, [Action(TAG, BACKEND, BACKEND.from_engine(client.objects[ident]), tags=["anxlb-svc=web"])])
    assert outcome.changed and outcome.after[ident]["state"]["title"] == "Updated"
    assert [c[0] for c in client.calls if c[0] in WRITES] == ["TAG", "PUT"]
