"""An allow-list that does not hold is reported: another owner's accept rule for 0.0.0.0/0 under a frontend whose
service declares allow_sources, ordered before the service's reject rules, gives a warning naming it and a
result entry (allow_sources_bypasses), in check mode and in a real run, with no write; with
allow_sources_bypass=fail the run fails before any write, also when it had something to do. An untagged,
hand-made rule there is the service's by containment: deleted, not reported. Each run is the service module as
its own process against the local Engine; every Engine state is read back through the Engine's own API."""
import copy

from . import engine_state as es
from .test_acl_rule_modules import listed, post, state
from .test_service import objects_of

SERVICE = {"name": "web", "load_balancers": ["lb1"], "addresses": ["127.0.10.5"],
           "ports": [{"name": "http", "port": 8080, "target_port": 18080}],
           "servers": [{"name": "n1", "address": "127.0.0.1"}], "allow_sources": ["127.0.0.5", "10.0.0.0/8"]}


def everything(engine):
    return dict(es.snapshot(engine), **state(engine))


def frontend_id(engine):
    return es.by_name(engine, "frontend")["http.web"]["identifier"]


def open_rule(engine, owner_tag, name="open-all", index=0):
    """An ACL for every IPv4 source and an accept rule naming it, under the service's frontend, made through the
    Engine's API as another tool would; tagged ``owner_tag`` when given. The rule's id."""
    parent = frontend_id(engine)
    acl = post(engine, "acl", name=name, parent_type="frontend", frontend=parent, criterion="src", value="0.0.0.0/0",
               index=0)
    rule = post(engine, "rule", name=name, parent_type="frontend", frontend=parent, index=index, condition="if",
                condition_test=name, type="connection", action="accept")
    if owner_tag:
        for ident in (acl, rule):
            es.tag(engine, ident, owner_tag)
    return rule


def warned(run):
    """The run's warnings about an allow-list that does not hold (texts; from ansible-core 2.19 in dicts)."""
    texts = [w["event"]["msg"] if isinstance(w, dict) else w for w in run.result.get("warnings") or []]
    return [w for w in texts if "allow_sources do not hold" in w]


def test_another_owners_accept_rule_is_reported_and_fails_with_the_option_before_any_write(engine, module):
    assert not module("service", SERVICE).failed
    rule = open_rule(engine, "anxlb-svc=other")
    before = everything(engine)

    # default: a warning naming the rule, its index, frontend, load balancer and owner; nothing written
    for check in (True, False):
        run = module("service", SERVICE, check=check, diff=True)
        assert not run.failed and run["changed"] is False and run.writes(engine) == 0, run
        (text,) = warned(run)
        assert ("rule 'open-all' (%s, index 0, owner tag anxlb-svc=other) in frontend 'http.web' on load balancer lb1 "
                "accepts if ACL 'open-all' (0.0.0.0/0), before the service's reject rules" % rule) in text, text
        assert "have whoever made it remove it" in text and "allow_sources_bypass=fail" in text
        (found,) = run["allow_sources_bypasses"]
        assert (found["type"], found["name"], found["id"], found["index"], found["owner"], found["frontend"],
                found["load_balancer"], found["sources"]) == (
            "rule", "open-all", rule, 0, "other", "http.web", "lb1", ["0.0.0.0/0"])
        assert found["refused_sources"] == "0.0.0.0/0 except 10.0.0.0/8, 127.0.0.5/32"
        assert text.endswith("so sources allow_sources refuses can connect: 0.0.0.0/0 except 10.0.0.0/8, 127.0.0.5/32; "
                             "this service never writes another owner's rule or ACL: have whoever made it remove it or "
                             "give it an index above the service's reject rules (allow_sources_bypass=fail stops the run "
                             "before any write instead)"), text
    assert everything(engine) == before

    # fail: refused before any write, in check mode and for real, also with a change to make (a new network)
    grown = dict(SERVICE, allow_sources=SERVICE["allow_sources"] + ["192.0.2.0/24"], allow_sources_bypass="fail")
    for check in (True, False):
        run = module("service", grown, check=check)
        message = run.message()
        assert message.startswith("service web: allow_sources do not hold, so nothing was written "
                                  "(allow_sources_bypass=fail): rule 'open-all' (%s, index 0, owner tag anxlb-svc=other)"
                                  % rule), message
        assert [f["id"] for f in run["allow_sources_bypasses"]] == [rule] and run.writes(engine) == 0
    assert everything(engine) == before

    # warn (the default) does not stop the run: the new network is written, the other owner's rule left alone
    run = module("service", dict(grown, allow_sources_bypass="warn"))
    assert not run.failed and run["changed"] is True and len(warned(run)) == 1, run
    assert "allow-192-0-2-0_24.http.web" in listed(engine, "rule") and listed(engine, "rule")["open-all"]["identifier"] == rule
    assert es.tags(engine, rule) == ["anxlb-svc=other"]


def test_a_rule_at_the_reject_index_is_reported_one_after_it_is_not(engine, module):
    assert not module("service", SERVICE).failed
    at = open_rule(engine, "anxlb-svc=other", name="same-index", index=1)
    open_rule(engine, "anxlb-svc=other", name="after", index=2)
    run = module("service", SERVICE, check=True)
    assert not run.failed and run.writes(engine) == 0, run
    assert [f["id"] for f in run["allow_sources_bypasses"]] == [at]
    (text,) = warned(run)
    assert ("accepts if ACL 'same-index' (0.0.0.0/0), at the same index as the service's reject rules (the Engine does "
            "not document the order among equal indexes: it may come first)") in text, text


def test_an_untagged_hand_made_rule_is_the_services_and_deleted_not_reported(engine, module):
    assert not module("service", SERVICE).failed
    open_rule(engine, None, name="by-hand")
    run = module("service", SERVICE, check=True)
    assert not run.failed and run["allow_sources_bypasses"] == [] and not warned(run), run
    assert sorted((p["action"], p["type"], p["name"]) for p in objects_of(run.result)) == [
        ("delete", "acl", "by-hand"), ("delete", "rule", "by-hand")]
    run = module("service", copy.deepcopy(SERVICE))
    assert not run.failed and run["changed"] is True and not warned(run), run
    assert "by-hand" not in listed(engine, "rule") and "by-hand" not in listed(engine, "acl")
