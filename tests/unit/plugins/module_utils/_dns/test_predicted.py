"""Check mode across tasks for DNS records (_dns/_predicted.py): a check-mode dns_record run records its changeset, and
a later run (dns_record, or a service's names) reads the zone with it replayed, through the real run code on top."""
import json

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._clouddns import CloudDNS, zone_path
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._predicted import DnsOverlay, replayed
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._request import DnsRecordRequest
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._run import run_dns_record
from ansible_collections.anxcloud.lbaas.plugins.module_utils._engine._errors import NotFoundError
from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._predictions import PredictedEngine, Predictions

URL = "http://127.0.0.1:8080"
ZONE = "local.test"


class ZoneClient:
    """CloudDNS records as the Engine lists them (a plain array, filters compared with the stored forms); every
    request is kept, and anything but a GET is a write."""

    def __init__(self, records=()):
        self.zones = {ZONE: [dict(r) for r in records], "other.test": []}
        self.calls = []

    def request(self, method, path, params=None, **_kw):
        self.calls.append((method, path, dict(params or {})))
        if method != "GET":
            return []
        records = path.endswith("/records")
        zone = path.split("/")[-2 if records else -1]
        if zone not in self.zones:
            raise NotFoundError("no zone", status=404, method=method, path=path)
        if not records:   # the zone: live, its current revision's records
            return dict(name=zone, is_editable=True, deployment_level=100, current_revision="r1",
                        revisions=[dict(identifier="r1", serial=1, state="active", records=list(self.zones[zone]))])
        return [r for r in self.zones[zone] if all(r[f] == (params or {}).get(k, r[f])
                                                   for k, f in (("name", "name"), ("type", "type"), ("data", "rdata")))]

    def writes(self):
        return [c for c in self.calls if c[0] != "GET"]


def record(name, rtype, rdata, ttl=None, comment=None):
    return dict(identifier="r-%s-%s-%s" % (name, rtype, rdata), name=name, type=rtype, rdata=rdata, ttl=ttl,
                comment=comment, region="default", immutable=False)


def view(client, records=None):
    return PredictedEngine(client, Predictions(records or [], URL, [DnsOverlay]))


def next_task(previous):
    """The predictions as the action plugin carries them to the next task: JSON and back."""
    return view(previous._client, json.loads(json.dumps(previous.predictions.dump())))


def dns_record(client, state="present", values=None, name="www", rtype="A", ttl=None, owner=None):
    """One dns_record task in check mode on ``client`` (the predicting view): its result."""
    request = DnsRecordRequest(zone=ZONE, name=name, type=rtype, values=values, ttl=ttl, owner=owner, state=state)
    return run_dns_record(client, request, check_mode=True, diff=True)


def test_a_predicted_create_is_seen_by_the_next_task_which_has_nothing_to_do():
    engine = ZoneClient()
    first = view(engine)
    assert dns_record(first, values=["127.0.0.1", "127.0.0.2"], ttl=300)["changed"]
    second = next_task(first)
    again = dns_record(second, values=["127.0.0.2", "127.0.0.1"], ttl=300)
    assert not again["changed"] and again["plan"] == []
    assert again["rrset"]["values"] == ["127.0.0.1", "127.0.0.2"]
    assert [r["ttl"] for r in again["rrset"]["records"]] == [300, 300]
    assert engine.writes() == []


def test_a_predicted_delete_reads_as_gone():
    engine = ZoneClient([record("www", "A", "127.0.0.1", 300), record("www", "AAAA", "::1", 300)])
    first = view(engine)
    assert dns_record(first, state="absent")["changed"]
    second = next_task(first)
    assert CloudDNS(second).records(ZONE, name="www", rtype="A") == []
    assert [r["rdata"] for r in CloudDNS(second).records(ZONE, name="www")] == ["::1"]   # the other type stays
    assert not dns_record(second, state="absent")["changed"]
    created = dns_record(second, values=["127.0.0.1"])
    assert created["changed"] and created["plan"][0]["action"] == "create"
    assert engine.writes() == []


def test_a_ttl_change_reads_back_as_one_record_per_value():
    engine = ZoneClient([record("www", "A", "127.0.0.1", 300)])
    first = view(engine)
    changed = dns_record(first, values=["127.0.0.1"], ttl=60)
    assert changed["changed"] and changed["plan"][0]["action"] == "update"
    listed = CloudDNS(next_task(first)).records(ZONE, name="www", rtype="A")
    assert [(r["rdata"], r["ttl"]) for r in listed] == [("127.0.0.1", 60)]
    assert not dns_record(next_task(first), values=["127.0.0.1"], ttl=60)["changed"]


def test_txt_values_are_compared_in_normal_form_across_tasks():
    engine = ZoneClient()
    first = view(engine)
    assert dns_record(first, name="@", rtype="TXT", values=['v=spf1 "quoted" -all'])["changed"]
    assert not dns_record(next_task(first), name="@", rtype="TXT", values=['v=spf1 "quoted" -all'])["changed"]


def test_changesets_replay_in_task_order_and_stay_in_their_zone():
    engine = ZoneClient([record("www", "A", "127.0.0.1", 300)])
    first = view(engine)
    dns_record(first, values=["127.0.0.2"])      # 127.0.0.1 replaced
    second = next_task(first)
    dns_record(second, values=["127.0.0.3"])     # 127.0.0.2 (predicted) replaced
    third = next_task(second)
    assert [r["rdata"] for r in CloudDNS(third).records(ZONE, name="www", rtype="A")] == ["127.0.0.3"]
    assert CloudDNS(third).records("other.test") == []
    assert len(third.predictions.dump()[0]["dns"]["changesets"]) == 2


def test_filters_apply_to_predicted_records_and_a_missing_zone_still_fails():
    engine = ZoneClient()
    first = view(engine)
    dns_record(first, values=["127.0.0.1"])
    dns_record(first, name="api", values=["127.0.0.9"])
    later = next_task(first)
    assert [r["name"] for r in CloudDNS(later).records(ZONE)] == ["www", "api"]
    assert [r["rdata"] for r in CloudDNS(later).records(ZONE, name="api", rtype="A")] == ["127.0.0.9"]
    assert CloudDNS(later).records(ZONE, name="api", rtype="AAAA") == []
    with pytest.raises(NotFoundError):
        later.request("GET", zone_path("missing.test", "records"))


def test_a_record_the_changeset_did_not_name_stays():
    """A service removing its names deletes only its own records: another owner's record of the name stays visible."""
    mine = record("shop", "A", "127.0.0.5", 300, "anxlb-svc=shop")
    other = record("shop", "A", "127.0.0.6", 300, "anxlb-svc=other")
    assert replayed([mine, other], [{"zone": ZONE, "create": [], "delete": [
        dict(name="shop", type="A", rdata="127.0.0.5", region="default", ttl=300)]}]) == [other]
    # a delete entry must match the TTL too, as the Engine's does
    assert replayed([mine], [{"zone": ZONE, "create": [], "delete": [
        dict(name="shop", type="A", rdata="127.0.0.5", region="default", ttl=60)]}]) == [mine]


def test_an_owner_s_records_are_predicted_with_their_mark():
    engine = ZoneClient()
    first = view(engine)
    dns_record(first, values=["127.0.0.1"], owner="shop")
    listed = CloudDNS(next_task(first)).records(ZONE, name="www")
    assert [r["comment"] for r in listed] == ["anxlb-svc=shop"]
    # another owner's task sees the predicted record as the first owner's, and refuses to touch it
    with pytest.raises(Exception, match="belongs to owner 'shop'"):
        dns_record(next_task(first), values=["127.0.0.2"], owner="other")


def test_the_view_refuses_the_changeset_write():
    engine = ZoneClient()
    with pytest.raises(RuntimeError, match="check mode must not write"):
        view(engine).request("POST", zone_path(ZONE, "changeset"), body={"create": [], "delete": []})
    assert engine.writes() == []


def test_a_real_run_s_record_is_not_touched_by_other_sections():
    """The DNS part of the record lives beside the others: an LBaaS section from a service passes through."""
    lbaas = {"deleted": [{"id": "e" * 32, "kind": "bind"}], "objects": []}
    first = view(ZoneClient(), [{"api_url": URL, "objects": lbaas}])
    dns_record(first, values=["127.0.0.1"])
    dumped = first.predictions.dump()
    assert dumped[0]["objects"] == lbaas and len(dumped[0]["dns"]["changesets"]) == 1


def service_names(client, state="present", addresses=("127.0.0.5", "fd00::5")):
    """A service's DNS part (_service/_dns_names.py) in check mode on ``client``, run on its own: its result."""
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._reconcile._run import Run
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._declaration import ServiceDeclaration
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._service._dns_names import ServiceNames
    declaration = ServiceDeclaration(name="shop", load_balancers=["lb1"], state=state, addresses=list(addresses),
                                     dns=dict(zone=ZONE, name="shop", ttl=60))
    result = {}
    names = ServiceNames(client, declaration, True, lambda msg: None, result)
    outcome = Run(client, True, [names]).run()
    names.report(outcome)
    result["changed"] = outcome.changed
    return result


def test_a_service_s_predicted_names_are_seen_by_a_later_dns_record_and_the_service_itself():
    engine = ZoneClient()
    first = view(engine)
    assert service_names(first)["changed"]
    assert not service_names(next_task(first))["changed"]
    same = dns_record(next_task(first), name="shop", values=["127.0.0.5"], ttl=60)
    assert not same["changed"] and same["rrset"]["records"][0]["comment"] == "anxlb-svc=shop; dns name of the service"
    second = next_task(first)
    assert service_names(second, state="absent")["changed"]
    assert CloudDNS(next_task(second)).records(ZONE, name="shop") == []
    assert engine.writes() == []


def test_a_hand_made_record_predicted_earlier_is_a_conflict_for_the_service():
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
    first = view(ZoneClient())
    dns_record(first, name="shop", values=["127.0.0.9"])   # no owner: no mark
    with pytest.raises(Failure, match="held by records it does not own"):
        service_names(next_task(first))
