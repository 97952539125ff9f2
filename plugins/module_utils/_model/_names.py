# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The character sets of the names the collection writes into tags (and so into URL paths).

Every tag the collection writes is built from these names: the owner tag ``<tag_prefix>-svc=<owner>``,
the lease ``<tag_prefix>-lease=<holder>@<expiry>`` and the marker
``<tag_prefix>-reconciled.<owner>=<scheme>,<version>,<hash>,<time>``. The Engine's tag names are taken
to be 1-128 characters of letters, digits and ``-_.:=@,+`` (the strict local Engine enforces that;
the real Engine's rule is not documented), so:

* owner (a service name, an address owner): 1-63 letters, digits, ``-``, ``_``, ``.``, starting and
  ending with a letter or digit (a DNS label's length, so Kubernetes-style names fit);
* tag prefix: 1-16 lowercase letters, digits and ``-``, starting with a letter and not ending with
  ``-``. 16, not more, so that the longest marker (prefix + owner + 48 characters of scheme, version,
  hash and time) stays within 128 characters;
* lease holder: 1-80 characters of the tag character set but ``=`` and ``,``.

None of them can hold ``/ ? # %`` or a space, so no name changes a URL path it is put into.
"""

import re

from ._failure import Failure

TAG_MAX = 128
TAG_CHARS = r"A-Za-z0-9\-_.:=@,+"
TAG_NAME = re.compile(r"^[%s]{1,%d}$" % (TAG_CHARS, TAG_MAX))

OWNER_MAX = 63
OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,%d}[A-Za-z0-9])?$" % (OWNER_MAX - 2))
OWNER_RULE = "1-%d letters, digits, '-', '_' or '.', starting and ending with a letter or digit" % OWNER_MAX

# A service, port or server name is also a part of object names (``<port>.<service>``), so it has no '.'.
# Every message about such a name says this one rule.
PART = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,%d}[A-Za-z0-9])?$" % (OWNER_MAX - 2))
PART_RULE = ("1-%d letters, digits, '-' or '_', starting and ending with a letter or digit "
             "(no '.': it separates the parts of object names)" % OWNER_MAX)

TAG_PREFIX_MAX = 16
TAG_PREFIX = re.compile(r"^[a-z](?:[a-z0-9-]{0,%d}[a-z0-9])?$" % (TAG_PREFIX_MAX - 2))
TAG_PREFIX_RULE = ("1-%d lowercase letters, digits or '-', starting with a letter and not ending with '-'"
                   % TAG_PREFIX_MAX)

HOLDER_MAX = 80
HOLDER = re.compile(r"^[A-Za-z0-9\-_.:@+]{1,%d}$" % HOLDER_MAX)
HOLDER_RULE = "1-%d letters, digits, '-', '_', '.', ':', '@' or '+'" % HOLDER_MAX


def _check(value, option, pattern, rule):
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    if not pattern.match(text):
        raise Failure("%s must be %s, got %r" % (option, rule, text), option=option)
    return text


def check_owner(value, option="owner"):
    """``value`` if it is a valid owner (service) name, else a Failure naming ``option``."""
    return _check(value, option, OWNER, OWNER_RULE)


def check_name_part(value, option="name"):
    """``value`` if it is a valid service, port or server name, else a Failure naming ``option``."""
    return _check(value, option, PART, PART_RULE)


def check_tag_prefix(value, option="tag_prefix"):
    """``value`` if it is a valid tag prefix, else a Failure naming ``option``."""
    return _check(value, option, TAG_PREFIX, TAG_PREFIX_RULE)


def check_holder(value, option="lease_holder"):
    """``value`` if it is a valid lease holder, else a Failure naming ``option``."""
    return _check(value, option, HOLDER, HOLDER_RULE)


def is_tag_name(value):
    """Whether ``value`` is within the tag character set and length."""
    return isinstance(value, str) and bool(TAG_NAME.match(value))


# A host name as DNS resolvers and the Engine's rDNS zone take it (RFC 1123, section 2.1, on RFC 952): labels of
# letters, digits and '-', not starting or ending with '-', 1-63 characters each, 253 characters in all without
# the root's trailing dot, which is allowed (an FQDN as the Engine reads an rDNS name back). No spaces, no
# control characters, no '_' (not a host name character, even if some zones hold it in other records).
HOSTNAME_MAX = 253
HOSTNAME_LABEL_MAX = 63
HOSTNAME_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,%d}[A-Za-z0-9])?$" % (HOSTNAME_LABEL_MAX - 2))
HOSTNAME_RULE = ("a host name: labels of 1-%d letters, digits or '-' (not starting or ending with '-'), separated "
                 "by '.', %d characters in all (a trailing '.' allowed)" % (HOSTNAME_LABEL_MAX, HOSTNAME_MAX))


def _hostname_problem(name):
    """What keeps ``name`` (without its trailing dot) from being a host name, or None."""
    if len(name) > HOSTNAME_MAX:
        return "it has %d characters" % len(name)
    for label in name.split("."):
        if not label:
            return "it has an empty label"
        if len(label) > HOSTNAME_LABEL_MAX:
            return "the label '%s...' has %d characters" % (label[:20], len(label))
        if not HOSTNAME_LABEL.match(label):
            return "the label %r does not fit" % label
    return None


def check_hostname(value, option):
    """``value`` if it is a host name (HOSTNAME_RULE), else a Failure naming ``option``, the rule and what breaks it."""
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    problem = _hostname_problem(text[:-1] if text.endswith(".") else text)
    if problem:
        raise Failure("%s must be %s; %s, got %r" % (option, HOSTNAME_RULE, problem, text), option=option)
    return text
