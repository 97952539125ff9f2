"""Value checks shared by LBaaS and IPAM validation: each returns True when the value is acceptable."""
import ipaddress
import re

PORT_TEXT = re.compile(r"^[1-9][0-9]{0,4}$")
NETWORK_TEXT = re.compile(r"^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$")   # no blanks, no netmask form


def parse_ip(value):
    """An ipaddress object, or None when ``value`` is not an IP address (no surrounding blanks allowed)."""
    if not isinstance(value, str):
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)   # JSON true is not a number


def is_port(value):
    return is_int(value) and 1 <= value <= 65535


def is_count(value):
    return is_int(value) and value >= 0


def is_text(value):
    return isinstance(value, str)


def is_bool(value):
    return isinstance(value, bool)


def is_switch(value):
    """An ``enable`` as the clients send it: a JSON bool, or the integer 0 or 1."""
    return is_bool(value) or (is_int(value) and value in (0, 1))


def is_port_text(value):
    """A port as the decimal string an ACL value holds ("8080"): no sign, blanks or leading zeros."""
    return is_text(value) and bool(PORT_TEXT.match(value)) and int(value) <= 65535


def is_src(value):
    """One address or CIDR network without host bits ("10.0.0.0/8", "127.0.0.5", "fd00::/8")."""
    if not is_text(value) or not NETWORK_TEXT.match(value):
        return False
    try:
        ipaddress.ip_network(value, strict=True)
    except ValueError:
        return False
    return True
