"""The normal form of DNS names and values (_dns/_values.py): what the user writes and what the Engine reads
back compare equal when they are the same record (docs/engine-api-facts.md, CloudDNS: the Engine's rewrites)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._dns._values import (
    check_type, normal_name, normal_value, normal_values, normal_zone, stored_value)
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure

SAME = [
    ("A", "127.0.0.1", "127.0.0.1"),
    ("AAAA", "FD00:0010::0005", "fd00:10::5"),
    ("AAAA", "fd00:10:0:0:0:0:0:5", "fd00:10::5"),
    ("CNAME", "WWW.Local.Test", "www.local.test."),
    ("CNAME", "www.local.test.", "www.local.test."),
    ("MX", "10   Mail.Example.com", "10 mail.example.com."),
    ("SRV", "1 2 443 Web.Example.com", "1 2 443 web.example.com."),
    ("PTR", "host.example.", "host.example."),
    # TXT: one string as written, or the strings of a value made only of quoted strings, joined
    ("TXT", "hello world", '"hello world"'),
    ("TXT", '"hello world"', '"hello world"'),
    ("TXT", '"hello " "world"', '"hello world"'),
    ("TXT", 'say "hi"', '"say \\"hi\\""'),
    ("TXT", '"say \\"hi\\""', '"say \\"hi\\""'),
    ("TXT", "back\\slash", '"back\\\\slash"'),
    ("TXT", '"a" b', '"\\"a\\" b"'),   # not only quoted strings: one string, quotes included
    ("TXT", "", '""'),
]


@pytest.mark.parametrize("rtype,written,normal", SAME)
def test_written_forms_normalise_to_the_stored_form(rtype, written, normal):
    assert normal_value(rtype, written) == normal
    # the stored form is a fixed point: read back, it compares equal
    assert normal_value(rtype, normal) == normal


def test_a_long_txt_is_split_into_strings_of_255_bytes_like_the_engine_stores_it():
    long = "x" * 300
    assert normal_value("TXT", long) == '"%s" "%s"' % ("x" * 255, "x" * 45)
    assert normal_value("TXT", '"%s" "%s"' % ("x" * 100, "x" * 200)) == normal_value("TXT", long)


BAD_VALUES = [("A", "1.2.3.256"), ("A", "127.0.0.01"), ("A", "fd00::1"), ("AAAA", "1.2.3.4"), ("MX", "mail.example.com"),
              ("SRV", "1 2 web"), ("CNAME", "a b"), ("TXT", "two\nlines")]


@pytest.mark.parametrize("rtype,value", BAD_VALUES)
def test_a_bad_value_fails_naming_the_option_and_the_value(rtype, value):
    with pytest.raises(Failure) as caught:
        normal_values(rtype, ["127.0.0.1" if rtype == "A" else "ok.example." if rtype == "CNAME" else "x", value]
                      if rtype in ("A", "CNAME") else [value])
    assert "values[" in caught.value.msg and repr(value) in caught.value.msg


def test_duplicates_count_once_in_the_order_given():
    assert normal_values("AAAA", ["fd00::1", "FD00:0::1", "fd00::2"]) == ["fd00::1", "fd00::2"]


def test_a_stored_value_the_parser_refuses_stays_as_stored():
    assert stored_value({"type": "A", "rdata": "not an address"}) == "not an address"


@pytest.mark.parametrize("name,normal", [("www", "www"), ("WWW", "www"), ("@", "@"), ("www.local.test.", "www"),
                                         ("Local.Test.", "@"), ("*.app", "*.app"), ("_dmarc", "_dmarc"), ("a.b-c", "a.b-c")])
def test_names_are_relative_and_lowercase(name, normal):
    assert normal_name(name, "local.test") == normal


@pytest.mark.parametrize("name", ["a b", "", "www.other.test.", "a.*", "-a", "a..b", "x" * 64])
def test_a_bad_name_fails_naming_the_option(name):
    with pytest.raises(Failure) as caught:
        normal_name(name, "local.test")
    assert caught.value.msg.startswith("name")


def test_types_soa_and_ns_belong_to_the_zone():
    assert check_type("aaaa") == "AAAA"
    for rtype in ("SOA", "ns"):
        with pytest.raises(Failure) as caught:
            check_type(rtype)
        assert caught.value.msg.startswith("type %s" % rtype.upper()) and "belong to the zone" in caught.value.msg
    with pytest.raises(Failure, match="type 'CAA' is not a record type"):
        check_type("CAA")


def test_zone_names():
    assert normal_zone("Local.Test.") == "local.test"
    with pytest.raises(Failure, match="^zone"):
        normal_zone("bad zone")
