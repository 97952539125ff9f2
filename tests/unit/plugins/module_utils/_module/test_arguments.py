"""Argument errors that name the fix (_arguments.py): the closest known option, where the token comes from."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._module._arguments import (
    TOKEN_HINT, closest, options_at, shape_error, unknown_hints, with_hints)
from ansible_collections.anxcloud.lbaas.plugins.modules.backend import BackendModule
from ansible_collections.anxcloud.lbaas.plugins.modules.service import ServiceModule

SERVICE = ServiceModule.full_argument_spec()


def test_options_at_walks_suboptions_and_counts_aliases():
    assert "load_balancers" in options_at(SERVICE, ())
    assert sorted(options_at(SERVICE, ("servers",))) == ["address", "check", "ip", "name"]
    assert options_at(SERVICE, ("nowhere",)) == []


@pytest.mark.parametrize("unsupported, hints", [
    ({"load_balancer"}, ["load_balancer -> load_balancers"]),
    ({("ports", "helth_check")}, ["ports.helth_check -> ports.health_check"]),
    ({("servers", "adress"), "tag_prefx"}, ["servers.adress -> servers.address", "tag_prefx -> tag_prefix"]),
    ({"zzz"}, []),
])
def test_unknown_options_are_named_with_the_closest_known_one(unsupported, hints):
    assert unknown_hints(unsupported, SERVICE) == hints


def test_ansibles_own_message_stays_and_the_fix_follows():
    ansible = ("Unsupported parameters for (anxcloud.lbaas.backend) module: load_balancers. Supported parameters "
               "include: api_token, id, load_balancer, mode, name.")
    assert with_hints(ansible, {"load_balancers"}, BackendModule.full_argument_spec()) == (
        ansible[:-1] + ". Did you mean: load_balancers -> load_balancer?")
    # Ansible reports the missing required option first: the misspelt one behind it is named as well
    assert with_hints("missing required arguments: load_balancers", {"load_balancer"}, SERVICE) == (
        "missing required arguments: load_balancers. Unsupported parameters: load_balancer. "
        "Did you mean: load_balancer -> load_balancers?")
    assert with_hints("missing required arguments: api_token", set(), SERVICE) == (
        "missing required arguments: api_token. " + TOKEN_HINT + ".")
    assert with_hints("missing required arguments: api_token, name", None, SERVICE).endswith("ANEXIA_TOKEN environment variable.")
    assert with_hints("value of state must be one of: present, absent, got: gone", set(), SERVICE) == (
        "value of state must be one of: present, absent, got: gone")


def test_closest_needs_some_likeness():
    assert closest("load_balancer", ["load_balancers", "name"]) == "load_balancers"
    assert closest("x", ["load_balancers", "name"]) is None


# ---- list options written in another shape (issue 30, point 8) ----------------------------------------------
@pytest.mark.parametrize("raw, refused, msg", [
    ({"servers": "a,b"}, True, "servers must be a list of dicts, each like {name: ..., address: ...}; got the string 'a,b'"),
    ({"ports": [80, 443]}, True, "ports must be a list of dicts, each like {port: ...}; ports[0] is 80"),
    ({"ports": [{"port": 80}, "443"]}, True, "ports must be a list of dicts, each like {port: ...}; ports[1] is '443'"),
    ({"load_balancers": "lb1, lb2"}, False,
     "load_balancers must be a list, like [lb1, lb2]; got the one string 'lb1, lb2', which Ansible would split at its "
     "commas into 'lb1', ' lb2'"),
    ({"addresses": "10.0.0.1,"}, False,
     "addresses must be a list, like [10.0.0.1]; got the one string '10.0.0.1,', which Ansible would split at its "
     "commas into '10.0.0.1', ''"),
])
def test_list_options_in_another_shape_name_the_shape_expected(raw, refused, msg):
    assert shape_error(raw, SERVICE, refused) == msg


@pytest.mark.parametrize("raw, refused", [
    ({"load_balancers": "lb1"}, False),        # one name: Ansible's one-item list, as meant
    ({"load_balancers": "lb1,lb2"}, False),    # split as meant
    ({"load_balancers": ["lb1", "lb2"], "servers": [{"name": "a", "address": "10.0.0.1"}]}, True),
    ({"servers": "a,b"}, False),               # Ansible took it (it did not here): its own message stands
])
def test_list_options_in_their_shape_pass(raw, refused):
    assert shape_error(raw, SERVICE, refused) is None
