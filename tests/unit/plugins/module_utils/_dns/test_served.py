"""wait: served (_dns/_served.py), without a network: the option's forms, what each check takes as served, the wait
until every server answers, a server unreachable at its first query failing at once, and the deadline's message with
each server's last answers."""
import socket

import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import KEEP, DesiredRrset
from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._served import (
    SERVED, Answer, ServedCheck, ServedWait, Server, Unreachable, check_nameservers, check_of, parse_nameserver,
    servers_of, wait_mode)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure


@pytest.mark.parametrize("text,parsed", [
    ("127.0.0.1", ("127.0.0.1", 53)), ("127.0.0.1@5353", ("127.0.0.1", 5353)), ("127.0.0.1:5353", ("127.0.0.1", 5353)),
    ("ns1.example.net", ("ns1.example.net", 53)), ("ns1.example.net:53", ("ns1.example.net", 53)),
    ("::1", ("::1", 53)), ("[::1]", ("::1", 53)), ("[::1]:5353", ("::1", 5353)), ("fd00::1@5353", ("fd00::1", 5353)),
])
def test_a_nameservers_entry_takes_host_at_port_and_host_colon_port(text, parsed):
    assert parse_nameserver(text, "nameservers[0]") == parsed


@pytest.mark.parametrize("text", ["", "host@", "host:0", "127.0.0.1@65536", "[::1", "[::1]5353", "a b", "host@x"])
def test_a_bad_entry_names_the_option(text):
    with pytest.raises(Failure) as failed:
        parse_nameserver(text, "nameservers[2]")
    assert failed.value.msg.startswith("nameservers[2] %r is not a name server" % text)


def test_the_wait_option_and_nameservers_only_with_served():
    assert [wait_mode(v) for v in (True, "yes", "false", "served", "Served")] == [True, True, False, SERVED, SERVED]
    with pytest.raises(Failure, match="wait must be true, false or served"):
        wait_mode("soon")
    with pytest.raises(Failure, match="nameservers is only used with wait: served"):
        check_nameservers(["127.0.0.1"], True)
    assert check_nameservers(["127.0.0.1@5353"], SERVED) == [("127.0.0.1", 5353, "nameservers[0]")]


def test_the_zones_ns_are_resolved_here_and_a_name_that_does_not_resolve_is_named():
    def resolver(host, port, *_a):
        if host == "ns1.example.net":
            return [(socket.AF_INET, socket.SOCK_DGRAM, 17, "", ("192.0.2.1", port)),
                    (socket.AF_INET6, socket.SOCK_DGRAM, 17, "", ("2001:db8::1", port, 0, 0))]
        raise socket.gaierror(-2, "Name or service not known")
    servers = servers_of([], ["ns1.example.net."], resolver)
    assert [(s.label, s.source) for s in servers] == [("192.0.2.1@53", "NS ns1.example.net."),
                                                      ("2001:db8::1@53", "NS ns1.example.net.")]
    with pytest.raises(Failure) as failed:
        servers_of([], ["ns2.example.net."], resolver)
    assert "ns2.example.net (NS ns2.example.net.) does not resolve" in failed.value.msg and "nameservers" in failed.value.msg
    with pytest.raises(Failure, match="the zone has no NS records"):
        servers_of([], [], resolver)


def test_what_a_check_takes_as_served():
    exact = ServedCheck("www.example.com.", "A", ["192.0.2.1", "192.0.2.2"], ttl=300)
    assert exact.satisfied(Answer("NOERROR", ["192.0.2.2", "192.0.2.1"], 300))
    assert not exact.satisfied(Answer("NOERROR", ["192.0.2.1"], 300))
    assert not exact.satisfied(Answer("NOERROR", ["192.0.2.1", "192.0.2.2"], 600))   # the TTL asked for
    assert not exact.satisfied(Answer("NOERROR", ["192.0.2.1", "192.0.2.2"], 300, authoritative=False))
    assert not exact.satisfied(Answer("REFUSED"))
    gone = ServedCheck("old.example.com.", "A", [])
    assert gone.satisfied(Answer("NXDOMAIN")) and gone.satisfied(Answer("NOERROR")) and not gone.satisfied(
        Answer("NOERROR", ["192.0.2.9"], 60))
    shared = ServedCheck("example.com.", "TXT", ['"mine"'], exact=False, gone=['"old"'])
    assert shared.satisfied(Answer("NOERROR", ['"mine"', '"theirs"'], 300))
    assert not shared.satisfied(Answer("NOERROR", ['"mine"', '"old"'], 300))
    assert shared.wanted() == 'at least "mine" and not "old"'


def test_the_check_of_a_planned_rrset():
    whole = DesiredRrset("example.com", "www", "A", ["192.0.2.1"], ttl=60)
    check = check_of(whole, [dict(value="192.0.2.1")], ["192.0.2.7"])
    assert (check.fqdn, check.values, check.exact, check.ttl) == ("www.example.com.", ["192.0.2.1"], True, 60)
    removed = DesiredRrset("example.com", "www", "A", None, present=False)
    assert check_of(removed, [], ["192.0.2.1"]).wanted() == "no A record"
    shared = DesiredRrset("example.com", "@", "TXT", None, present=False, owner="a", others=KEEP)
    check = check_of(shared, [dict(value='"theirs"'), dict(value='"both"')], ['"mine"', '"both"'])
    assert (check.values, check.exact, check.gone) == ([], False, ['"mine"'])   # a value another holds too stays served


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_the_wait_ends_once_every_server_answers_every_check():
    clock = Clock()
    answers = {"a@53": iter([Answer("NOERROR", ["192.0.2.0"], 300), Answer("NOERROR", ["192.0.2.1"], 300)]),
               "b@53": iter([Answer("NOERROR", ["192.0.2.1"], 300)])}

    def ask(server, fqdn, rtype, timeout):
        return next(answers[server.label])
    servers = [Server("a", 53, "nameservers[0]"), Server("b", 53, "nameservers[1]")]
    report = ServedWait(servers, 100, ask=ask, clock=clock, sleep=clock.sleep).wait(
        [ServedCheck("www.example.com.", "A", ["192.0.2.1"])])
    assert [(r["server"], r["queries"], r["waiting"]) for r in report] == [("a@53", 2, None), ("b@53", 1, None)]
    assert report[0]["seconds"] > 0 and report[1]["seconds"] == 0


def test_a_server_that_never_answered_fails_at_once_naming_it():
    def ask(server, fqdn, rtype, timeout):
        raise Unreachable("UDP: timed out; TCP: refused")
    with pytest.raises(Failure) as failed:
        ServedWait([Server("192.0.2.53", 53, "NS ns1.example.com.")], 100, ask=ask, sleep=lambda s: None).wait(
            [ServedCheck("www.example.com.", "A", ["192.0.2.1"])])
    assert "the name server 192.0.2.53@53 (NS ns1.example.com.) does not answer over UDP or TCP" in failed.value.msg
    assert "set wait: true" in failed.value.msg and "nameservers" in failed.value.msg


def test_at_the_deadline_each_servers_last_answer_is_reported():
    clock = Clock()
    calls = []

    def ask(server, fqdn, rtype, timeout):
        calls.append(server.label)
        if server.label == "b@53" and len(calls) > 2:
            raise Unreachable("UDP: timed out; TCP: timed out")   # it answered before: a lapse, waited out
        return Answer("NOERROR", ["192.0.2.0"], 300)
    checks = [ServedCheck("www.example.com.", "A", ["192.0.2.1"])]
    servers = [Server("a", 53, "nameservers[0]"), Server("b", 53, "nameservers[1]")]
    with pytest.raises(Failure) as failed:
        ServedWait(servers, 5, ask=ask, clock=clock, sleep=clock.sleep).wait(checks)
    text = failed.value.msg
    assert text.startswith("wait: served: after ") and "Raise wait_timeout" in text
    assert "a@53 (nameservers[0]): www.example.com. A answered NOERROR 192.0.2.0 (ttl 300), wanted 192.0.2.1" in text
    assert "b@53 (nameservers[1]): www.example.com. A no answer (UDP: timed out; TCP: timed out)" in text
    assert [r["server"] for r in failed.value.details["served"]] == ["a@53", "b@53"]


def test_the_checks_of_a_run_come_from_its_plan_or_else_from_what_it_observed():
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._plan import observed_rrset, plan_rrset
    from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._served import checks_of

    class Outcome:
        def __init__(self, plan, after):
            self.plan, self.after = plan, after
    held = [dict(identifier="1", name="www", type="A", rdata="192.0.2.1", region="default", ttl=None, comment=None,
                 immutable=False)]
    world = observed_rrset("example.com", "www", "A", held)
    changed = DesiredRrset("example.com", "www", "A", ["192.0.2.2"])
    (check,) = checks_of([changed], Outcome(plan_rrset(world, changed), {}))
    assert (check.values, check.exact) == (["192.0.2.2"], True)
    same = DesiredRrset("example.com", "www", "A", ["192.0.2.1"])
    (check,) = checks_of([same], Outcome([], world))
    assert check.values == ["192.0.2.1"]
