import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._wait import Target, Waiter, engine_reason

from ..fakes import FakeClient


class Clock:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def sleep(self, seconds):
        self.sleeps.append(round(seconds, 3))
        self.now += seconds

    def __call__(self):
        return self.now


def waiter(client, timeout=600, **kw):
    clock = Clock()
    return Waiter(client, timeout, sleep=clock.sleep, clock=clock, **kw), clock


def test_backoff_grows_and_is_capped():
    client = FakeClient()
    ident = client.add("backend", "b", state="NewlyCreated")
    client.scripts[ident] = ["NewlyCreated"] * 7 + ["Deployed"]
    w, clock = waiter(client, initial=1, factor=2, cap=8)
    w.wait([Target("backend", ident, "b")])
    assert clock.sleeps == [1, 2, 4, 8, 8, 8, 8]
    assert w.polls == 8


def test_updating_is_waited_for_although_the_engine_calls_it_ok():
    client = FakeClient()
    ident = client.add("backend", "b", state="Updating")
    client.scripts[ident] = ["Updating", "Updated"]
    w, clock = waiter(client)
    w.wait([Target("backend", ident, "b")])
    assert len(clock.sleeps) == 1


def test_deployment_error_gets_one_redeploy_then_succeeds():
    client = FakeClient()
    ident = client.add("server", "s", state="DeploymentError", port=80)
    client.scripts[ident] = ["DeploymentError", "Updating", "Updated"]
    w, dummy = waiter(client)
    w.wait([Target("server", ident, "s")])
    # the cloud controller's redeploy: a PUT of the whole object (the client adds "state": "0")
    assert client.writes() == [("PUT", "server", ident)]
    assert client.bodies[0][2]["identifier"] == ident and client.bodies[0][2]["name"] == "s"
    assert "state" not in client.bodies[0][2] and client.bodies[0][2]["port"] == 80   # the whole object


def test_deployment_error_twice_fails_naming_the_object():
    client = FakeClient()
    ident = client.add("server", "node1.80.web", state="DeploymentError")
    client.scripts[ident] = ["DeploymentError", "Updating", "DeploymentError"]
    w, dummy = waiter(client)
    with pytest.raises(Failure) as err:
        w.wait([Target("server", ident, "node1.80.web")])
    assert err.value.msg.startswith("server 'node1.80.web' (%s) failed to deploy (DeploymentError) again after a "
                                    "redeploy request: the Engine gives no reason; its fields: " % ident)
    assert err.value.details["failed_object"]["reason"] is None
    assert client.writes() == [("PUT", "server", ident)]


@pytest.mark.parametrize("answer, reason", [
    ({"state": {"id": "2", "title": "DeploymentError", "type": 0, "reason": "haproxy -c: unknown keyword"}},
     "haproxy -c: unknown keyword"),
    ({"state": {"id": "2", "title": "DeploymentError", "type": 0}, "messages": ["bad check", "retry later"]},
     "bad check; retry later"),
    ({"state": {"id": "2", "title": "DeploymentError", "type": 0}, "error": {"message": "no such certificate"}},
     "no such certificate"),
    ({"state": {"id": "2", "title": "DeploymentError", "type": 0}}, None),
    ({"state": "2"}, None),
])
def test_engine_reason_is_whatever_the_answer_explains(answer, reason):
    assert engine_reason(answer) == reason


def test_timeout_bounds_the_whole_wait_and_names_what_is_pending():
    client = FakeClient()
    ident = client.add("bind", "v4.80.web", state="NewlyCreated")
    w, clock = waiter(client, timeout=10, initial=1, factor=2, cap=4)
    with pytest.raises(Failure) as err:
        w.wait([Target("bind", ident, "v4.80.web")])
    assert err.value.msg == "timed out after 10s waiting for bind 'v4.80.web' (%s)" % ident
    assert clock.now == pytest.approx(10)
    assert clock.sleeps == [1, 2, 4, 3]


def test_waiting_for_deletion_ends_on_404():
    client = FakeClient()
    ident = client.add("bind", "b")
    w, clock = waiter(client)
    gone = Target("bind", ident, "b", expect="gone")
    client.objects.pop(ident)
    w.wait([gone])
    assert clock.sleeps == []
