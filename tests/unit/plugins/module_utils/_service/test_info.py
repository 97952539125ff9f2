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


def test_a_warning_per_undeclared_service_names_it_in_a_line_or_two():
    """Issue 43: one warning for all of them reached 1,151 characters for 4 services; a warning each, naming the
    service (Ansible prints a warning once per text) and at most three of its endpoints, then how many more."""
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._info import warnings
    big = service("big", {"lb1": dict(("127.0.10.%d" % n, [80, 443]) for n in range(1, 5)), "lb2": {"fd00::1": [80]},
                          "lb3": {}})
    found = [service("api", {"lb2": {"127.0.10.52": [9090]}}),
             service("pg", {"lb1": {"127.0.10.3": [6432]}}, allocated=["127.0.10.3", "127.0.10.9"]), big]
    assert warnings(found, ["api", "pg", "big"], "anxlb") == []
    fix = ("; collect it if it was renamed or removed (anxcloud.lbaas.gc), or name it in declared if another playbook "
           "manages it (role service_loadbalancer: lbaas_keep_owners)")
    assert warnings(found, ["api"], "xanxlb") == [
        "service pg of tag prefix 'xanxlb' is not declared but still on lb1 with 127.0.10.3:6432; holding address "
        "127.0.10.9" + fix,
        "service big of tag prefix 'xanxlb' is not declared but still on lb1 with 127.0.10.1:80, 127.0.10.1:443, "
        "127.0.10.2:80; lb3 (no listener); 6 more endpoints" + fix]
    assert all(len(text) <= 2 * 160 for text in warnings(found, [], "anxlb"))
