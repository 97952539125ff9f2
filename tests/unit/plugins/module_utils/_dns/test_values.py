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


@pytest.mark.parametrize("name,relative", [("web.local.test", "web"), ("Local.Test", "@"), ("a.b.local.test", "a.b")])
def test_a_name_ending_with_the_zone_without_its_dot_fails_naming_both_spellings(name, relative):
    """Issue 40: taken as relative (as CloudDNS takes it) it would be web.local.test.local.test; nobody means that."""
    with pytest.raises(Failure) as caught:
        normal_name(name, "local.test")
    lower = name.lower()
    assert caught.value.msg.startswith("name %r ends with the zone local.test" % name), caught.value.msg
    assert "(%s)" % relative in caught.value.msg and "(%s.)" % lower in caught.value.msg
    assert normal_name(lower + ".", "local.test") == relative   # the fully qualified spelling the message gives


def test_a_name_over_253_characters_fully_qualified_fails():
    fits = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 50])   # 242 characters, and ".local.test": 253
    assert len(fits + ".local.test") == 253 and normal_name(fits, "local.test") == fits
    with pytest.raises(Failure) as caught:
        normal_name(fits + "d", "local.test")   # one character more (a label of 51)
    assert "is too long" in caught.value.msg and "254 characters" in caught.value.msg and "253" in caught.value.msg


def test_a_non_ascii_txt_is_split_between_characters_and_stays_a_fixed_point():
    value = "ä" * 300 + "€" * 100   # 600 + 300 bytes
    normal = normal_value("TXT", value)
    strings = normal[1:-1].split('" "')
    assert all(len(s.encode("utf-8")) <= 255 for s in strings) and "".join(strings) == value
    assert [len(s.encode("utf-8")) for s in strings] == [254, 254, 254, 138]   # 46 ä and 54 € in the third
    assert normal_value("TXT", normal) == normal


def test_txt_bytes_that_are_not_utf8_fail_naming_the_option():
    with pytest.raises(Failure) as caught:
        normal_values("TXT", ['"\\195"'])
    assert caught.value.msg.startswith("values[0]") and "UTF-8" in caught.value.msg
