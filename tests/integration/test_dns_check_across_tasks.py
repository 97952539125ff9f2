"""Check mode predicts DNS records across the tasks of a play (issue 29 point 2): in one ansible-playbook run, a
check-mode dns_record, dns_record_sets or service task's predicted records are seen by the later check-mode tasks (a second task on
the same rrset has nothing to do, a predicted delete reads as gone, a service's predicted names are its own), while
neither the Engine nor knot is written: the zone's records and revisions read back unchanged, the names do not
resolve. The same tasks then run for real in the next play and do what check mode predicted, task by task."""
import os

import pytest
from localengine.testing import MUTATING

from .dns_harness import ZONE, dns_engine, resolve, stored, zone_live  # noqa: F401  pylint: disable=unused-import

SEED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine", "seeds", "dns_service.yml")


@pytest.fixture
def dns_seed():
    return SEED   # the service's load balancers, prefix and zone (the session's Engine of test_service_dns too)


@pytest.fixture
def engine(dns_engine):
    """The ``ansible`` harness runs against this Engine."""
    zone_live(dns_engine)
    return dns_engine


def rrset(task, name, values=None, state="present", **extra):
    args = dict(zone=ZONE, name=name, type="A", state=state, **extra)
    if values is not None:
        args["values"] = values
    return {"name": task, "anxcloud.lbaas.dns_record": args}


SHOP = {"name": "service shop", "anxcloud.lbaas.service": dict(
    name="shop", load_balancers=["lb1"], ports=[dict(name="http", port=8080, target_port=18080)],
    addresses=["127.0.10.5"], servers=[dict(name="n1", address="127.0.0.1")], dns=dict(zone=ZONE, name="shop", ttl=60))}

TASKS = [
    rrset("api created", "api", ["127.0.0.21", "127.0.0.22"], ttl=300, owner="shop"),
    rrset("api again", "api", ["127.0.0.22", "127.0.0.21"], ttl=300, owner="shop"),
    rrset("api ttl", "api", ["127.0.0.21", "127.0.0.22"], ttl=600, owner="shop"),
    rrset("byhand removed", "byhand", state="absent"),
    rrset("byhand removed again", "byhand", state="absent"),
    rrset("byhand back", "byhand", ["127.0.0.9"]),
    SHOP,
    rrset("shop as the service left it", "shop", ["127.0.10.5"], ttl=60),   # (an owner would compare the comment)
    SHOP,
    # the zone task (issue 41): it sees what the tasks before it predicted (api at ttl 600 is in sync), and they see it
    {"name": "zone task", "anxcloud.lbaas.dns_record_sets": dict(zone=ZONE, owner="shop", record_sets=[
        dict(name="zs1", type="A", values=["127.0.0.31"]), dict(name="zs2", type="A", values=["127.0.0.32"]),
        dict(name="api", type="A", values=["127.0.0.21", "127.0.0.22"], ttl=600)])},
    rrset("zs1 as the zone task left it", "zs1", ["127.0.0.31"], owner="shop"),
    {"name": "zone task pruning zs1", "anxcloud.lbaas.dns_record_sets": dict(zone=ZONE, owner="shop", prune=True, record_sets=[
        dict(name="zs2", type="A", values=["127.0.0.32"]), dict(name="api", type="A", values=["127.0.0.21", "127.0.0.22"])])},
    rrset("zs1 gone after the prune", "zs1", state="absent"),
]


def zone_state(engine):
    """What a write would change: the records as the Engine stores them, and the zone's revisions."""
    zone = engine.api("GET", "/api/clouddns/v1/zone.json/" + ZONE).json()
    return stored(engine), zone["current_revision"], len(zone["revisions"])


def test_dns_predictions_are_seen_by_later_tasks_and_nothing_is_written(engine, ansible):
    plays = ansible.session([(TASKS, {"check_mode": True, "diff": True}), (TASKS, {"diff": True})])
    before = zone_state(engine)
    engine.reset_requests()
    check = plays.next()
    assert len(check.records) == len(TASKS) and not any(r["status"] == "failed" for r in check.records), check
    # nothing written: no write request at all, the zone as it was, knot answering as before
    assert [e for e in engine.requests()["log"] if e["method"] in MUTATING] == []
    assert zone_state(engine) == before
    assert resolve(engine, "api.local.test.", "A")[0] == "NXDOMAIN"
    assert resolve(engine, "byhand.local.test.", "A")[:2] == ("NOERROR", ["127.0.0.9"])
    assert resolve(engine, "shop.local.test.", "A")[0] == "NXDOMAIN"

    # each later task saw what the earlier ones predicted
    changed = [r["result"]["changed"] for r in check.records]
    assert changed == [True, False, True, True, False, True, True, False, False, True, False, True, False], check
    assert check[1]["plan"] == [] and check[1]["rrset"]["values"] == ["127.0.0.21", "127.0.0.22"]
    assert [a["action"] for a in check[2]["plan"]] == ["update"] and check[2]["plan"][0]["changes"] == {
        "ttl": {"before": [300], "after": [600]}}
    assert check[3]["plan"][0]["action"] == "delete" and check[4]["rrset"]["records"] == []
    assert check[5]["plan"][0]["action"] == "create"   # the rrset is gone after task 4, as it will be
    assert check[6]["dns"]["records"]["A"][0]["value"] == "127.0.10.5"
    assert check[7]["rrset"]["records"] == [{"value": "127.0.10.5", "ttl": 60,
                                             "comment": "anxlb-svc=shop; dns name of the service"}]
    assert check[8]["plan"] == []
    assert [(a["name"], a["action"]) for a in check[9]["plan"]] == [("zs1", "create"), ("zs2", "create")]
    assert check[10]["plan"] == [] and check[10]["rrset"]["records"][0]["comment"] == "anxlb-svc=shop"
    # prune deletes zs1 and leaves the service's own name (its records carry shop's mark too)
    assert [(a["name"], a["action"], a["pruned"]) for a in check[11]["plan"]] == [("zs1", "delete", True)]
    assert ["shop.local.test. A"] == [e for e in check[11]["left"]
                                      if e["reason"].startswith("the service's own")][0]["record_sets"]
    assert check[12]["plan"] == []

    # the real run does what check mode predicted, task by task
    real = plays.next()
    assert real.rc == 0 and not any(r["status"] == "failed" for r in real.records), real
    assert [r["result"]["changed"] for r in real.records] == changed
    for index, task in enumerate(TASKS):
        if "anxcloud.lbaas.dns_record" in task:
            assert real[index]["rrset"] == check[index]["rrset"], index
            assert real[index]["plan"] == check[index]["plan"], index
            assert real[index]["diff"] == check[index]["diff"], index
        if "anxcloud.lbaas.dns_record_sets" in task:
            for key in ("plan", "record_sets", "pruned", "diff", "left"):
                assert real[index][key] == check[index][key], (index, key)
    assert real[6]["dns"] == check[6]["dns"]
    assert stored(engine, "api") == [("api", "A", "127.0.0.21", 600, "anxlb-svc=shop"),
                                     ("api", "A", "127.0.0.22", 600, "anxlb-svc=shop")]
    assert stored(engine, "byhand") == [("byhand", "A", "127.0.0.9", None, None)]
    assert resolve(engine, "shop.local.test.", "A")[:2] == ("NOERROR", ["127.0.10.5"])
    assert stored(engine, "zs1") == [] and stored(engine, "zs2") == [("zs2", "A", "127.0.0.32", None, "anxlb-svc=shop")]
