import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._failure import Failure
from ansible_collections.anxcloud.lbaas.plugins.module_utils._addresses._ippool import Pool


def test_first_free_skips_network_taken_and_excluded():
    pool = Pool("10.0.0.0/29", exclude=["10.0.0.2"])
    assert pool.allocate(["10.0.0.1"]) == "10.0.0.3"
    assert pool.allocate([]) == "10.0.0.1"


def test_unsorted_overlapping_exclusions():
    pool = Pool("10.0.0.0/24", exclude=["10.0.0.8/29", "10.0.0.1", "10.0.0.0/28", "10.0.0.2/31"])
    assert pool.allocate([]) == "10.0.0.16"
    assert pool.usable == 254 - 15


def test_bounds_and_last_strategy():
    pool = Pool("10.1.2.0/24", range_start="10.1.2.100", range_end="10.1.2.110")
    assert pool.allocate(["10.1.2.100"]) == "10.1.2.101"
    assert pool.allocate(["10.1.2.110"], strategy="last") == "10.1.2.109"
    assert Pool("10.1.2.0/24").allocate([], strategy="last") == "10.1.2.254"    # the cloud controller's VIP


@pytest.mark.parametrize("option, value", [("range_start", "10.1.3.1"), ("range_end", "10.1.2.255"),
                                           ("range_start", "10.1.2.0")])
def test_out_of_prefix_bounds_are_errors(option, value):
    with pytest.raises(Failure, match=r"^%s: %s is outside the usable range 10\.1\.2\.1-10\.1\.2\.254 of pool "
                                      r"10\.1\.2\.0/24$" % (option, value.replace(".", r"\."))):
        Pool("10.1.2.0/24", **{option: value})


def test_bad_exclusion_names_the_option():
    with pytest.raises(Failure, match="^exclude: 'nonsense' is not a valid address or CIDR$"):
        Pool("10.0.0.0/24", exclude=["nonsense"])


def test_exhaustion_names_the_pool():
    pool = Pool("192.0.2.0/30", name="edge")
    with pytest.raises(Failure, match=r"^pool edge is exhausted: no free address in 192\.0\.2\.1-192\.0\.2\.2 "
                                      r"\(2 of them taken, excluded: none\)$"):
        pool.allocate(["192.0.2.1", "192.0.2.2"])


@pytest.mark.parametrize("cidr, first, last, usable", [
    ("192.0.2.0/31", "192.0.2.0", "192.0.2.1", 2),
    ("192.0.2.7/32", "192.0.2.7", "192.0.2.7", 1),
    ("2001:db8::/127", "2001:db8::", "2001:db8::1", 2),
    ("2001:db8::5/128", "2001:db8::5", "2001:db8::5", 1),
])
def test_tiny_prefixes(cidr, first, last, usable):
    pool = Pool(cidr)
    assert pool.allocate([]) == first
    assert pool.allocate([], strategy="last") == last
    assert pool.usable == usable


def test_large_ipv6_prefix_with_allocations_in_its_upper_half():
    pool = Pool("2001:db8::/64", range_start="2001:db8::ffff:ffff:ffff:fff0")
    taken = ["2001:db8::ffff:ffff:ffff:fff0", "2001:db8::ffff:ffff:ffff:fff1"]
    assert pool.allocate(taken) == "2001:db8::ffff:ffff:ffff:fff2"
    assert pool.allocate([], strategy="last") == "2001:db8::ffff:ffff:ffff:fffe"
    assert pool.usable == 15
    assert Pool("2001:db8::/64").usable == 2 ** 64 - 2
