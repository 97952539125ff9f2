"""Contract: state across restarts with --state, and seeding (README.md, "Seed")."""
import sqlite3
import time

import pytest
import yaml

from localengine import seed
from localengine.engine import Engine
from localengine.seed import SeedError
from localengine.store import Store, StoreError
from localengine.testing import LocalEngine

from .helpers import (ADDRESSES, DELAY, EXAMPLE_SEED, FILTERED, LB1, LB2, PREFIXES, RESOURCES, SEED, V4,
                      backend, error_of, get, items, lbaas, ok, state_title, tag_path, tree)


def counts(engine):
    kinds = ("loadbalancer", "backend", "frontend", "bind", "server")
    out = dict((k, ok(engine.api("GET", lbaas(k)))["data"]["total_items"]) for k in kinds)
    out["prefix"] = ok(engine.api("GET", PREFIXES))["total_items"]
    out["address"] = ok(engine.api("GET", ADDRESSES))["data"]["total_items"]
    return out


def test_a_restart_keeps_objects_tags_states_and_addresses(tmp_path):
    state, delay = str(tmp_path / "engine.db"), 1.0   # usually longer than a restart takes, not always under load
    with LocalEngine(seed=SEED, state=state, deploy_delay=delay) as first:
        created = time.monotonic()
        ids = tree(first)
        ok(first.api("POST", tag_path(ids["backend"], "keep"), json=""))
        first.set_state(ids["server"], "DeploymentError")
        address = ok(first.api("POST", ADDRESSES, json={"prefix": V4, "name": "127.0.10.9"}))["identifier"]
        before = dict((kind, get(first, kind, ident)) for kind, ident in ids.items())
        assert before["bind"]["state"]["title"] == "NewlyCreated"
    with LocalEngine(seed=SEED, state=state, deploy_delay=delay) as second:
        for kind, ident in ids.items():
            now = get(second, kind, ident)
            if time.monotonic() - created >= delay and now["state"]["title"] == "Deployed":
                now["state"] = before[kind]["state"]   # a slow restart: the deploy delay ran out meanwhile, rightly
            assert now == before[kind]
        assert ok(second.api("GET", RESOURCES, params={"tag_name": "keep"}))["data"] == [
            {"identifier": ids["backend"], "name": "web"}]
        assert ok(second.api("GET", ADDRESSES + "/" + address))["name"] == "127.0.10.9"
        assert "keep" in [t["name"] for t in second.tag_entities()]   # tag entities persist too
        time.sleep(max(0, created + delay + 0.1 - time.monotonic()))
        assert state_title(second, "bind", ids["bind"]) == "Deployed"   # the clock kept running
        assert state_title(second, "server", ids["server"]) == "DeploymentError"


def test_a_deletion_in_progress_finishes_after_a_restart(tmp_path):
    state = str(tmp_path / "engine.db")
    with LocalEngine(seed=SEED, state=state, delete_delay=DELAY) as first:
        ident = backend(first)["identifier"]
        ok(first.api("DELETE", lbaas("backend", ident)))
    with LocalEngine(seed=SEED, state=state, delete_delay=DELAY) as second:
        time.sleep(DELAY)
        error_of(second.api("GET", lbaas("backend", ident)), 404)


def test_seeding_a_state_file_again_adds_nothing_and_changes_nothing(tmp_path):
    state = str(tmp_path / "engine.db")
    extra = ("--seed", EXAMPLE_SEED)   # the last --seed wins; both files go into the same state
    with LocalEngine(seed=SEED, state=state) as first:
        ok(first.api("PUT", lbaas("loadbalancer", LB1), json={"name": "lb1", "ip_address": "changed.test"}))
        ok(first.api("DELETE", lbaas("loadbalancer", LB2)))
        ok(first.api("DELETE", tag_path(V4, "anxlb-pool=demo")))
    with LocalEngine(state=state, extra_args=extra) as second:
        seeded = counts(second)
    with LocalEngine(seed=SEED, state=state) as third:
        assert get(third, "loadbalancer", LB1)["ip_address"] == "changed.test"   # not reset
        assert get(third, "loadbalancer", LB2)["name"] == "lb2"   # missing again: created again
        assert ok(third.api("GET", RESOURCES + "/" + V4))["tags"] == []   # tags only on creation
    with LocalEngine(state=state, extra_args=extra) as fourth:
        assert counts(fourth) == dict(seeded, loadbalancer=seeded["loadbalancer"] + 1)


def test_the_example_seed():
    with LocalEngine(seed=EXAMPLE_SEED) as engine:
        lb = "0e0a0b0c000000000000000000000001"
        assert ok(engine.api("GET", RESOURCES + "/" + lb))["tags"][0]["name"] == "team=web"
        frontends = items(ok(engine.api("GET", lbaas("frontend"), params={"filters": "load_balancer=" + lb})))
        front = get(engine, "frontend", frontends[0]["identifier"])
        assert front["default_backend"] == {"identifier": "0e0a0b0c000000000000000000000002", "name": "web-8080"}
        assert front["state"]["title"] == "Deployed" and front["client_timeout"] == "30"
        binds = items(ok(engine.api("GET", lbaas("bind"), params={"filters": "frontend=" + front["identifier"]})))
        assert [b["name"] for b in binds] == ["web-80-v4", "web-80-any"]
        servers = items(ok(engine.api("GET", lbaas("server"), params={"filters": "backend=" + front[
            "default_backend"]["identifier"]})))
        assert [get(engine, "server", s["identifier"])["check"] for s in servers] == ["enabled", "disabled"]
        rules = [get(engine, "rule", r["identifier"]) for r in items(ok(engine.api("GET", lbaas("rule"), params={
            "filters": "frontend=" + front["identifier"]})))]
        assert [(r["parent_type"], r["condition_test"], r["action"], r["index"]) for r in rules] == [
            ("frontend", "office", "accept", 0), ("frontend", "everyone", "reject", 1)]
        acls = [get(engine, "ACL", a["identifier"]) for a in items(ok(engine.api("GET", lbaas("ACL"))))]
        assert [(a["parent_type"], a["name"], a["value"], a["state"]["title"]) for a in acls] == [
            ("backend", "internal", "10.0.0.0/8", "Deployed"), ("frontend", "office", "127.0.0.0/8", "Deployed"),
            ("frontend", "everyone", "0.0.0.0/0", "Deployed")]
        v4 = ok(engine.api("GET", PREFIXES + "/0e0a0b0c000000000000000000000010"))
        assert (v4["type"], v4["locations"][0]["code"], v4["locations"][0]["name"]) == (1, "ANX04", "Vienna")
        assert len(items(ok(engine.api("GET", FILTERED, params={"prefix": v4["identifier"]})))) == 8
        v6 = [p for p in ok(engine.api("GET", PREFIXES))["data"] if p["name"] == "fd00:20::/64"][0]
        v6 = ok(engine.api("GET", PREFIXES + "/" + v6["identifier"]))
        assert v6["vlans"] == v4["vlans"] and v6["locations"] == v4["locations"]
        assert ok(engine.api("GET", "/api/vlan/v1/vlan.json/" + v4["vlans"][0]["identifier"]))[
            "description_customer"] == "example VLAN"


UNTYPED_ACL = {"name": "a", "criterion": "src", "value": "10.0.0.0/8", "index": 0}
ORPHAN_RULE = {"name": "r", "index": 0, "condition": "if", "condition_test": "nope", "type": "connection", "action": "accept"}


@pytest.mark.parametrize("data, message", [
    ({"loadbalancer": []}, "seed: unknown keys loadbalancer"),
    ({"loadbalancers": {"name": "x"}}, "loadbalancers: must be a list"),
    ({"loadbalancers": [{"name": "x", "identifier": "XYZ"}]}, "identifier must be 32 lowercase hex"),
    ({"loadbalancers": [{"name": "x", "tags": "t"}]}, "tags must be a list"),
    ({"loadbalancers": [{"name": "x", "backends": [{"name": "b", "mode": "udp"}]}]},
     "loadbalancers[0].backends[0]: mode: Must be one of"),
    ({"loadbalancers": [{"name": "x", "backends": [{"name": "b", "load_balancer": LB1}]}]}, "unknown keys load_balancer"),
    ({"loadbalancers": [{"name": "x", "frontends": [{"name": "f", "default_backend": "nope"}]}]},
     "default_backend nope is no backend"),
    ({"loadbalancers": [{"name": "x", "frontends": [{"name": "f", "binds": [{"name": "b", "port": 0}]}]}]},
     "loadbalancers[0].frontends[0].binds[0]: port"),
    ({"loadbalancers": [{"name": "x", "identifier": V4}]}, "belongs to a prefix"),
    ({"loadbalancers": [{"name": "x", "frontends": [{"name": "f", "acls": [dict(UNTYPED_ACL, parent_type="frontend")]}]}]},
     "unknown keys parent_type"),
    ({"loadbalancers": [{"name": "x", "frontends": [{"name": "f", "rules": [ORPHAN_RULE]}]}]},
     "loadbalancers[0].frontends[0].rules[0]: condition_test: No ACL named 'nope'"),
    ({"prefixes": [{"cidr": "127.0.10.1/24"}]}, "prefixes[0]: cidr: 127.0.10.1/24 has host bits set"),
    ({"prefixes": [{"cidr": "10.0.0.0/8", "create_empty": False}]}, "create_empty"),
    ({"prefixes": [{"cidr": "10.0.0.0/24", "type": 3}]}, "type must be 0 or 1"),
    ({"prefixes": [{"cidr": "10.0.0.0/24", "location": {"name": "x"}}]}, "location: needs a code"),
    ({"prefixes": [{"cidr": "10.0.0.0/24", "vlan": {"nam": "x"}}]}, "vlan: unknown keys nam"),
    ({"zones": [{"name": "big.test", "fill": -1}]}, "zones[0]: fill must be a number of records from 0 to 100000"),
    ({"zones": [{"name": "big.test", "fill": "many"}]}, "zones[0]: fill must be"),
])
def test_seed_errors_name_the_entry(data, message):
    engine = Engine()
    with open(SEED) as handle:
        seed.apply(engine, yaml.safe_load(handle))
    with pytest.raises(SeedError) as info:
        seed.apply(engine, data)
    assert message in str(info.value)
    engine.close()


def test_a_failing_seed_changes_nothing():
    engine = Engine()
    with pytest.raises(SeedError):
        seed.apply(engine, {"loadbalancers": [{"name": "ok"}, {"name": "bad", "ip_address": 1}]})
    assert engine.store.dump() == []
    engine.close()


def test_a_state_file_of_another_schema_is_refused(tmp_path):
    path = str(tmp_path / "old.db")
    sqlite3.connect(path).execute("CREATE TABLE objects (id TEXT)").connection.commit()
    with pytest.raises(StoreError, match="another version of the local Engine"):
        Store(path)


def test_a_zone_seed_fills_a_large_zone():
    """``fill: N`` (README.md, Seed): N A records besides the listed ones, without a comment, the zone's TTL."""
    engine = Engine()
    seed.apply(engine, {"zones": [{"name": "big.test", "fill": 300, "records": [
        {"name": "www", "type": "A", "rdata": "127.0.0.5"}]}]})
    records = engine.clouddns.records("big.test", {})
    filled = [r for r in records if r["name"].startswith("fill-")]
    assert len(filled) == 300 and len(set(r["rdata"] for r in filled)) == 300
    assert filled[-1]["rdata"] == "10.0.1.43" and set((r["type"], r["ttl"], r["comment"]) for r in filled) == {
        ("A", None, None)}
    assert [r["name"] for r in records if not r["name"].startswith("fill-")] == ["@", "@", "@", "www"]
    engine.close()
