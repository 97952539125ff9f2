"""The group_servers filter: servers from inventory hosts, address by a JMESPath expression."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.anxcloud.lbaas.plugins.filter.group_servers import group_servers

HOSTVARS = {
    "web1.example.com": {"ansible_host": "192.0.2.11", "inventory_hostname": "web1.example.com"},
    "web2.example.com": {"ansible_host": " 2001:DB8::12 ", "nets": {"backend": {"ip": "10.0.0.2"}}, "sname": "w-2"},
    "web2.example.org": {"ansible_host": "192.0.2.13"},
    "bare": {},
    "named": {"ansible_host": "db.example.com"},
}


def test_names_from_the_short_host_name_and_addresses_from_ansible_host_in_input_order():
    assert group_servers(["web2.example.com", "web1.example.com"], HOSTVARS) == [
        {"name": "web2", "address": "2001:db8::12"}, {"name": "web1", "address": "192.0.2.11"}]


def test_expressions_for_address_and_name_and_a_check_for_all():
    assert group_servers(["web2.example.com"], HOSTVARS, address="nets.backend.ip", name="sname", check="disabled") == [
        {"name": "w-2", "address": "10.0.0.2", "check": "disabled"}]


@pytest.mark.parametrize("hosts,kwargs,message", [
    (["bare"], {}, "group_servers: host bare has no address: the expression ansible_host found nothing in its variables"),
    (["named"], {}, "group_servers: host named: the expression ansible_host gives 'db.example.com', not an IP address"),
    (["web2.example.com", "web2.example.org"], {}, "the server name(s) web2 would be used twice"),
    (["web1.example.com"], {"name": "inventory_hostname"},
     "the server name must be 1-63 letters, digits, '-' or '_', starting and ending with a letter or digit (no '.': "
     "it separates the parts of object names), got 'web1.example.com'"),
    (["nowhere"], {}, "group_servers: nowhere is not a host of the inventory"),
    ("web1.example.com", {}, "the input must be a list of inventory host names, such as groups['web'], got str"),
    (["web1.example.com"], {"address": "a["}, "group_servers: address is not a valid JMESPath expression: a["),
    (["web1.example.com"], {"check": "on"}, "check must be enabled or disabled, got on"),
])
def test_bad_input_names_the_host_and_what_is_wrong(hosts, kwargs, message):
    with pytest.raises(AnsibleFilterError) as caught:
        group_servers(hosts, HOSTVARS, **kwargs)
    assert message in str(caught.value)
