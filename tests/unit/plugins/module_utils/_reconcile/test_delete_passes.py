"""Deletes run in bounded, paced passes; a 429 ends the run at once (docs/reconciliation.md; the 429: docs/engine-api-facts.md, Errors)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import (
    AccessDeniedError, ConflictError, RateLimitedError, ServerError)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import BACKEND, BIND
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._apply import Applier
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import DELETE, Action, Plan
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Waiter

from ..fakes import FakeClient


def conflict():
    return ConflictError("still referenced", status=409, method="DELETE", path="/api/LBaaS/v1/backend.json/x")


def setup(names=("a", "b")):
    client = FakeClient()
    ids = [client.add("backend", n) for n in names]
    sleeps = []
    applier = Applier(client, Waiter(client, 1), delete_passes=3, delete_pause=1.0, sleep=sleeps.append)
    plan = Plan([Action(DELETE, BACKEND, {"id": i, "name": n}) for i, n in zip(ids, names)])
    return client, ids, applier, plan, sleeps


def deletes(client):
    return [c[2] for c in client.calls if c[0] == "DELETE"]


def test_a_refused_delete_gets_another_pass_after_a_pause():
    client, (a, b), applier, plan, sleeps = setup()
    client.delete_errors[a] = [conflict()]
    targets = applier.apply(plan)
    assert sorted(t.id for t in targets) == sorted([a, b]) and all(t.expect == "gone" for t in targets)
    assert deletes(client) == [a, b, a] and sleeps == [1.0] and a not in client.objects


def test_passes_are_bounded_and_the_failure_names_what_is_left():
    client, (a, b), applier, plan, sleeps = setup()
    client.delete_errors[a] = [ServerError("boom", status=500, method="DELETE", path="/p")] * 5
    with pytest.raises(Failure) as err:
        applier.apply(plan)
    assert err.value.msg.startswith("could not delete backend 'a' (%s) after 3 pass(es): DELETE /p" % a)
    assert err.value.details["failed_objects"][0]["id"] == a
    assert deletes(client) == [a, b, a, a] and sleeps == [1.0, 2.0] and b not in client.objects


def test_every_delete_refused_in_a_pass_still_gets_the_bounded_retries():
    client, (a, b), applier, plan, sleeps = setup()
    client.delete_errors[a] = [conflict(), conflict()]
    client.delete_errors[b] = [conflict()]
    applier.apply(plan)
    assert deletes(client) == [a, b, a, b, a] and sleeps == [1.0, 2.0] and not client.objects


@pytest.mark.parametrize("error", [RateLimitedError("slow down", status=429, method="DELETE", path="/p"),
                                   AccessDeniedError("no", status=403, method="DELETE", path="/p")])
def test_a_rate_limit_or_another_hard_error_ends_the_run_without_another_pass(error):
    client, (a, b), applier, plan, sleeps = setup()
    client.delete_errors[a] = [error]
    with pytest.raises(type(error)):
        applier.apply(plan)
    assert deletes(client) == [a] and sleeps == []


def test_children_are_deleted_before_their_parents_each_kind_in_its_own_passes():
    client = FakeClient()
    backend = client.add("backend", "b")
    bind = client.add("bind", "v4.b")
    client.delete_errors[bind] = [conflict()] * 3
    sleeps = []
    plan = Plan([Action(DELETE, BACKEND, {"id": backend, "name": "b"}),
                 Action(DELETE, BIND, {"id": bind, "name": "v4.b"})]).ordered()
    with pytest.raises(Failure):
        Applier(client, Waiter(client, 1), sleep=sleeps.append).apply(plan)
    assert deletes(client) == [bind] * 3 and sleeps == [1.0, 2.0] and backend in client.objects
