"""ip_address's rdns_name (go-anxcloud PR 504: the Engine keeps it on the IPAM address object): set on a new
address, updated and removed in place, idempotent although the Engine reads it back with a trailing dot;
check mode predicts the real run and writes nothing; left alone when not set."""
from .conftest import side
from .test_ip_address import V4

OMIT = object()


def task(**options):
    args = dict({"pool": ["anxlb-pool=demo"], "owner": "web", "family": "v4"}, **options)
    return {"anxcloud.lbaas.ip_address": dict((k, v) for k, v in args.items() if v is not OMIT)}


def stored(engine, address):
    """The rdns_name the Engine holds for ``address`` (as the Engine answers it) and the object's other texts."""
    resp = engine.api("GET", "/api/ipam/v1/address/filtered.json", params={"prefix": V4, "page": 1, "limit": 1000})
    resp.raise_for_status()
    (summary,) = [a for a in resp.json()["data"]["data"] if a["name"] == address]
    obj = engine.api("GET", "/api/ipam/v1/address.json/" + summary["identifier"]).json()
    return obj["rdns_name"], obj["description_customer"], obj["role_text"]


def converge(ansible, engine, one):
    """check (nothing written) -> real (same plan and diff) -> rerun (no change, nothing written)."""
    engine.reset_requests()
    play = ansible.run([dict(one, check_mode=True, diff=True), dict(one, diff=True), dict(one, diff=True)])
    assert not any(play.failed(i) for i in range(3)), play
    check, real, rerun = play[0], play[1], play[2]
    assert play.writes(engine, 0) == 0
    assert [dict(a, id=None) for a in check["plan"]] == [dict(a, id=None) for a in real["plan"]]
    assert check["diff"] == real["diff"] and check["changed"] == real["changed"]
    assert rerun["changed"] is False and rerun["plan"] == [] and play.writes(engine, 2) == 0
    assert side(rerun, "before") == side(rerun, "after") == side(real, "after")
    return check, real


def test_rdns_name_set_updated_and_removed_in_place(engine, ansible):
    _check, real = converge(ansible, engine, task(rdns_name="shop.example.com"))
    (address,) = real["address_list"]
    assert real["addresses"][0]["rdns_name"] == "shop.example.com"
    assert [a["action"] for a in real["plan"]] == ["allocate"]
    name, description, role = stored(engine, address)
    assert name == "shop.example.com."   # the Engine's FQDN form once processed (no deploy delay here)

    # the same name, nothing to do; also in other case and with the dot
    again = ansible.run([task(rdns_name="Shop.Example.COM."), task()])
    assert again[0]["changed"] is False and again[1]["changed"] is False
    assert "rdns_name" not in again[1]["addresses"][0]   # not asked for: not shown, left alone

    # update in place: same object, same description and role
    ident = real["addresses"][0]["id"]
    check, real = converge(ansible, engine, task(rdns_name="www.example.com"))
    assert real["plan"] == [{"action": "update", "address": address, "prefix": "127.0.10.0/24", "id": ident,
                             "reason": "rdns_name differs"}]
    assert side(check, "before")["rdns_name"] == {address: "shop.example.com"}
    assert side(check, "after")["rdns_name"] == {address: "www.example.com"}
    assert real["addresses"][0]["id"] == ident and real["address_list"] == [address]
    assert stored(engine, address) == ("www.example.com.", description, role)

    # unset
    _check, real = converge(ansible, engine, task(rdns_name=""))
    assert real["addresses"][0]["rdns_name"] == ""
    assert stored(engine, address)[0] == ""
    assert ansible.run(task(rdns_name=""))[0]["changed"] is False


def test_rdns_name_in_check_mode_writes_nothing(engine, ansible):
    real = ansible.run(task())
    (address,) = real[0]["address_list"]
    before = stored(engine, address)
    engine.reset_requests()
    check = ansible.run(task(rdns_name="shop.example.com"), check=True, diff=True)
    assert check[0]["changed"] is True and check.writes(engine, 0) == 0
    assert check[0]["addresses"][0]["rdns_name"] == "shop.example.com"
    assert stored(engine, address) == before
