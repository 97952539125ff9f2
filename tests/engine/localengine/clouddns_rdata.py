"""CloudDNS record checks and the rewrites the Engine does to what it stores (docs/engine-api-facts.md,
CloudDNS): one function per record type takes the rdata a client sent and returns the stored form, or
raises RdataError with the reason.

Stored forms (the "Engine changes RData sometimes" of go-anxcloud's record_genclient.go, made concrete):
- A as sent (dotted quad without leading zeros); AAAA compressed and lowercase (``2001:DB8:0::1`` ->
  ``2001:db8::1``);
- host names (CNAME, NS, PTR, MX and SRV targets) lowercase with a trailing dot: a name without one is
  taken as fully qualified, never as relative to the zone;
- TXT quoted, as the Engine answers (gac mocks_test.go: ``"\\"test record\\""``): a value already made of
  quoted strings is kept (so a value read back and sent again is the same), any other value is quoted
  with ``"`` and ``\\`` escaped and split into strings of at most 255 bytes;
- MX ``<preference> <host>``, SRV ``<priority> <weight> <port> <target>`` with single spaces.
"""
import ipaddress
import re

LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
DECIMAL = re.compile(r"^(0|[1-9][0-9]*)$")
QUOTED = re.compile(r'^"(?:[^"\\]|\\.)*"(?:\s+"(?:[^"\\]|\\.)*")*$')
TXT_CHUNK = 255
SUPPORTED = ("A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS", "PTR")
ZONE_OWNED = ("SOA",)   # the zone's own; NS at the apex too (clouddns.py)


class RdataError(ValueError):
    pass


def host_name(value, what="a host name"):
    """A fully qualified host name, lowercase, with its trailing dot."""
    if not isinstance(value, str) or not value or value != value.strip():
        raise RdataError("Must be %s." % what)
    name = value.lower().rstrip(".") if value != "." else ""
    if value.endswith(".."):
        raise RdataError("Must be %s; got %r." % (what, value))
    labels = name.split(".") if name else []
    if not labels or len(name) > 253 or not all(LABEL.match(label) for label in labels):
        raise RdataError("Must be %s (labels of a-z, 0-9, - and _, at most 63 characters each); got %r." % (what, value))
    return name + "."


def number(text, low, high, what):
    if not DECIMAL.match(text) or not low <= int(text) <= high:
        raise RdataError("%s must be an integer from %d to %d; got %r." % (what, low, high, text))
    return str(int(text))


def fields(value, count, what):
    if not isinstance(value, str):
        raise RdataError("Must be a string: %s." % what)
    parts = value.split()
    if len(parts) != count:
        raise RdataError("Must be %s; got %r." % (what, value))
    return parts


def a(value):
    try:
        address = ipaddress.IPv4Address(value)
    except (ValueError, TypeError):
        raise RdataError("Must be an IPv4 address; got %r." % (value,))
    if str(address) != value:
        raise RdataError("Must be an IPv4 address without leading zeros or blanks; got %r." % (value,))
    return value


def aaaa(value):
    try:
        return str(ipaddress.IPv6Address(value))   # compressed, lowercase
    except (ValueError, TypeError):
        raise RdataError("Must be an IPv6 address; got %r." % (value,))


def txt(value):
    if not isinstance(value, str) or not value.strip():
        raise RdataError("Must be a non-empty text.")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise RdataError("Must not contain control characters (newlines, tabs).")
    if QUOTED.match(value.strip()):
        strings = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
        if any(len(unescape(s).encode("utf-8")) > TXT_CHUNK for s in strings):
            raise RdataError("Each quoted string of a TXT value holds at most %d bytes." % TXT_CHUNK)
        return " ".join('"%s"' % s for s in strings)
    return " ".join('"%s"' % escape(chunk) for chunk in chunks(value))


def escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def unescape(text):
    return re.sub(r"\\(.)", r"\1", text)


def chunks(text):
    """The text split into pieces of at most TXT_CHUNK bytes of UTF-8, never inside a character."""
    out, current = [], ""
    for char in text:
        if len((current + char).encode("utf-8")) > TXT_CHUNK:
            out.append(current)
            current = ""
        current += char
    return out + [current]


def mx(value):
    preference, host = fields(value, 2, "<preference> <host>, e.g. '10 mail.example.com.'")
    return "%s %s" % (number(preference, 0, 65535, "The preference"), host_name(host, "a mail host name"))


def srv(value):
    parts = fields(value, 4, "<priority> <weight> <port> <target>, e.g. '10 5 443 web.example.com.'")
    numbers = [number(p, 0, 65535, what) for p, what in zip(parts, ("The priority", "The weight", "The port"))]
    return " ".join(numbers + [host_name(parts[3], "a target host name")])


CHECKS = {"A": a, "AAAA": aaaa, "CNAME": host_name, "NS": host_name, "PTR": host_name, "TXT": txt, "MX": mx,
          "SRV": srv}


def stored(record_type, value):
    """The stored form of ``value`` for ``record_type`` (one of SUPPORTED); RdataError says why not."""
    if not isinstance(value, str) or not value:
        raise RdataError("Required: the record's data as a string.")
    return CHECKS[record_type](value)


def record_name(value):
    """A record's name relative to the zone, lowercase; "@" is the apex. RdataError says why not."""
    if not isinstance(value, str) or not value:
        raise RdataError("Required: a name relative to the zone; use @ for the zone itself (an empty name is refused).")
    if value == "@":
        return value
    if value.endswith("."):
        raise RdataError("Must be relative to the zone (no trailing dot); use @ for the zone itself; got %r." % value)
    labels = value.lower().split(".")
    wildcard = labels[0] == "*"
    if len(value) > 253 or not all(LABEL.match(label) for label in labels[1 if wildcard else 0:]):
        raise RdataError("Must be a relative name (labels of a-z, 0-9, - and _, at most 63 characters each, "
                         "a leading * for a wildcard); got %r." % value)
    return value.lower()


def zone_name(value):
    """A zone name: lowercase, no trailing dot, at least two labels."""
    name = host_name(value, "a zone name such as example.com").rstrip(".")
    if "." not in name:
        raise RdataError("Must be a zone name with at least two labels, such as example.com; got %r." % value)
    return name
