"""Value checks shared by LBaaS and IPAM validation: each returns True when the value is acceptable."""
import ipaddress


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
