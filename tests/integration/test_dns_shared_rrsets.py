"""Shared rrsets (issue 41): two owners hold values in one TXT rrset at the apex through dns_record with others: keep;
each one's change and removal leaves the other's values, read back from the Engine and from knot; a ttl the other's
records lack is refused before any write; the default (others: fail) still fails naming the other's record."""
import pytest

from .conftest import ForkedModule
from .dns_harness import ZONE, dns_engine, dns_seed, resolve, stored  # noqa: F401  pylint: disable=unused-import


@pytest.fixture
def dns_module(dns_engine, module_fork_server):
    return ForkedModule(dns_engine, module_fork_server)


def txt(owner, values=None, **args):
    task = dict(zone=ZONE, type="TXT", owner=owner, others="keep", **args)
    if values is not None:
        task["values"] = values
    return task


def apex(engine):
    """(the Engine's records of the apex TXT as (value, owner mark), knot's answer to it)."""
    return ([(r[2], r[4]) for r in stored(engine, "@", "TXT")], resolve(engine, "local.test", "TXT")[1])


def test_two_owners_share_the_apex_txt_and_neither_touches_the_others_values(dns_engine, dns_module):
    mail = dns_module("dns_record", txt("mail", ["v=spf1 include:_spf.example.net -all"]))
    site = dns_module("dns_record", txt("site", ["google-site-verification=abc", "ms=42"]))
    assert mail["changed"] and site["changed"], (mail, site)
    assert apex(dns_engine) == (
        [('"google-site-verification=abc"', "anxlb-svc=site"), ('"ms=42"', "anxlb-svc=site"),
         ('"v=spf1 include:_spf.example.net -all"', "anxlb-svc=mail")],
        ['"google-site-verification=abc"', '"ms=42"', '"v=spf1 include:_spf.example.net -all"'])
    assert site["rrset"]["values"] == sorted(['"google-site-verification=abc"', '"ms=42"',
                                              '"v=spf1 include:_spf.example.net -all"'])
    # a change of mail's value: one changeset deleting and creating mail's records only
    changed = dns_module("dns_record", txt("mail", ["v=spf1 -all"]))
    (sent,) = [e for e in changed.requests(dns_engine) if e["path"].endswith("/changeset")]
    assert [d["rdata"] for d in sent["body"]["delete"]] == ['"v=spf1 include:_spf.example.net -all"']
    assert [c["comment"] for c in sent["body"]["create"]] == ["anxlb-svc=mail"]
    assert apex(dns_engine)[1] == ['"google-site-verification=abc"', '"ms=42"', '"v=spf1 -all"']
    # site drops one value, then everything: mail's stays, in the Engine and in DNS
    dns_module("dns_record", txt("site", ["ms=42"]))
    assert apex(dns_engine)[1] == ['"ms=42"', '"v=spf1 -all"']
    gone = dns_module("dns_record", txt("site", state="absent"))
    assert gone["changed"] and [a["action"] for a in gone["plan"]] == ["update"]
    assert apex(dns_engine) == ([('"v=spf1 -all"', "anxlb-svc=mail")], ['"v=spf1 -all"'])
    assert dns_module("dns_record", txt("site", state="absent")).writes(dns_engine) == 0
    assert dns_module("dns_record", txt("mail", ["v=spf1 -all"])).writes(dns_engine) == 0


def test_a_value_both_owners_hold_stays_served_when_one_removes_it(dns_engine, dns_module):
    dns_module("dns_record", txt("mail", ["shared=1"]))
    dns_module("dns_record", txt("site", ["shared=1"]))
    assert sorted(apex(dns_engine)[0]) == [('"shared=1"', "anxlb-svc=mail"), ('"shared=1"', "anxlb-svc=site")]
    assert apex(dns_engine)[1] == ['"shared=1"']   # one record in DNS
    dns_module("dns_record", txt("mail", state="absent"))
    assert apex(dns_engine) == ([('"shared=1"', "anxlb-svc=site")], ['"shared=1"'])


def test_a_ttl_the_other_owners_records_lack_is_refused_and_without_ttl_the_rrsets_is_taken(dns_engine, dns_module):
    dns_module("dns_record", txt("mail", ["v=spf1 -all"], ttl=600))
    before = stored(dns_engine)
    refused = dns_module("dns_record", txt("site", ["ms=42"], ttl=300))
    assert "ttl 300 differs from the TTL of records this task keeps" in refused.message()
    assert "(ttl 600, owner 'mail')" in refused.message() and refused.writes(dns_engine) == 0
    assert stored(dns_engine) == before
    dns_module("dns_record", txt("site", ["ms=42"]))
    assert resolve(dns_engine, "local.test", "TXT") == ("NOERROR", ['"ms=42"', '"v=spf1 -all"'], 600)
    assert dns_module("dns_record", txt("site", ["ms=42"], ttl=600)).writes(dns_engine) == 0


def test_without_keep_the_other_owners_record_fails_the_task_naming_it(dns_engine, dns_module):
    dns_module("dns_record", txt("mail", ["v=spf1 -all"]))
    failed = dns_module("dns_record", dict(zone=ZONE, type="TXT", values=["ms=42"], owner="site"))
    assert "belongs to owner 'mail'" in failed.message() and failed.writes(dns_engine) == 0
    refused = dns_module("dns_record", dict(zone=ZONE, type="TXT", values=["ms=42"], others="keep"))
    assert "others: keep needs owner" in refused.message() and refused.requests(dns_engine) == []


def test_the_user_guides_shared_record_runs_as_written_beside_another_owners(dns_engine, dns_module):
    """docs/user-guide.md "Records several owners share": the mail team's task, as written, beside a site team's value."""
    import yaml
    from .test_dns_record import guide_block
    (task,) = yaml.safe_load(guide_block("dns-shared"))
    dns_module("dns_record", txt("site", ["google-site-verification=abc"]))
    mail = dns_module("dns_record", task["anxcloud.lbaas.dns_record"])
    assert mail["changed"], mail
    assert apex(dns_engine)[1] == ['"google-site-verification=abc"', '"v=spf1 include:_spf.example.net -all"']
