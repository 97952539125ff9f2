"""The service's diff (_service/_tree.py ``diff_tree``/``diff``): a tree per load balancer, a group per port,
a line per object, what is common said once; both sides of one shape, so that a diff line names its object."""
import yaml

from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._plan import Action, Plan
from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._tree import UNTAGGED, diff, diff_tree, tree

LBS = [{"id": "L1", "name": "lb1"}, {"id": "L2", "name": "lb2"}]
TAG = "anxlb-svc=web"
DEPLOYED = {"id": "3", "title": "Deployed", "type": 1}


def service(lbs=("L1", "L2"), ports=(("http", 80, 8080), ("https", 443, 8443), ("admin", 9000, 9000)), servers=3,
            tags=(TAG,)):
    """A service's flat objects as observed: per load balancer and port a backend and frontend carrying ``tags``,
    a bind, and ``servers`` servers (no tags: ours by containment)."""
    world = {}
    for lb in lbs:
        for port, number, target in ports:
            name = "%s.web" % port
            be, fe = "%s-be-%s" % (lb, port), "%s-fe-%s" % (lb, port)
            world[be] = dict(kind="backend", id=be, name=name, lb=lb, mode="tcp", health_check='"adv_check": "tcp-check"',
                             tags=list(tags), state=DEPLOYED)
            world[fe] = dict(kind="frontend", id=fe, name=name, lb=lb, mode="tcp", default_backend=be, tags=list(tags),
                             state=DEPLOYED)
            world[fe + "-b"] = dict(kind="bind", id=fe + "-b", name="v4." + name, frontend=fe, address="127.0.10.5",
                                    port=number, ssl=False, tags=[], state=DEPLOYED)
            for n in range(1, servers + 1):
                ident = "%s-s%d" % (be, n)
                world[ident] = dict(kind="server", id=ident, name="n%d.%s" % (n, name), backend=be, ip="127.0.0.%d" % n,
                                    port=target, check="enabled", tags=[], state=DEPLOYED)
    return world


def text(world, lbs=None):
    return diff(world, world, LBS if lbs is None else lbs, "web", TAG, "")["after"]


def test_a_port_is_a_group_of_lines_one_per_object():
    side = diff_tree(service(), LBS, "web")
    assert list(side) == ["lb1", "lb2"] and list(side["lb1"]) == ["admin.web", "http.web", "https.web"]
    assert side["lb1"]["http.web"] == {
        "backend": {"mode": "tcp", "health_check": '"adv_check": "tcp-check"', "server_timeout": None},
        "servers": dict(("n%d.http.web" % n, {"ip": "127.0.0.%d" % n, "port": 8080, "check": "enabled"}) for n in (1, 2, 3)),
        "frontend": {"mode": "tcp", "client_timeout": None, "default_backend": "http.web"},
        "binds": {"v4.http.web": {"address": "127.0.10.5", "port": 80, "ssl": False, "ssl_certificate_path": None}}}
    lines = text(service()).splitlines()
    # 3 ports x 3 servers x 2 load balancers: 36 objects, a line each, a line per load balancer, 3 per group
    assert len(lines) == 36 + 2 + 2 * 3 * 3
    assert "    backend: {mode: tcp, health_check: '\"adv_check\": \"tcp-check\"'}" in lines
    assert "      n1.http.web: {ip: 127.0.0.1, port: 8080, check: enabled}" in lines
    assert not [line for line in lines if "load_balancer" in line or "owner" in line or "null" in line]
    assert yaml.safe_load(text(service())) is not None


def test_a_create_diffs_against_empty_load_balancers_of_the_same_shape():
    rendered = diff({}, service(), LBS, "web", TAG, "lb1: 18 to add, 0 to change, 0 to destroy")
    assert rendered["before"] == "lb1: {}\nlb2: {}\n"
    assert yaml.safe_load(rendered["after"]) == yaml.safe_load(text(service()))
    assert rendered["after_header"] == "lb1: 18 to add, 0 to change, 0 to destroy"
    assert "anxlb-svc=web" in rendered["before_header"]


def test_an_unchanged_service_has_equal_sides_whatever_the_order_of_its_objects():
    world = service()
    backwards = dict(reversed(list(world.items())))
    rendered = diff(world, backwards, LBS, "web", TAG, "")
    assert rendered["before"] == rendered["after"]


def test_an_adopted_object_shows_it_had_no_owner_tag_and_so_do_its_children():
    before = service(lbs=("L1",), ports=(("http", 80, 8080),), servers=1, tags=())
    after = service(lbs=("L1",), ports=(("http", 80, 8080),), servers=1)
    old, new = diff_tree(before, LBS[:1], "web")["lb1"]["http.web"], diff_tree(after, LBS[:1], "web")["lb1"]["http.web"]
    assert old["backend"]["owner"] == old["servers"]["n1.http.web"]["owner"] == UNTAGGED
    assert "owner" not in new["backend"] and "owner" not in new["servers"]["n1.http.web"]


def test_another_owner_and_a_redeploy_and_an_error_are_shown():
    world = service(lbs=("L1",), ports=(("http", 80, 8080),), servers=1)
    world["L1-fe-http"]["tags"] = [TAG, "anxlb-svc=shop"]
    world["L1-be-http"]["planned"] = "redeploy"
    world["L1-be-http-s1"]["state"] = {"id": "4", "title": "DeploymentError", "type": 2}
    group = diff_tree(world, LBS[:1], "web")["lb1"]["http.web"]
    assert group["frontend"]["owner"] == ["shop", "web"]
    assert group["backend"]["deployment"] == "redeploy requested"
    assert group["servers"]["n1.http.web"]["deployment"] == "DeploymentError"


def test_a_load_balancer_no_longer_named_is_emptied_on_the_after_side():
    world = service(lbs=("L1", "L2"), ports=(("http", 80, 8080),), servers=1)
    kept = dict((i, o) for i, o in world.items() if not i.startswith("L2"))
    rendered = diff(world, kept, LBS, "web", TAG, "")
    assert yaml.safe_load(rendered["after"])["lb2"] == {}
    assert list(yaml.safe_load(rendered["before"])["lb2"]) == ["http.web"]


def test_two_objects_of_one_name_are_both_shown_and_a_child_without_its_parent_too():
    world = service(lbs=("L1",), ports=(("http", 80, 8080),), servers=1)
    world["dup"] = dict(world["L1-be-http"], id="dup")
    world["lost"] = dict(world["L1-fe-http-b"], id="lost", frontend="gone", tags=[TAG], lb="L1")
    side = diff_tree(world, LBS[:1], "web")["lb1"]
    assert sorted(side) == ["(no parent)", "http.web", "http.web #2"]
    assert side["(no parent)"]["binds"]["v4.http.web"]["frontend"] == "gone"


def test_the_result_objects_keep_their_shape():
    """``objects`` (``tree``) is the registered result: whole nodes with identifiers, unchanged by the diff's form."""
    node = tree(service(lbs=("L1",), ports=(("http", 80, 8080),), servers=1), LBS[:1], with_ids=True)["lb1"]["backends"][0]
    assert node["id"] == "L1-be-http" and node["owner"] == "web" and node["load_balancer"] == "lb1"
    assert node["servers"][0]["owner"] == "web" and node["state"] == "Deployed"


def test_the_summary_of_a_real_run_says_what_was_done():
    plan = Plan([Action("create", "backend", {"id": "x", "name": "http.web"}, lb=LBS[0]),
                 Action("delete", "server", {"id": "y", "name": "n1.http.web"}, lb=LBS[1])])
    assert plan.summary(LBS) == "lb1: 1 to add, 0 to change, 0 to destroy; lb2: 0 to add, 0 to change, 1 to destroy"
    assert plan.summary(LBS, done=True) == "lb1: 1 added, 0 changed, 0 destroyed; lb2: 0 added, 0 changed, 1 destroyed"


# ---- the maintenance switch ------------------------------------------------------------------------------------
def test_the_summary_says_what_is_disabled_and_enabled_beside_the_counts_it_is_part_of():
    """An update that turns a frontend off is one of the changes, and the line says so after that count; turning one
    on again too; a backend switched through the backend module by its noun; an object created off after the adds."""
    def update(kind, name, before, after):
        return Action("update", kind, {"id": name, "name": name}, {"enabled": (before, after)}, lb=LBS[0])
    plan = Plan([update("frontend", "http.web", True, False), update("frontend", "https.web", True, False),
                 update("frontend", "admin.web", False, True), update("backend", "http.web", True, False),
                 Action("update", "frontend", {"id": "m", "name": "m"}, {"mode": ("tcp", "http")}, lb=LBS[0]),
                 Action("create", "frontend", {"id": "n", "name": "new"}, {"enabled": (None, False)}, lb=LBS[1]),
                 Action("create", "frontend", {"id": "o", "name": "on"}, {"enabled": (None, True)}, lb=LBS[1])])
    assert plan.summary(LBS) == ("lb1: 0 to add, 5 to change (1 backend to disable, 2 frontends to disable, 1 frontend "
                                 "to enable), 0 to destroy; lb2: 2 to add (1 frontend disabled), 0 to change, 0 to destroy")
    assert plan.summary(LBS, done=True) == (
        "lb1: 0 added, 5 changed (1 backend disabled, 2 frontends disabled, 1 frontend enabled), 0 destroyed; "
        "lb2: 2 added (1 frontend disabled), 0 changed, 0 destroyed")
    unswitched = Plan([update("frontend", "http.web", False, False), update("bind", "v4", None, False)])
    assert unswitched.summary(LBS[:1]) == "lb1: 0 to add, 2 to change, 0 to destroy"   # no switch turned, none said


def test_a_disabled_frontend_shows_enabled_false_in_the_diff_and_its_binds_listen_nowhere():
    """The diff shows the switch only when it is off (every object is on unless it says so), ``objects`` always;
    ``status`` leaves out the ports of a disabled frontend, whose binds HAProxy does not listen on."""
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._tree import status
    world = service(lbs=("L1",), ports=(("http", 80, 8080), ("https", 443, 8443)), servers=1)
    for obj in world.values():
        if obj["kind"] in ("frontend", "backend"):
            obj["enabled"] = True
    world["L1-fe-https"]["enabled"] = False
    side = diff_tree(world, LBS[:1], "web")["lb1"]
    assert side["https.web"]["frontend"]["enabled"] is False and "enabled" not in side["http.web"]["frontend"]
    assert "enabled" not in side["https.web"]["backend"]
    assert "  frontend: {mode: tcp, enabled: false, default_backend: https.web}\n" in text(world, LBS[:1])
    nodes = tree(world, LBS[:1], with_ids=True)["lb1"]["frontends"]
    assert [(n["name"], n["enabled"]) for n in nodes] == [("http.web", True), ("https.web", False)]
    assert status(world, LBS[:1]) == {"load_balancers": {"lb1": {"127.0.10.5": [80]}}, "all": {"127.0.10.5": [80]}}
