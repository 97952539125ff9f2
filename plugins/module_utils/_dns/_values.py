# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""DNS records as values: the one normal form every comparison of a record's name and value uses (pure).

The Engine rewrites what it stores (docs/engine-api-facts.md, CloudDNS): names lowercase, IPv6 compressed,
host names with a trailing dot (a name without one taken as fully qualified), MX and SRV single-spaced, TXT
quoted and split into strings of 255 bytes. A value the user writes and the value the Engine reads back
must compare equal when they mean the same record, so both pass through ``normal_value`` (dnspython's
parser, with the root as origin: a target without a trailing dot is fully qualified, as the Engine takes it).

TXT: a value made only of quoted strings (``"v=spf1" " -all"``) is those strings; any other text is one
string, as written. Their concatenation is what is compared (resolvers join the strings of one TXT record),
shown and sent as quoted strings of at most 255 bytes, which is how the Engine stores it.
"""

import re

from .._model._failure import Failure

# The types a record module writes; SOA and NS are the zone's own (the Engine refuses them at the apex).
WRITABLE = ("A", "AAAA", "CNAME", "TXT", "MX", "SRV", "PTR")
ZONE_OWN = ("SOA", "NS")
HOST_TYPES = ("CNAME", "MX", "SRV", "PTR", "NS")
TXT_CHUNK = 255
NAME_MAX = 253   # characters of a fully qualified name without its trailing dot (RFC 1035: 255 octets on the wire)
TTL_MIN, TTL_MAX = 60, 604800   # the TTLs CloudDNS takes (else none: the zone's default)
LABEL = re.compile(r"^(\*|[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)$")


def _dnspython():
    """The dnspython package, with the parts this file uses. Imported on first use, not with this file: a module
    refused for its arguments, and a service without the option dns, never load it."""
    import dns.exception
    import dns.name
    import dns.rdata
    import dns.rdataclass
    import dns.rdatatype
    import dns.tokenizer
    return dns


def has_dnspython():
    """Whether dnspython imports (it is imported then); the modules that need it say so before any request."""
    try:
        _dnspython()
    except ImportError:
        return False
    return True


def check_type(rtype, option="type"):
    """The record type in upper case, or a Failure: SOA and NS belong to the zone, others are unknown."""
    text = (rtype or "").strip().upper()
    if text in ZONE_OWN:
        raise Failure("%s %s: the zone's %s records belong to the zone (CloudDNS keeps them); this module manages %s records"
                      % (option, text, text, ", ".join(WRITABLE)))
    if text not in WRITABLE:
        raise Failure("%s %r is not a record type this module manages; use one of %s" % (option, rtype, ", ".join(WRITABLE)))
    return text


def normal_zone(zone, option="zone"):
    """A zone name as the Engine keeps it: lowercase, no trailing dot."""
    text = (zone or "").strip().rstrip(".").lower()
    if not text or any(not LABEL.match(label) or label == "*" for label in text.split(".")):
        raise Failure("%s %r is not a zone name (labels of a-z, 0-9, - and _ separated by dots)" % (option, zone))
    return text


def normal_name(name, zone, option="name"):
    """A record's name relative to ``zone``, lowercase, ``@`` for the apex. A fully qualified name (trailing
    dot) inside the zone is made relative; anything else that is not a name is a Failure naming ``option``.

    A name that ends with the zone but has no trailing dot (``web.example.com`` in zone ``example.com``) is refused:
    taken as relative, as CloudDNS takes it, it would be ``web.example.com.example.com``, which nobody means; taken as
    fully qualified, a record of that longer name could not be written any more. The message gives both spellings."""
    text = (name if name is not None else "@").strip().lower()
    if text.endswith("."):
        fqdn = text.rstrip(".")
        if fqdn == zone:
            return "@"
        if not fqdn.endswith("." + zone):
            raise Failure("%s %r is not in zone %s; give the name relative to the zone (@ for the apex)" % (option, name, zone))
        text = fqdn[:-len(zone) - 1]
    elif text == zone or text.endswith("." + zone):
        relative = text[:-len(zone) - 1] or "@"
        raise Failure("%s %r ends with the zone %s but has no trailing dot, so it would be %s.%s.; give it relative to the "
                      "zone (%s) or fully qualified with the trailing dot (%s.)" % (option, name, zone, text, zone, relative, text))
    if text in ("@", ""):
        if text == "":
            raise Failure("%s is empty; the zone's apex is @" % option)
        return "@"
    labels = text.split(".")
    bad = [label for label in labels if not LABEL.match(label)]
    if bad or "*" in labels[1:]:
        raise Failure("%s %r is not a record name: each label is 1-63 of a-z, 0-9, - and _ (a leading * for a wildcard),"
                      " labels separated by dots, relative to the zone (@ for the apex)" % (option, name))
    length = len(text) + 1 + len(zone)
    if length > NAME_MAX:
        raise Failure("%s %r is too long: in zone %s its fully qualified name has %d characters, DNS allows at most %d"
                      % (option, name, zone, length, NAME_MAX))
    return text


def check_ttl(ttl, option="ttl"):
    """``ttl`` when CloudDNS takes it (None: the zone's default), else a Failure naming ``option``: what the Engine
    refuses is refused before any request, in check mode too."""
    if ttl is not None and not TTL_MIN <= ttl <= TTL_MAX:
        raise Failure("%s must be between %d and %d seconds (CloudDNS's range), got %d; leave it out for the zone's default"
                      % (option, TTL_MIN, TTL_MAX, ttl))
    return ttl


def fqdn(name, zone):
    """The fully qualified name of a relative record name, for resolvers and messages."""
    return zone + "." if name == "@" else "%s.%s." % (name, zone)


def txt_strings(value):
    """The strings of a TXT value: those of a value made only of quoted strings, else the text as one string."""
    text = value.strip()
    if text.startswith('"'):
        dns = _dnspython()
        try:
            tokens = []
            tok = dns.tokenizer.Tokenizer(text)
            while True:
                token = tok.get()
                if token.is_eol_or_eof():
                    break
                if not token.is_quoted_string():
                    tokens = None
                    break
                tokens.append(token.unescape_to_bytes().value)   # the string's bytes, its escapes undone
            if tokens:
                return tokens
        except dns.exception.SyntaxError:
            pass
    return [value.encode("utf-8")]


def txt_text(joined):
    """Bytes as quoted strings of at most 255 bytes, ``"`` and ``\\`` escaped (the Engine's stored form). UTF-8 text is
    split between characters, never inside one: each string is valid text, which the API (JSON) can carry."""
    chunks, start = [], 0
    while start < len(joined):
        end = min(start + TXT_CHUNK, len(joined))
        while start < end < len(joined) and joined[end] & 0xC0 == 0x80:   # a continuation byte: back to the character's start
            end -= 1
        if end == start:   # no character starts in 255 bytes: not UTF-8 (normal_value refuses it first)
            end = min(start + TXT_CHUNK, len(joined))
        chunks.append(joined[start:end])
        start = end
    return " ".join('"%s"' % c.decode("utf-8", "surrogateescape").replace("\\", "\\\\").replace('"', '\\"')
                    for c in chunks or [b""])


def normal_value(rtype, value, option="values"):
    """The normal form of one value of a record of ``rtype`` (already checked), or a Failure naming ``option``."""
    if value is None:
        raise Failure("%s: a value is missing (null)" % option)
    text = str(value)
    if rtype == "TXT":
        if any(ord(c) < 32 or ord(c) == 127 for c in text):
            raise Failure("%s %r: a TXT value holds no control characters (no line breaks)" % (option, text))
        joined = b"".join(txt_strings(text))
        try:
            joined.decode("utf-8")
        except UnicodeDecodeError:
            raise Failure("%s %r: its bytes are not UTF-8 text (a \\DDD escape of a byte above 127?), which the CloudDNS API "
                          "cannot carry; write the characters themselves" % (option, text))
        return txt_text(joined)
    dns = _dnspython()
    try:
        rdata = dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.from_text(rtype), text.strip(),
                                    origin=dns.name.root, relativize=False)
    except (dns.exception.DNSException, ValueError) as exc:
        raise Failure("%s %r is not a valid %s value: %s" % (option, text, rtype, exc or exc.__class__.__name__))
    return rdata.to_text().lower()


def normal_values(rtype, values, option="values"):
    """Each value's normal form, duplicates once, in the order given."""
    out = []
    for number, value in enumerate(values or []):
        normal = normal_value(rtype, value, "%s[%d]" % (option, number))
        if normal not in out:
            out.append(normal)
    return out


def stored_value(record):
    """The normal form of a record the Engine answered; its rdata as stored when the parser refuses it
    (a record some other tool wrote: it is then a value no desired value equals)."""
    try:
        return normal_value(record["type"], record.get("rdata"))
    except Failure:
        return record.get("rdata")
