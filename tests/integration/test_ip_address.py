"""ip_address and ip_pool_info against the local Engine: idempotent allocation per owner and family,
release, check mode that reserves nothing, concurrent allocations, exhaustion and invalid pools."""
import threading

from .conftest import Ansible

V4 = "0a11ce11000000000000000000000001"   # 127.0.10.0/24, tagged anxlb-pool=demo (seeds/default.yml)
V6 = "0a11ce11000000000000000000000002"   # fd00:10::/64, same tag


def addresses(engine, prefix=V4):
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": prefix, "page": 1, "limit": 1000})
    resp.raise_for_status()
    return sorted(a["name"] for a in resp.json()["data"]["data"])


def tags_of(engine, ident):
    resp = engine.api("GET", "/api/core/v1/resource.json/" + ident)
    resp.raise_for_status()
    return sorted(t["name"] for t in resp.json().get("tags") or [])


OMIT = object()


def task(**options):
    args = dict({"pool": ["anxlb-pool=demo"], "owner": "web", "family": "v4"}, **options)
    return {"anxcloud.lbaas.ip_address": dict((k, v) for k, v in args.items() if v is not OMIT)}


def cycle(ansible, engine, options):
    """check (nothing written) -> real (same plan and diff) -> rerun and check rerun (not changed, nothing written)."""
    seen = {p: addresses(engine, p) for p in (V4, V6)}
    engine.reset_requests()
    check = ansible.run(task(**options), check=True, diff=True)
    assert not check.failed(), check
    assert engine.mutating_requests() == 0 and {p: addresses(engine, p) for p in (V4, V6)} == seen
    real = ansible.run(task(**options), diff=True)
    assert not real.failed(), real
    assert [dict(a, id=None) for a in real.last["plan"]] == [dict(a, id=None) for a in check.last["plan"]]
    assert real.last["diff"] == check.last["diff"] and real.last["changed"] == check.last["changed"]
    engine.reset_requests()
    for check_mode in (False, True):
        again = ansible.run(task(**options), check=check_mode, diff=True)
        assert not again.failed() and again.last["changed"] is False and again.last["plan"] == []
        assert again.last["addresses"] == real.last["addresses"]
        assert again.last["diff"]["before"] == again.last["diff"]["after"] == real.last["diff"]["after"]
    assert engine.mutating_requests() == 0
    return check.last, real.last


def test_allocate_rerun_and_release(engine, ansible):
    taken_before = addresses(engine)
    check, real = cycle(ansible, engine, {})
    assert check["addresses"] == [{"address": real["addresses"][0]["address"], "id": "(new address)",
                                   "prefix": "127.0.10.0/24", "prefix_id": V4, "family": "v4"}]
    (allocated,) = real["addresses"]
    assert allocated["address"] not in taken_before and real["prefix"] == "127.0.10.0/24"
    assert addresses(engine) == sorted(taken_before + [allocated["address"]])
    assert tags_of(engine, allocated["id"]) == ["anxlb-svc=web"]
    assert check["diff"] == {"before": {"owner": "web", "family": "v4", "addresses": []},
                             "after": {"owner": "web", "family": "v4", "addresses": [allocated["address"]]}}
    check, real = cycle(ansible, engine, {"state": "absent"})
    assert [(a["action"], a["address"]) for a in check["plan"]] == [("release", allocated["address"])]
    assert real["addresses"] == [] and addresses(engine) == taken_before


def test_first_free_skips_taken_addresses_and_honours_range_exclusions_and_last(engine, ansible):
    taken = addresses(engine)
    first = ansible.run(task()).last["addresses"][0]["address"]
    assert first == "127.0.10.%d" % min(n for n in range(1, 255) if "127.0.10.%d" % n not in taken)
    run = ansible.run(task(owner="api", range_start="127.0.10.20", range_end="127.0.10.30",
                           exclude=["127.0.10.24/30", "127.0.10.20", "127.0.10.21/32"]))
    assert [a["address"] for a in run.last["addresses"]] == ["127.0.10.22"]
    run = ansible.run(task(owner="db", count=2, strategy="last", exclude=["127.0.10.254"]))
    assert [a["address"] for a in run.last["addresses"]] == ["127.0.10.252", "127.0.10.253"]


def test_count_grows_and_shrinks_and_v6_is_its_own_family(engine, ansible):
    one = ansible.run(task()).last["addresses"]
    check, real = cycle(ansible, engine, {"count": 3})
    assert real["addresses"][0] == one[0] and len(real["addresses"]) == 3
    check, real = cycle(ansible, engine, {"count": 2})
    assert [a["action"] for a in check["plan"]] == ["release"] and real["addresses"] == one + [real["addresses"][1]]
    check, v6 = cycle(ansible, engine, {"family": "v6", "pool": [V6]})
    # the seeded prefix holds its network (fd00:10::) and gateway (fd00:10::1) address objects
    assert v6["addresses"][0]["address"] == "fd00:10::2" and v6["addresses"][0]["family"] == "v6"
    rerun = ansible.run(task(count=2))   # the v6 allocation left the owner's v4 addresses alone
    assert rerun.last["addresses"] == real["addresses"] and rerun.last["changed"] is False
    gone = ansible.run(task(state="absent", family=OMIT))   # no family: both families go
    assert sorted(a["address"] for a in gone.last["plan"]) == sorted(
        [a["address"] for a in real["addresses"]] + ["fd00:10::2"])
    assert addresses(engine) == ["127.0.10.0", "127.0.10.1", "127.0.10.255"]
    assert addresses(engine, V6) == ["fd00:10::", "fd00:10::1"]


def test_two_owners_allocating_at_the_same_time_get_different_addresses(engine, tmp_path):
    runs = {}

    def allocate(owner):
        path = tmp_path / owner
        path.mkdir()
        runs[owner] = Ansible(engine, path).run(task(owner=owner))

    threads = [threading.Thread(target=allocate, args=(owner,)) for owner in ("blue", "green", "red")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    got = dict((owner, run.last["addresses"][0]["address"]) for owner, run in runs.items() if not run.failed())
    assert sorted(got) == ["blue", "green", "red"], runs
    assert len(set(got.values())) == 3
    for owner, run in runs.items():
        assert tags_of(engine, run.last["addresses"][0]["id"]) == ["anxlb-svc=%s" % owner]


def test_exhaustion_fails_naming_the_pool_and_changes_nothing(engine, ansible):
    before = addresses(engine)
    engine.reset_requests()
    run = ansible.run(task(count=3, range_start="127.0.10.10", range_end="127.0.10.11"))
    assert run.failed()
    assert run.last["msg"] == ("pool 127.0.10.0/24 is exhausted: no free address in 127.0.10.10-127.0.10.11 "
                               "(2 of them taken, excluded: none)")
    assert engine.mutating_requests() == 0 and addresses(engine) == before


def test_invalid_pools_and_options_fail_with_clear_messages(engine, ansible):
    cases = [
        ({"pool": ["0a11ce11000000000000000000000099"]},
         "pool[0]: no IPAM prefix matches '0a11ce11000000000000000000000099' exists"),
        ({"pool": ["anxlb-pool=nothing"]}, "pool[0]: no IPAM prefix carries the tag 'anxlb-pool=nothing' exists"),
        ({"pool": ["10.0.0.0/8"]}, "pool[0]: no IPAM prefix matches '10.0.0.0/8' exists"),
        ({"pool": [V4], "family": "v6"}, "pool has no IPv6 prefix (it has 127.0.10.0/24)"),
        ({"range_start": "127.0.11.1"},
         "range_start: 127.0.11.1 is outside the usable range 127.0.10.1-127.0.10.254 of pool 127.0.10.0/24"),
        ({"pool": [V4], "exclude": ["not-an-ip"]}, "exclude: 'not-an-ip' is not a valid address or CIDR"),
        ({"count": -1}, "count must not be negative, got -1"),
        ({"family": OMIT}, "family is required: pool has prefixes of both families (127.0.10.0/24, fd00:10::/64)"),
    ]
    before = addresses(engine)
    engine.reset_requests()
    for options, message in cases:
        run = ansible.run(task(**options))
        assert run.failed() and run.last["msg"] == message, (options, run.last)
        assert "Traceback" not in run.proc.stdout + run.proc.stderr
    assert engine.mutating_requests() == 0 and addresses(engine) == before


def test_pool_info_counts_usage_and_groups_by_owner(engine, ansible):
    # seeded: network, gateway and broadcast objects in the v4 prefix, network and gateway in the v6 one
    assert addresses(engine) == ["127.0.10.0", "127.0.10.1", "127.0.10.255"]
    assert addresses(engine, V6) == ["fd00:10::", "fd00:10::1"]
    for options in ({"count": 2}, {"owner": "api"}, {"owner": "api", "family": "v6"}):
        assert not ansible.run(task(**options)).failed()
    engine.reset_requests()
    run = ansible.run({"anxcloud.lbaas.ip_pool_info": {"pool": ["anxlb-pool=demo"]}}, check=True)
    assert not run.failed(), run
    assert run.last["changed"] is False and engine.mutating_requests() == 0
    assert run.last["prefixes"] == [
        {"id": V4, "prefix": "127.0.10.0/24", "family": "v4", "size": 256, "usable": 254, "used": 6, "free": 250,
         "allocations": {"api": ["127.0.10.4"], "web": ["127.0.10.2", "127.0.10.3"]},
         "unowned": ["127.0.10.0", "127.0.10.1", "127.0.10.255"]},
        {"id": V6, "prefix": "fd00:10::/64", "family": "v6", "size": 2 ** 64, "usable": 2 ** 64 - 2, "used": 3,
         "free": 2 ** 64 - 4, "allocations": {"api": ["fd00:10::2"]}, "unowned": ["fd00:10::", "fd00:10::1"]},
    ]
    only_v6 = ansible.run({"anxcloud.lbaas.ip_pool_info": {"pool": ["anxlb-pool=demo"], "family": "v6"}})
    assert [p["prefix"] for p in only_v6.last["prefixes"]] == ["fd00:10::/64"]


def test_an_untagged_allocation_of_an_earlier_run_is_adopted_not_leaked(engine, ansible):
    # An earlier run created the address object, then failed to tag it.
    resp = engine.api("POST", "/api/ipam/v1/address.json", json={
        "prefix": V4, "name": "127.0.10.9", "description_customer": "anxcloud.lbaas: web", "role": "Default",
        "organization": "", "rdns_name": ""})
    resp.raise_for_status()
    ident = resp.json()["identifier"]
    check, real = cycle(ansible, engine, {})
    assert [(a["action"], a["address"], a["id"]) for a in check["plan"]] == [("adopt", "127.0.10.9", ident)]
    assert real["addresses"] == [{"address": "127.0.10.9", "id": ident, "prefix": "127.0.10.0/24", "prefix_id": V4,
                                  "family": "v4"}]
    assert tags_of(engine, ident) == ["anxlb-svc=web"] and "127.0.10.2" not in addresses(engine)
    # Another owner's description on an object tagged for someone else is not ours to adopt.
    other = engine.api("POST", "/api/ipam/v1/address.json", json={
        "prefix": V4, "name": "127.0.10.10", "description_customer": "anxcloud.lbaas: api", "role": "Default",
        "organization": "", "rdns_name": ""}).json()["identifier"]
    engine.api("POST", "/api/core/v1/resource.json/%s/tags/anxlb-svc=db" % other, json="").raise_for_status()
    run = ansible.run(task(owner="api"))
    assert [a["action"] for a in run.last["plan"]] == ["allocate"] and tags_of(engine, other) == ["anxlb-svc=db"]
