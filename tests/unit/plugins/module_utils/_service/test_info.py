"""The undeclared services of service_info (pure): one line each naming where it still listens."""
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._info import undeclared


def service(name, listening, allocated=()):
    return dict(name=name, load_balancers=sorted(listening), listening=listening,
                addresses=sorted(set(a for per_lb in listening.values() for a in per_lb)),
                allocated=[dict(address=a, prefix="p", id="i") for a in allocated])


def test_each_undeclared_service_is_named_with_its_load_balancers_and_endpoints():
    found = [service("pg", {"lb1": {"127.0.10.3": [6432]}}, allocated=["127.0.10.3"]),
             service("postgres", {"lb1": {"127.0.10.4": [6432]}}),
             service("old", {"lb1": {"fd00:10::2": [80, 443]}, "lb2": {}}, allocated=["127.0.10.9"])]
    out = undeclared(found, ["postgres"])
    assert [s["message"] for s in out] == [
        "pg: not declared, still on lb1 with 127.0.10.3:6432",
        "old: not declared, still on lb1 with [fd00:10::2]:80, [fd00:10::2]:443; lb2 (no listener); holding address 127.0.10.9"]
    assert out[0] == dict(name="pg", load_balancers=["lb1"], listening={"lb1": {"127.0.10.3": [6432]}},
                          allocated=["127.0.10.3"], message=out[0]["message"])
    assert undeclared(found, ["pg", "postgres", "old"]) == []


def test_one_warning_names_every_undeclared_service_once():
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._info import HINT, warning
    found = [service("api", {"lb2": {"127.0.10.52": [9090]}}),
             service("pg", {"lb1": {"127.0.10.3": [6432]}}, allocated=["127.0.10.3", "127.0.10.9"])]
    assert warning(found, ["api", "pg"], "anxlb") is None
    assert warning(found, ["api"], "anxlb") == (
        "1 service of tag prefix 'anxlb' is not declared: pg (still on lb1 with 127.0.10.3:6432; holding address "
        "127.0.10.9). " + HINT)
    assert warning(found, [], "xanxlb") == (
        "2 services of tag prefix 'xanxlb' are not declared: api (still on lb2 with 127.0.10.52:9090), pg (still on lb1 "
        "with 127.0.10.3:6432; holding address 127.0.10.9). " + HINT)
