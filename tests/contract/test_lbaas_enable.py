"""Contract: the maintenance switch ``enable`` of frontends and backends (docs/engine-api-facts.md, "Maintenance
switch"; tests/engine/README.md, "Maintenance switch").

What the official clients show:
- read: a JSON bool on Frontend and Backend (go-anxsdk ``v1/lbaas/frontend.go`` and ``backend.go``,
  ``FrontendGetResponse``/``BackendGetResponse``: ``Enable bool `json:"enable"```); no other object has it;
- write: go-anxcloud's legacy ``pkg/lbaas/frontend/definition.go`` ``Definition`` (the body of its POST and its PUT)
  carries ``Enable common.EnableState `json:"enable,omitempty"```, and ``pkg/lbaas/common/common.go`` declares
  ``EnableState = uint`` with ``IsDisabled EnableState = 0``, ``IsEnabled EnableState = 1``: an integer;
- an object created without it carries traffic (every frontend of go-anxcloud's e2e tests and of the cloud
  controller).
Not known: whether a PUT without ``enable`` keeps the value or turns the object on again. The local Engine does the
pessimistic thing by default (``--put-enable reset``) and the other as an option (``keep``).
"""
import pytest

from .helpers import LB1, backend, create, error_of, frontend, get, items, lbaas, ok, request_body

KINDS = ("frontend", "backend")


def make(engine, kind, **fields):
    """A frontend (with its backend) or a backend on lb1, with ``fields``."""
    if kind == "backend":
        return backend(engine, **fields)
    return frontend(engine, backend(engine, name="web-b")["identifier"], **fields)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("sent, read", [(None, True), (1, True), (0, False), (True, True), (False, False)])
def test_a_create_takes_enable_as_0_1_or_a_bool_and_answers_a_bool(engine, kind, sent, read):
    obj = make(engine, kind) if sent is None else make(engine, kind, enable=sent)
    assert obj["enable"] is read
    assert get(engine, kind, obj["identifier"])["enable"] is read


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("sent, read", [(0, False), (False, False), (1, True), (True, True)])
def test_a_put_takes_enable_as_0_1_or_a_bool_and_answers_a_bool(engine, kind, sent, read):
    obj = make(engine, kind, enable=not read)
    put = ok(engine.api("PUT", lbaas(kind, obj["identifier"]), json=request_body(obj, enable=sent, state="0")))
    assert put["enable"] is read and get(engine, kind, obj["identifier"])["enable"] is read


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bad", [2, -1, 1.0, "1", "true", "yes", [], {}])
def test_other_values_of_enable_are_422_naming_it(engine, kind, bad):
    body = {"name": "x", "load_balancer": LB1, "enable": bad}
    err = error_of(engine.api("POST", lbaas(kind), json=body), 422)
    assert err["validation"] == {"enable": "Must be 0, 1, true or false."}
    obj = make(engine, kind, enable=0)
    err = error_of(engine.api("PUT", lbaas(kind, obj["identifier"]), json=request_body(obj, enable=bad)), 422)
    assert set(err["validation"]) == {"enable"}
    assert get(engine, kind, obj["identifier"])["enable"] is False   # a refused PUT changes nothing


@pytest.mark.parametrize("kind", ["bind", "server", "ACL", "rule", "loadbalancer"])
def test_no_other_object_has_enable(engine, kind):
    """Bind, Server, ACL, Rule and LoadBalancer have no such field (go-anxsdk's GET types): an ``enable`` sent is
    ignored as every unknown key is, and none is answered."""
    f = make(engine, "frontend")
    bodies = {"bind": {"name": "b", "port": 80, "frontend": f["identifier"]},
              "server": {"name": "s", "ip": "127.0.0.1", "port": 80, "backend": f["default_backend"]["identifier"]},
              "ACL": {"name": "a", "parent_type": "frontend", "frontend": f["identifier"], "criterion": "src",
                      "value": "10.0.0.0/8", "index": 0},
              "loadbalancer": {"name": "lb9"}}
    bodies["rule"] = {"name": "r", "parent_type": "frontend", "frontend": f["identifier"], "index": 0,
                      "condition": "if", "condition_test": "a", "type": "connection", "action": "reject"}
    if kind == "rule":
        create(engine, "ACL", **bodies["ACL"])
    obj = create(engine, kind, enable=0, **bodies[kind])
    assert "enable" not in obj and "enable" not in get(engine, kind, obj["identifier"])


@pytest.mark.parametrize("put", ["replace", "merge"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_put_without_enable_turns_the_object_on_again_by_default_and_keeps_it_with_put_enable_keep(engine, kind, put):
    """The pessimistic reading of what is not known (the default, ``--put-enable reset``): a PUT that leaves ``enable``
    out (go-anxcloud's generic client and the cloud controller PUT frontends without it) turns a disabled object on;
    ``keep`` leaves it off. Either way under ``--put replace`` and ``--put merge``."""
    engine.set_options(put=put)
    obj = make(engine, kind, enable=0)
    without = dict((k, v) for k, v in request_body(obj, state="0").items() if k != "enable")
    assert ok(engine.api("PUT", lbaas(kind, obj["identifier"]), json=without))["enable"] is True
    engine.set_options(put_enable="keep")
    ok(engine.api("PUT", lbaas(kind, obj["identifier"]), json=request_body(obj, enable=0)))
    assert ok(engine.api("PUT", lbaas(kind, obj["identifier"]), json=without))["enable"] is False
    assert ok(engine.api("PUT", lbaas(kind, obj["identifier"]), json=dict(without, enable=None)))["enable"] is False
    assert ok(engine.api("PUT", lbaas(kind, obj["identifier"]), json=dict(without, enable=1)))["enable"] is True


def test_lists_filter_by_enable(engine):
    on, off = make(engine, "backend", name="on"), make(engine, "backend", name="off", enable=False)
    listed = items(ok(engine.api("GET", lbaas("backend"), params={"filters": "enable=false"})))
    assert [i["identifier"] for i in listed] == [off["identifier"]] and on["enable"] is True
