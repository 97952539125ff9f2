"""allow_sources that do not hold: the rules and ACLs under a guarded frontend that the service did not make and
that admit a source its list refuses, as HAProxy evaluates a frontend's connection rules (first match by index)."""
import netaddr
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._bypasses import bypasses, report
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import build

from .test_allow_sources import LB, TAG, converged, plan, with_sources

SERVICE = with_sources(["10.0.0.0/8", "2001:db8::/32"])
OTHER = ["anxlb-svc=other"]


def own():
    d = build(SERVICE)
    return list(d.by_kind["acl"].values()), list(d.by_kind["rule"].values())


def acl(name, value, criterion="src", ident="a1"):
    return dict(kind="acl", id=ident, name=name, criterion=criterion, value=value, index=0, tags=OTHER)


def rule(name, test, action="accept", index=0, condition="if", ident="r1", type="connection"):
    return dict(kind="rule", id=ident, name=name, condition=condition, condition_test=test, action=action, index=index,
                type=type, tags=OTHER)


def found(other_acls, other_rules):
    acls, rules = own()
    return [(f.obj["name"], [str(c) for c in f.matched.iter_cidrs()], f.tie)
            for f in bypasses(["10.0.0.0/8", "2001:db8::/32"], acls, rules, other_acls, other_rules)]


ANY = ["0.0.0.0/0", "::/0"]


@pytest.mark.parametrize("acls, rules, expected", [
    # an accept for every IPv4 source before the reject rules
    ([acl("open", "0.0.0.0/0")], [rule("open", "open")], [("open", ["0.0.0.0/0"], False)]),
    # at the reject rules' index: the Engine's order among equal indexes is not documented
    ([acl("open", "0.0.0.0/0")], [rule("open", "open", index=1)], [("open", ["0.0.0.0/0"], True)]),
    # after the reject rules: never sees a refused source
    ([acl("open", "0.0.0.0/0")], [rule("open", "open", index=2)], []),
    # within the list: admits nothing it refuses
    ([acl("team", "10.1.0.0/16")], [rule("team", "team")], []),
    # no condition: unconditionally
    ([], [rule("all", None, condition=None)], [("all", ANY, False)]),
    # unless: every source but the ACL's
    ([acl("team", "10.1.0.0/16")], [rule("not-team", "team", condition="unless")],
     [("not-team", [str(c) for c in (netaddr.IPSet(ANY) - netaddr.IPSet(["10.1.0.0/16"])).iter_cidrs()], False)]),
    # an ACL that tests no source, or a name that is no ACL: any source may match
    ([acl("https", "443", criterion="dst_port")], [rule("port", "https")], [("port", ANY, False)]),
    ([], [rule("predefined", "TRUE")], [("predefined", ANY, False)]),
    # naming the service's own deny ACL: every IPv4 source
    ([], [rule("theirs", "deny-v4.http.web")], [("theirs", ["0.0.0.0/0"], False)]),
    # a reject or another kind of rule does not admit
    ([acl("open", "0.0.0.0/0")], [rule("open", "open", action="reject")], []),
    ([acl("open", "0.0.0.0/0")], [rule("open", "open", type="http")], []),
    # an earlier refusal of the same sources shadows the accept
    ([acl("open", "0.0.0.0/0", ident="a1"), acl("v4", "0.0.0.0/0", ident="a2")],
     [rule("drop", "v4", action="reject", index=0, ident="r0"), rule("open", "open", index=1, ident="r1")], []),
    # another owner's ACL with the name of a service's accept ACL: its lines join the service's
    ([acl("allow-10-0-0-0_8.http.web", "192.0.2.0/24")], [], [("allow-10-0-0-0_8.http.web", ["192.0.2.0/24"], False)]),
    # ... with the name of a deny ACL: it only refuses more
    ([acl("deny-v4.http.web", "192.0.2.0/24")], [], []),
])
def test_what_admits_a_source_the_list_refuses(acls, rules, expected):
    assert found(acls, rules) == expected


def test_a_port_without_reject_rules_has_nothing_to_void():
    assert bypasses([], [], [], [acl("open", "0.0.0.0/0")], [rule("open", "open")]) == []


def test_the_planner_reports_another_owners_accept_rule_and_leaves_it_alone():
    observed = converged(SERVICE)
    frontend = observed.by_kind["frontend"][0]["id"]
    observed.by_kind["acl"].append(dict(acl("open", "0.0.0.0/0", ident="f" * 32), frontend=frontend, confirmed=True))
    observed.by_kind["rule"].append(dict(rule("open-all", "open", ident="e" * 32), frontend=frontend, confirmed=True))
    out = plan(SERVICE, observed)
    assert out.actions == []
    (found_,) = out.bypasses
    assert (found_["type"], found_["name"], found_["index"], found_["owner"], found_["frontend"],
            found_["load_balancer"], found_["sources"]) == ("rule", "open-all", 0, "other", "http.web", "lb1", ["0.0.0.0/0"])
    assert found_["msg"].startswith("rule 'open-all' (%s, index 0, owner tag anxlb-svc=other) in frontend 'http.web' "
                                    "on load balancer lb1 accepts if ACL 'open' (0.0.0.0/0), before the service's reject rules"
                                    % ("e" * 32)), found_["msg"]


def test_an_untagged_rule_is_the_services_by_containment_deleted_not_reported():
    observed = converged(SERVICE)
    frontend = observed.by_kind["frontend"][0]["id"]
    observed.by_kind["acl"].append(dict(acl("open", "0.0.0.0/0", ident="f" * 32), frontend=frontend, tags=[]))
    observed.by_kind["rule"].append(dict(rule("open-all", "open", ident="e" * 32), frontend=frontend, tags=[]))
    out = plan(SERVICE, observed)
    assert sorted((a.op, a.obj["name"]) for a in out.actions) == [("delete", "open"), ("delete", "open-all")]
    assert out.bypasses == []


def test_a_port_without_an_allow_list_is_not_checked():
    observed = converged(SERVICE)
    frontend = observed.by_kind["frontend"][0]["id"]
    observed.by_kind["rule"].append(dict(rule("open-all", "deny-v4.http.web", ident="e" * 32), frontend=frontend))
    opened = dict(SERVICE, ports=[dict(SERVICE["ports"][0], allow_sources=[])])
    assert plan(opened, observed).bypasses == []


@pytest.mark.parametrize("tags, owner, words", [
    (OTHER, "other", "owner tag anxlb-svc=other"),
    (["team-svc=web"], None, "owner tag team-svc=web"),   # the same service name under another prefix
    ([], None, "no owner tag"),
])
def test_a_report_names_the_owner_or_says_there_is_none(tags, owner, words):
    acls, rules = own()
    (finding,) = bypasses(["10.0.0.0/8"], acls, rules, [], [dict(rule("all", None, condition=None), tags=tags)])
    out = report(finding, LB, "http.web", "f" * 32, TAG, "anxlb")
    assert (out["owner"], out["refused_sources"]) == (owner, "0.0.0.0/0, ::/0 except 10.0.0.0/8")
    assert out["msg"] == ("rule 'all' (r1, index 0, %s) in frontend 'http.web' on load balancer lb1 accepts "
                          "unconditionally, before the service's reject rules; so sources allow_sources refuses can "
                          "connect: 0.0.0.0/0, ::/0 except 10.0.0.0/8" % words)


def test_an_acl_joining_the_services_accept_acl_names_the_rule_it_widens():
    acls, rules = own()
    (finding,) = bypasses(["10.0.0.0/8"], acls, rules, [acl("allow-10-0-0-0_8.http.web", "192.0.2.0/24")], [])
    out = report(finding, LB, "http.web", "f" * 32, TAG, "anxlb")
    assert out["named_by"] == "allow-10-0-0-0_8.http.web" and out["type"] == "acl"
    assert "carries the name of the service's ACL, so the service's accept rule 'allow-10-0-0-0_8.http.web' also " \
           "admits what it matches: 'src 192.0.2.0/24'" in out["msg"]
