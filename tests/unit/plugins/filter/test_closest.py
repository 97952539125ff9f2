import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.anxcloud.lbaas.plugins.filter.closest import FilterModule

closest = FilterModule().filters()["closest"]


def test_the_closest_known_key_or_nothing():
    keys = ["client_timeout", "health_check", "mode", "name", "port", "target_port"]
    assert closest("target_prot", keys) == "target_port"
    assert closest("helthcheck", keys) == "health_check"
    assert closest("qqq", keys) == ""
    assert closest("prt", keys, cutoff=0.9) == ""


def test_candidates_must_be_a_list():
    with pytest.raises(AnsibleFilterError, match="must be a list"):
        closest("x", "port")
