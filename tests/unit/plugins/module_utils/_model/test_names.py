"""The documented character sets of owner names, tag prefixes and lease holders (_names.py)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._names import (
    check_holder, check_name_part, check_owner, check_tag_prefix, is_tag_name)


@pytest.mark.parametrize("good", ["web", "w", "shop-2", "db_main", "k8s.default.svc", "A1", "x" * 63])
def test_good_owners_pass_unchanged(good):
    assert check_owner(good) == good


@pytest.mark.parametrize("bad", ["", "a/b", "a?b", "a#b", "a%2F", "a b", "-web", "web-", ".web", "web.", "x" * 64,
                                 "wéb", "a=b", "a,b", None])
def test_bad_owners_fail_naming_the_option(bad):
    with pytest.raises(Failure) as err:
        check_owner(bad, "name")
    assert err.value.msg.startswith("name must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a "
                                    "letter or digit, got ")
    assert err.value.details == {"option": "name"}


@pytest.mark.parametrize("value, ok", [("web", True), ("db_main-2", True), ("x" * 63, True), ("web.prod", False),
                                       ("a/b", False), ("-web", False), ("x" * 64, False), ("", False)])
def test_service_port_and_server_names_have_one_rule_and_one_wording(value, ok):
    """A service name is a part of object names (no '.'), and also an owner: the stricter rule, one message."""
    if ok:
        assert check_name_part(value) == value == check_owner(value)
        return
    with pytest.raises(Failure) as err:
        check_name_part(value, "servers[0].name")
    assert err.value.msg == ("servers[0].name must be 1-63 letters, digits, '-' or '_', starting and ending with a "
                             "letter or digit (no '.': it separates the parts of object names), got %r" % value)


@pytest.mark.parametrize("good", ["anxlb", "a", "team-1", "p" * 16])
def test_good_tag_prefixes(good):
    assert check_tag_prefix(good) == good


@pytest.mark.parametrize("bad", ["", "Anxlb", "1abc", "anx-", "anx_lb", "anx.lb", "p" * 17, "a/b", "a b"])
def test_bad_tag_prefixes_fail_naming_the_option(bad):
    with pytest.raises(Failure) as err:
        check_tag_prefix(bad)
    assert err.value.msg == ("tag_prefix must be 1-16 lowercase letters, digits or '-', starting with a letter and "
                             "not ending with '-', got %r" % bad)


def test_lease_holders():
    assert check_holder("web@ci-runner:4242") == "web@ci-runner:4242"
    for bad in ("", "a b", "a,b", "a=b", "a/b", "h" * 81):
        with pytest.raises(Failure):
            check_holder(bad)


def test_the_tag_character_set():
    assert is_tag_name("anxlb-lease=web@ctl:1@1800000000") and is_tag_name("k=v,w+x_y.z")
    assert not is_tag_name("a b") and not is_tag_name("") and not is_tag_name("t" * 129) and not is_tag_name(None)
