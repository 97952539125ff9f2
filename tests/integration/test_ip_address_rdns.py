"""ip_address's rdns_name (go-anxcloud PR 504: the Engine keeps it on the IPAM address object;
docs/user-guide.md, IP pools): set on a new address, updated and removed in place, idempotent although
the Engine reads it back with a trailing dot; check mode predicts the real run and writes nothing; left
alone when not set. Each task's own behaviour is run as module processes (``module_tasks``); the prediction
across the tasks of a check-mode play needs the controller, one ansible-playbook run."""

from .conftest import module_task, module_tasks, side
from .test_ip_address import V4, cycle, cycle_tasks, task


def stored(engine, address):
    """The rdns_name the Engine holds for ``address`` (as the Engine answers it) and the object's other texts."""
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": V4, "page": 1, "limit": 1000})
    resp.raise_for_status()
    (summary,) = [a for a in resp.json()["data"]["data"] if a["name"] == address]
    obj = engine.api("GET", "/api/ipam/v1/address.json/" + summary["identifier"]).json()
    return obj["rdns_name"], obj["description_customer"], obj["role_text"]


def test_rdns_name_set_updated_and_removed_in_place(engine, module):
    # created with the name; the same name in other case and with the dot is no change; unset: left alone
    play = module_tasks(module, cycle_tasks({"rdns_name": "shop.example.com"})
                        + [task(rdns_name="Shop.Example.COM."), task()])
    _check, real = cycle(play, engine)
    (address,) = real["address_list"]
    assert real["addresses"][0]["rdns_name"] == "shop.example.com"
    assert [a["action"] for a in real["plan"]] == ["allocate"]
    assert side(real, "before")["rdns_name"] == {} and side(real, "after")["rdns_name"] == {address: "shop.example.com"}
    assert play[4]["changed"] is False and play[5]["changed"] is False and play.writes(engine, 4) == 0
    assert "rdns_name" not in play[5]["addresses"][0]   # not asked for: not shown, left alone
    name, description, role = stored(engine, address)
    assert name == "shop.example.com."   # the Engine's FQDN form once processed (no deploy delay here)

    # update in place: same object, same description and role
    ident = real["addresses"][0]["id"]
    check, real = cycle(module_tasks(module, cycle_tasks({"rdns_name": "www.example.com"})), engine)
    assert real["plan"] == [{"action": "update", "address": address, "prefix": "127.0.10.0/24", "id": ident,
                             "reason": "rdns_name differs"}]
    assert side(check, "before")["rdns_name"] == {address: "shop.example.com"}
    assert side(check, "after")["rdns_name"] == {address: "www.example.com"}
    assert real["addresses"][0]["id"] == ident and real["address_list"] == [address]
    assert stored(engine, address) == ("www.example.com.", description, role)

    # removed
    _check, real = cycle(module_tasks(module, cycle_tasks({"rdns_name": ""})), engine)
    assert [a["action"] for a in real["plan"]] == ["update"] and real["addresses"][0]["rdns_name"] == ""
    assert stored(engine, address) == ("", description, role)


def test_rdns_name_in_check_mode_writes_nothing_and_absent_ignores_it(engine, module):
    real = module_task(module, task(rdns_name="old.example.com"))
    (address,) = real["address_list"]
    before = stored(engine, address)
    check = module_task(module, task(rdns_name="shop.example.com"), check=True, diff=True)
    assert check["changed"] is True and check.writes(engine) == 0
    assert [a["action"] for a in check["plan"]] == ["update"]
    assert check["addresses"][0]["rdns_name"] == "shop.example.com"
    assert side(check, "after")["rdns_name"] == {address: "shop.example.com"}
    assert stored(engine, address) == before   # read back: nothing written

    gone = module_task(module, task(state="absent", rdns_name="shop.example.com"), diff=True)
    assert [a["action"] for a in gone["plan"]] == ["release"] and gone["address_list"] == []
    assert "rdns_name" not in side(gone, "before")   # ignored with state=absent


def test_rdns_name_predicted_across_tasks_of_a_check_mode_play(engine, ansible, module):
    """A later task of a --check play sees the name an earlier one would set (docs/user-guide.md, check mode):
    for a new address and for one changed in place, the same task again is no change. One ansible-playbook run of
    two check-mode plays; between them a module process allocates the address the second play changes."""
    check = {"check_mode": True}
    plays = ansible.session([([task(owner="api", rdns_name="api.example.com"),
                               task(owner="api", rdns_name="api.example.com")], check),
                             ([task(rdns_name="www.example.com"), task(rdns_name="WWW.example.com."), task(rdns_name="")],
                              check)])
    fresh = plays.next()
    assert [fresh[0]["plan"][0]["action"], fresh[0]["changed"], fresh[1]["changed"], fresh[1]["plan"]] == [
        "allocate", True, False, []]
    assert fresh[1]["addresses"][0]["rdns_name"] == "api.example.com" and fresh.writes(engine, 0) == 0
    assert fresh.writes(engine, 1) == 0

    allocated = module_task(module, task())
    assert not allocated.failed, allocated
    held = allocated["address_list"][0]
    before = stored(engine, held)
    play = plays.next()
    assert [play[i]["changed"] for i in range(3)] == [True, False, True]
    assert [a["action"] for a in play[2]["plan"]] == ["update"] and play[2]["addresses"][0]["rdns_name"] == ""
    assert all(play.writes(engine, i) == 0 for i in range(3)) and stored(engine, held) == before
