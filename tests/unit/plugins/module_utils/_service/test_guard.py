"""What the lease and the marker leave behind, with the real client against the local Engine: after
50 writing runs of a service on two load balancers, the account holds the owner tag and one current
marker, and no lease. Tag entities exist on the local Engine of branch engine-strict (the
``/api/core/v1/tags.json`` endpoints); against an Engine without them the counting tests are skipped."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import ServiceDeclaration
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import Desired
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._guard import ServiceGuard

from ..conftest import LB1, LB2

LBS = [{"id": LB1, "name": "lb1"}, {"id": LB2, "name": "lb2"}]


def entity_names(engine):
    """Every tag entity of the account, read through the Engine API (skips without tag entities)."""
    names, page = [], 1
    while page < 100:
        resp = engine.api("GET", "/api/core/v1/tags.json", params={"page": page, "limit": 100, "query": ""})
        if resp.status_code == 404:
            pytest.skip("this local Engine has no tag entities (needs the engine-strict branch)")
        resp.raise_for_status()
        items = resp.json()["data"]
        if not items:
            return sorted(names)
        names.extend(item["name"] for item in items)
        page += 1
    raise AssertionError("tag entity list does not end")


def lb_tags(client):
    return dict((lb["id"], client.resource_tags(lb["id"])) for lb in LBS)


def writing_run(client, warnings, digest):
    """What the service module does around a writing run: inspect, lease, (apply), mark, release."""
    params = {"tag_prefix": "anxlb", "name": "web", "lease_holder": None, "lease_timeout": 600}
    guard = ServiceGuard(client, ServiceDeclaration.from_params(params), Desired(), warn=warnings.append)
    guard.digest = digest

    class State:
        lbs = LBS

    State.lb_tags = lb_tags(client)
    guard.inspect(State, check_mode=False)
    guard.before_apply(State, None)
    for lb in LBS:
        client.tag_add(lb["id"], "anxlb-svc=web")   # what the apply step would attach (owner tags stay)
    guard.mark(LBS)
    guard.release()


def test_fifty_writing_runs_leave_the_owner_tag_and_one_marker(engine, make_client):
    client = make_client()
    seeded = entity_names(engine)   # the seed's tags (skips early without tag entities)
    warnings = []
    for run in range(50):
        writing_run(client, warnings, "%016x" % (run % 4))
    assert warnings == []
    tags = lb_tags(client)
    (marker,) = [t for t in tags[LB1] if t.startswith("anxlb-reconciled.web=")]
    assert tags[LB1] == tags[LB2] == sorted(["anxlb-svc=web", marker])
    created = [n for n in entity_names(engine) if n not in seeded]
    assert created == sorted(["anxlb-svc=web", marker])   # no lease, no earlier marker


def test_a_run_without_tag_entities_still_releases_and_marks(engine, make_client):
    # Against any Engine: the tags on the load balancers are what the design says.
    client = make_client()
    warnings = []
    for run in range(3):
        writing_run(client, warnings, "%016x" % run)
    tags = lb_tags(client)
    assert [t for t in tags[LB1] if t.startswith("anxlb-lease=")] == []
    assert len([t for t in tags[LB1] if t.startswith("anxlb-reconciled.web=")]) == 1
    assert warnings == []
