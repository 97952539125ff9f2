"""Tag entities looked up ahead of their delete (_tag_entities.Lookahead): what was found then is used at the
delete; what was not found, or could not be read, is looked up again there."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import EngineError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._tag_entities import Lookahead

from ..fakes import FakeClient

LEASE = "anxlb-lease=web@ctl:1@1800000600"


def lookups(client):
    return [c for c in client.calls if c[:2] in (("GET", "tag entities"), ("GET", "tag entity"))]


def test_a_name_looked_up_ahead_is_found_without_asking_again():
    client = FakeClient()
    client.tag_add("a" * 32, LEASE)
    ahead = Lookahead(client)
    ahead.start([LEASE, LEASE])            # once per name
    asked = len(lookups(client))
    assert asked == 2                      # the listing and the entity's assignments
    client.tag_remove("a" * 32, LEASE)     # detached since: the entity is the same
    assert ahead.found(LEASE) == [(client.entities[LEASE], ["svc"])]
    assert ahead.found(LEASE) == [(client.entities[LEASE], ["svc"])] and len(lookups(client)) == asked


def test_not_started_nothing_found_or_a_failed_lookup_is_none_so_the_caller_looks_again():
    client = FakeClient()
    ahead = Lookahead(client)
    assert ahead.found(LEASE) is None                  # never started
    ahead.start([LEASE])                               # no such entity (yet): not "nothing to delete"
    assert ahead.found(LEASE) is None

    class Failing(FakeClient):
        def tag_entities(self, query=""):
            raise EngineError("the Engine answered 503", status=503)
    failing = Lookahead(Failing())
    failing.start([LEASE])
    assert failing.found(LEASE) is None
