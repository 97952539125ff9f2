"""The loadbalancer module (issue 43, item 4), each run a module process against the local Engine: register an
existing HAProxy host (POST {name, ip_address}, as terraform-provider-anxcloud's anxcloud_lbaas_loadbalancer sends
it), rerun (no write), change its address and rename it (a whole PUT without "state", as go-anxcloud's generic
client sends a LoadBalancer), deregistration refused while frontends or backends are on it (naming them, no write,
in check mode too), deregistered once they are gone; one registered outside the collection is deregistered only
with deregister_unowned; bad input fails before any request."""
import pytest

from . import engine_state as es
from .conftest import side

LB = "/api/LBaaS/v1/loadbalancer.json"


def written(run, engine):
    """The mutating requests a module run sent: (method, path, body)."""
    return [(e["method"], e["path"], e["body"]) for e in run.requests(engine) if e["method"] != "GET"]


def unchanged(engine, module, args, check):
    """Runs ``args``, which must fail writing nothing (the Engine's state read back as it was); its message."""
    before = engine.dump()
    run = module("loadbalancer", args, check=check, diff=True)
    assert run.writes(engine) == 0 and engine.dump() == before, run
    return run.message()


def test_register_rerun_readdress_rename_and_deregister_once_the_children_are_gone(engine, module):
    task = {"name": "lb3", "ip_address": "2001:DB8::0:10", "owner": "infra"}
    before = engine.dump()
    check = module("loadbalancer", task, check=True, diff=True)
    assert check["changed"] is True and check.writes(engine) == 0 and engine.dump() == before, check
    assert side(check, "before") == {}
    assert side(check, "after") == {"name": "lb3", "ip_address": "2001:db8::10", "owner": "infra"}
    assert [(a["action"], a["type"], a["name"]) for a in check["plan"]] == [("create", "loadbalancer", "lb3")]

    real = module("loadbalancer", task, diff=True)
    assert real["changed"] is True and real["plan"] == check["plan"] and real["diff"] == check["diff"], real
    lb = real["loadbalancer"]
    assert (lb["name"], lb["ip_address"], lb["owner"], lb["state"]) == ("lb3", "2001:db8::10", "infra", "Deployed")
    # registered as the Engine's clients register one (the address canonical), tagged as the other objects are
    posts = written(real, engine)
    assert posts[0] == ("POST", LB, {"name": "lb3", "ip_address": "2001:db8::10"})
    assert es.tags(engine, lb["id"]) == ["anxlb-svc=infra"]

    for args in (task, dict(task, ip_address="2001:db8::10")):   # any spelling of the same address: no change
        rerun = module("loadbalancer", args, diff=True)
        assert rerun["changed"] is False and rerun["plan"] == [] and rerun.writes(engine) == 0, rerun

    moved = module("loadbalancer", dict(task, ip_address="192.0.2.10"), diff=True)
    assert moved["changed"] is True and moved["plan"][0]["changes"] == {
        "ip_address": {"before": "2001:db8::10", "after": "192.0.2.10"}}
    renamed = module("loadbalancer", {"id": lb["id"], "name": "lb3-ams", "owner": "infra"}, diff=True)
    assert renamed["changed"] is True and renamed["loadbalancer"]["name"] == "lb3-ams", renamed
    (put,) = written(renamed, engine)
    # the whole object, as go-anxcloud's generic client PUTs a LoadBalancer: no "state" (Go's encoder drops the key
    # two embedded fields claim), no read-only keys
    assert put == ("PUT", LB + "/" + lb["id"], {"identifier": lb["id"], "name": "lb3-ams", "ip_address": "192.0.2.10"})
    assert es.by_name(engine, "loadbalancer")["lb3-ams"]["ip_address"] == "192.0.2.10"
    assert module("loadbalancer", {"id": lb["id"], "name": "lb3-ams"}).writes(engine) == 0

    backend = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb["id"])
    frontend = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb["id"], default_backend=backend)
    gone = {"name": "lb3-ams", "state": "absent", "owner": "infra"}
    for check in (True, False):
        assert unchanged(engine, module, gone, check) == (
            "load balancer 'lb3-ams' (%s) cannot be deleted: backend '80.web' (%s), frontend '80.web' (%s) still use "
            "it; delete those first" % (lb["id"], backend, frontend))
    for kind, ident in (("frontend", frontend), ("backend", backend)):
        engine.api("DELETE", "/api/LBaaS/v1/%s.json/%s" % (kind, ident)).raise_for_status()

    check = module("loadbalancer", gone, check=True, diff=True)
    assert check["changed"] is True and check.writes(engine) == 0 and side(check, "after") == {}, check
    real = module("loadbalancer", gone, diff=True)
    assert real["changed"] is True and real["loadbalancer"] == {}, real
    assert written(real, engine) == [("DELETE", LB + "/" + lb["id"], None)]
    assert "lb3-ams" not in es.by_name(engine, "loadbalancer")
    again = module("loadbalancer", gone)
    assert again["changed"] is False and again.writes(engine) == 0, again


def test_a_load_balancer_registered_outside_the_collection_is_deregistered_only_when_the_task_says_so(engine, module):
    lb = es.create(engine, "loadbalancer", name="by-hand", ip_address="192.0.2.20")
    for args in ({"name": "by-hand", "state": "absent"}, {"name": "by-hand", "state": "absent", "owner": "infra"},
                 {"id": lb, "state": "absent", "owner": "infra"}):
        for check in (True, False):
            message = unchanged(engine, module, args, check)
            assert message.startswith("load balancer 'by-hand' (%s) " % lb) and "refusing to delete (deregister) it" in message
            assert message.endswith("Set deregister_unowned: true to deregister it anyway"), message
    assert "carries no owner tag" in unchanged(engine, module, {"name": "by-hand", "state": "absent"}, False)

    # another owner's tag is never overridden by the option
    es.tag(engine, lb, "anxlb-svc=team-b")
    message = unchanged(engine, module, {"name": "by-hand", "state": "absent", "owner": "infra",
                                         "deregister_unowned": True}, False)
    assert "is owned by 'team-b', not 'infra'" in message, message
    es.untag(engine, lb, "anxlb-svc=team-b")

    explicit = {"name": "by-hand", "state": "absent", "deregister_unowned": True}
    before = engine.dump()
    check = module("loadbalancer", explicit, check=True)
    assert check["changed"] is True and check.writes(engine) == 0 and engine.dump() == before, check
    real = module("loadbalancer", explicit)
    assert real["changed"] is True and "by-hand" not in es.by_name(engine, "loadbalancer"), real


def test_a_name_two_load_balancers_carry_fails_naming_both_ids_and_the_id_picks_one(engine, module):
    first = es.create(engine, "loadbalancer", name="twin", ip_address="192.0.2.30")
    second = es.create(engine, "loadbalancer", name="twin", ip_address="192.0.2.31")
    message = unchanged(engine, module, {"name": "twin", "ip_address": "192.0.2.30"}, False)
    assert message == "name: 2 load balancers named 'twin' (ids %s); give the id to pick one" % ", ".join(
        sorted((first, second)))
    picked = module("loadbalancer", {"id": second, "ip_address": "192.0.2.32"})
    assert picked["changed"] is True and picked["loadbalancer"]["id"] == second, picked
    assert sorted(o["ip_address"] for o in es.objects(engine, "loadbalancer") if o["name"] == "twin") == [
        "192.0.2.30", "192.0.2.32"]


def test_registering_needs_an_address_and_an_unknown_id_is_named(engine, module):
    assert unchanged(engine, module, {"name": "lb3"}, True) == "ip_address is required to create load balancer 'lb3'"
    assert unchanged(engine, module, {"id": "f" * 32, "ip_address": "192.0.2.1"}, False) == (
        "id: no load balancer with id %s exists" % ("f" * 32))


@pytest.mark.parametrize("address, expected", [
    ("lb3.example.com", "ip_address: 'lb3.example.com' is not a valid IP address"),
    ("192.0.2.300", "ip_address: '192.0.2.300' is not a valid IP address"),
    ("", "ip_address must not be empty"),
    ("0.0.0.0", "ip_address: '0.0.0.0' is the unspecified address"),
    ("::ffff:192.0.2.1", "ip_address: '::ffff:192.0.2.1' is an IPv4-mapped IPv6 address"),
])
def test_an_ip_address_that_is_no_address_fails_before_any_request(engine, module, address, expected):
    engine.reset_requests()
    run = module("loadbalancer", {"name": "lb3", "ip_address": address, "owner": "infra"}, check=True)
    assert run.message().startswith(expected), run
    assert engine.requests()["total"] == 0


def test_a_deregistration_the_engine_answers_404_is_done(engine, module):
    """terraform-provider-anxcloud's delete ignores a 404 (api.IgnoreNotFound): gone is what was asked for."""
    lb = es.create(engine, "loadbalancer", name="lb3", ip_address="192.0.2.40")
    es.tag(engine, lb, "anxlb-svc=infra")
    engine.set_faults({"script": [{"method": "DELETE", "path": LB + "/" + lb, "commit_then": 404}]})
    run = module("loadbalancer", {"name": "lb3", "state": "absent", "owner": "infra"})
    assert run["changed"] is True and "lb3" not in es.by_name(engine, "loadbalancer"), run
