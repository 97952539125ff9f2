"""Maintenance of a service (no I/O): ``enabled`` of the service and of its ports decides its frontends' switch and
nothing else; a no-op stays a no-op; the declaration hash of a service that takes nothing out of service is what it
was before switches existed."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import build
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._marker import declaration_hash

from .test_plan import SERVICE, World, ops, plan


def ports(*enabled):
    """SERVICE's two ports with ``enabled`` per port (None: left out)."""
    return [dict(port, **({} if on is None else {"enabled": on})) for port, on in zip(SERVICE["ports"], enabled)]


def switches(desired):
    return dict((port, fields["enabled"]) for port, fields in desired.by_kind["frontend"].items())


def test_a_port_follows_the_service_unless_it_says_otherwise():
    assert switches(build(SERVICE)) == {"http": True, "https": True}
    assert switches(build(dict(SERVICE, ports=ports(None, False)))) == {"http": True, "https": False}
    assert switches(build(dict(SERVICE, enabled=False))) == {"http": False, "https": False}
    assert switches(build(dict(SERVICE, enabled=False, ports=ports(True, None)))) == {"http": True, "https": False}
    assert all("enabled" not in b for b in build(dict(SERVICE, enabled=False)).by_kind["backend"].values())


@pytest.mark.parametrize("where, value, option", [
    ("service", "maybe", "enabled"), ("service", 0, "enabled"), ("port", "no", "ports[1].enabled")])
def test_enabled_that_is_no_bool_is_refused_naming_the_option(where, value, option):
    service = dict(SERVICE, enabled=value) if where == "service" else dict(SERVICE, ports=ports(None, value))
    with pytest.raises(Failure, match=r"^%s must be true or false, got %r$" % (option.replace("[", r"\[").replace("]", r"\]"), value)):
        build(service)


def test_taking_a_port_out_is_one_update_of_its_frontend_and_putting_it_back_another():
    world = World()
    out = plan(dict(SERVICE, ports=ports(None, False)), world.observed())
    assert ops(out) == [("update", "frontend", "https.web")]
    (action,) = out.actions
    assert action.changes == {"enabled": (True, False)} and action.kind.switched(action) == "off"
    world.frontends[1]["enabled"] = False   # as the Engine holds it after that run
    assert plan(dict(SERVICE, ports=ports(None, False)), world.observed()).actions == []   # the rerun: nothing
    (back,) = plan(SERVICE, world.observed()).actions
    assert (back.op, back.obj["name"], back.changes) == ("update", "https.web", {"enabled": (False, True)})


def test_a_disabled_backend_is_not_the_services_to_switch():
    """Only the frontends' switch is declared: a backend disabled through the backend module stays so, and a port the
    service disables writes no backend."""
    world = World()
    for backend in world.backends:
        backend["enabled"] = False
    assert plan(SERVICE, world.observed()).actions == []
    assert ops(plan(dict(SERVICE, enabled=False), world.observed())) == [
        ("update", "frontend", "http.web"), ("update", "frontend", "https.web")]


def test_a_new_port_that_starts_disabled_is_created_so_and_its_backend_on():
    service = dict(SERVICE, ports=ports(None, False))
    world = World()
    world.backends, world.frontends = world.backends[:1], world.frontends[:1]   # the https port is new
    world.binds, world.servers = world.binds[:1], world.servers[:1]
    out = plan(service, world.observed())
    made = dict((a.kind.name, a) for a in out.actions if a.kind.name in ("backend", "frontend"))
    assert made["frontend"].obj["enabled"] is False and made["frontend"].kind.switched(made["frontend"]) == "off"
    assert made["backend"].obj["enabled"] is True and made["backend"].kind.switched(made["backend"]) is None


def test_the_hash_covers_a_switch_only_when_it_is_off():
    """A service that disables nothing hashes as it did before ``enabled`` existed (its markers stay valid across the
    upgrade); one that disables a port hashes otherwise."""
    plain = build(SERVICE).as_data()
    assert all("enabled" not in f for f in plain["frontends"])
    assert declaration_hash(build(dict(SERVICE, enabled=True)).as_data()) == declaration_hash(plain)
    off = build(dict(SERVICE, ports=ports(None, False))).as_data()
    assert [f.get("enabled") for f in off["frontends"]] == [None, False]
    assert declaration_hash(off) != declaration_hash(plain)
