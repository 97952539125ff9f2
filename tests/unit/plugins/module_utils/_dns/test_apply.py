"""The rrset operations (_dns/_apply.py) on CloudDNS's answers the local Engine gives only with timing: a zone not
editable is waited for (before the write, and again when another writer was faster); a refused changeset fails
naming the values by index; a revision that failed to deploy fails the run; a lost answer is an open outcome."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._apply import RrsetOperations
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import DesiredRrset, observed_rrset, plan_rrset
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import EngineConnectionError, ValidationFailedError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure

ZONE = "local.test"


def zone(editable, level, state="active"):
    return {"name": ZONE, "is_editable": editable, "deployment_level": level, "revisions": [{"serial": 7, "state": state}]}


class ScriptedClient:
    """Answers GETs of the zone from ``zones`` (the last one repeats) and changesets from ``writes``."""

    def __init__(self, zones, writes):
        self.zones, self.writes, self.sent = list(zones), list(writes), []

    def request(self, method, path, params=None, body=None, **_kw):
        self.sent.append((method, path.rsplit("/", 1)[-1]))
        if method == "GET":
            return self.zones.pop(0) if len(self.zones) > 1 else self.zones[0]
        answer = self.writes.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def action():
    desired = DesiredRrset(ZONE, "www", "A", ["127.0.0.1", "127.0.0.2"])
    (planned,) = plan_rrset(observed_rrset(ZONE, "www", "A", []), desired)
    return planned


def ops(client, wait=True):
    clock = iter(range(0, 10000))
    return RrsetOperations(client, wait=wait, timeout=100, sleep=lambda s: None, clock=lambda: next(clock))


def test_a_zone_not_editable_is_waited_for_and_the_revision_until_live():
    client = ScriptedClient([zone(False, 50, "deploying"), zone(True, 100), zone(False, 0, "validating"), zone(True, 100)], [[]])
    ops(client).create(None, action(), {})
    assert client.sent == [("GET", ZONE), ("GET", ZONE), ("POST", "changeset"), ("GET", ZONE), ("GET", ZONE)]


def test_a_write_refused_as_not_editable_waits_and_is_sent_again():
    busy = ValidationFailedError("Zone local.test is not editable: revision 8 is validating", status=400,
                                 validation={"zone": "not editable"})
    client = ScriptedClient([zone(True, 100)], [busy, []])
    ops(client, wait=False).create(None, action(), {})
    assert [s for s in client.sent if s[0] == "POST"] == [("POST", "changeset")] * 2


def test_a_refused_changeset_names_the_values():
    refused = ValidationFailedError("invalid", status=400, validation={"create[1].rdata": "Must be an IPv4 address."})
    client = ScriptedClient([zone(True, 100)], [refused])
    with pytest.raises(Failure, match="create of value 127.0.0.2: Must be an IPv4 address"):
        ops(client).create(None, action(), {})


def test_a_revision_that_failed_fails_the_run():
    client = ScriptedClient([zone(True, 100), zone(True, 0, "failed")], [[]])
    with pytest.raises(Failure, match="revision 7 with this task's changes failed to deploy"):
        ops(client).create(None, action(), {})


def test_a_lost_answer_is_settled_by_a_new_observation():
    lost = EngineConnectionError("reset", method="POST", may_have_landed=True)
    assert ops(ScriptedClient([zone(True, 100)], [])).settles_later(action(), lost)
    refused = ValidationFailedError("no", status=400)
    assert not ops(ScriptedClient([zone(True, 100)], [])).settles_later(action(), refused)


def test_waiting_ends_with_a_timeout_naming_the_zone():
    client = ScriptedClient([zone(False, 50, "deploying")], [])
    with pytest.raises(Failure, match="zone local.test: timed out"):
        ops(client).create(None, action(), {})
