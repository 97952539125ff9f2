"""recreate=true moves an object to another parent by deleting it and creating it anew. That delete is blocked
by what blocks state=absent's (children of every kind, objects linking to it): the task fails before any write,
in check mode as for real, with the message state=absent gives; without this the real run created the copy and
then got the Engine's 409 three times, leaving both objects."""

from . import engine_state as es


def absent_and_moved(engine, module, kind, ident):
    """The messages of state=absent and of a move to lb2 (recreate=true, by id), each in check mode and for real,
    after asserting that none of the four runs wrote anything."""
    before = engine.dump()
    engine.reset_requests()
    runs = []
    for args in ({"id": ident, "state": "absent"}, {"id": ident, "load_balancer": "lb2", "recreate": True}):
        runs += [module(kind, args, check=True), module(kind, args)]
    assert [run.writes(engine) for run in runs] == [0, 0, 0, 0]
    assert engine.mutating_requests() == 0 and engine.dump() == before
    return [run.message() for run in runs]


def test_moving_a_frontend_holding_a_bind_acl_and_rule_fails_like_its_delete(engine, module):
    lb = es.lb_id(engine)
    frontend = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb)
    bind = es.create(engine, "bind", name="v4.80.web", frontend=frontend, address="127.0.0.1", port=8080)
    acl = es.create(engine, "ACL", name="office", parent_type="frontend", frontend=frontend, criterion="src",
                    value="10.0.0.0/8", index=0)
    rule = es.create(engine, "rule", name="accept-office", parent_type="frontend", frontend=frontend, index=0,
                     condition="if", condition_test="office", type="connection", action="accept")
    messages = absent_and_moved(engine, module, "frontend", frontend)
    assert set(messages) == {
        "frontend '80.web' (%s) cannot be deleted: bind 'v4.80.web' (%s), ACL 'office' (%s), rule 'accept-office' (%s) "
        "still use it; delete those first" % (frontend, bind, acl, rule)}


def test_moving_a_backend_a_frontend_points_at_fails_like_its_delete(engine, module):
    lb = es.lb_id(engine)
    backend = es.create(engine, "backend", name="80.web", mode="tcp", load_balancer=lb)
    frontend = es.create(engine, "frontend", name="80.web", mode="tcp", load_balancer=lb, default_backend=backend)
    messages = absent_and_moved(engine, module, "backend", backend)
    assert set(messages) == {
        "backend '80.web' (%s) cannot be deleted: frontend '80.web' (%s) still uses it; delete it first"
        % (backend, frontend)}
