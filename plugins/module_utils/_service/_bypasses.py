# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Whether a port's allow-list holds: the rules and ACLs under its frontend that the service did not make and
that admit a source its ``allow_sources`` refuses (pure, no I/O; docs/user-guide.md, "When the allow-list does
not hold").

The service writes, per frontend, ``accept if <src ACL>`` connection rules (index 0) and ``reject`` rules for
``0.0.0.0/0`` and ``::/0`` (index 1). HAProxy evaluates a frontend's ``tcp-request connection`` rules in order
(the Engine orders them by ``index``) and the first that matches decides, before any other kind of rule: so
what decides for a source the list refuses is whatever another rule does at or before the reject rules'
index. The service keeps the frontend's objects of its own making as declared and never writes another
owner's, so what can void the list is:

- another rule (connection type, or no type) that accepts (``accept``, ``allow``) a source the list refuses,
  at an index up to the reject rules' (at the same index the Engine's order is not documented: counted). It
  matches unconditionally without a condition; with ``if``, the sources of the ACLs it names (ACLs of one
  name are one HAProxy ACL: their lines are ORed); with ``unless``, every other source. An ACL that does not
  test ``src`` (``dst_port`` ...), a value that is no network, or a name that is no ACL of the frontend (a
  predefined ACL, an expression) is taken as matching any source: what it admits cannot be told from here,
  so it is reported rather than trusted. A refusing rule (``reject``, ``deny``, ``silent-drop``) with a lower
  index whose sources are known shadows what it matches; other actions neither admit nor refuse here;
- another ACL carrying the name of one of the service's accept ACLs: its lines join the service's, so the
  service's own accept rule admits its sources too.
"""

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from .._model._ownership import foreign_tags, owner_from_tags

ADMITTING = ("accept", "allow")
REFUSING = ("reject", "deny", "silent-drop")
CONNECTION_TYPES = (None, "", "connection")
EVERY_NETWORK = ("0.0.0.0/0", "::/0")


def every_source():
    return netaddr.IPSet(EVERY_NETWORK)


def acl_sources(acl):
    """The sources an ACL matches as an IPSet, None when they cannot be told (not ``src``, not networks)."""
    values = str(acl.get("value") or "").split()
    if acl.get("criterion") != "src" or not values:
        return None
    try:
        return netaddr.IPSet([netaddr.IPNetwork(v) for v in values])
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None


def rule_sources(rule, acls_by_name):
    """(IPSet the rule matches, how it matches: words for a message, whether the set is known exactly).
    What cannot be told counts as every source."""
    condition, test = rule.get("condition"), rule.get("condition_test")
    if not condition or not test:
        return every_source(), "unconditionally", True
    named = acls_by_name.get(test, [])
    sets = [acl_sources(a) for a in named]
    if not named:
        return every_source(), "%s %s, which is no ACL of the frontend (what it matches cannot be told: any source)" % (
            condition, test), False
    if any(s is None for s in sets):
        return every_source(), "%s ACL '%s', which does not test the source address alone (any source may match)" % (
            condition, test), False
    matched = netaddr.IPSet()
    for found in sets:
        matched |= found
    if condition == "if":
        return matched, "if ACL '%s' (%s)" % (test, networks(matched)), True
    if condition == "unless":
        return every_source() - matched, "unless ACL '%s' (every source but %s)" % (test, networks(matched)), True
    return every_source(), "with condition '%s' (not known: any source)" % condition, False


def networks(ipset, most=6):
    """An IPSet as a short text of its networks."""
    cidrs = [str(c) for c in ipset.iter_cidrs()]
    if len(cidrs) > most:
        return "%s and %d more networks" % (", ".join(cidrs[:most]), len(cidrs) - most)
    return ", ".join(cidrs) or "no source"


def _index(obj):
    try:
        return int(obj.get("index") or 0)
    except (TypeError, ValueError):
        return 0


class Finding:
    """An object that voids the allow-list: ``obj`` (a rule or an ACL not of the service's making), the sources
    it lets through that the list refuses (``admitted``), what it matches (``matched``) and how (``how``); for
    an ACL, ``via`` is the service's accept rule that names it."""

    def __init__(self, obj, matched, admitted, how, tie=False, via=None):
        self.obj, self.matched, self.admitted, self.how, self.tie, self.via = obj, matched, admitted, how, tie, via


def bypasses(allowed, own_acls, own_rules, other_acls, other_rules):
    """The findings of one frontend. ``allowed``: the port's networks; ``own_acls``/``own_rules``: the service's
    ACLs and rules as declared (what the run leaves there); ``other_acls``/``other_rules``: the objects under
    the frontend that are not the service's and that the run leaves in place."""
    rejects = [_index(r) for r in own_rules if r.get("action") in REFUSING]
    if not rejects:
        return []
    frontend = _Frontend(allowed, own_acls, other_acls, other_rules)
    last = min(rejects)   # the service's first reject rule: a rule after it never sees a refused source
    found = []
    for rule in sorted(other_rules, key=lambda r: (_index(r), r.get("name") or "", r.get("id") or "")):
        index = _index(rule)
        if rule.get("type") in CONNECTION_TYPES and rule.get("action") in ADMITTING and index <= last:
            matched, how, _exact = rule_sources(rule, frontend.acls_by_name)
            admitted = frontend.admitted(matched, index)
            if admitted:
                found.append(Finding(rule, matched, admitted, how, tie=index == last))
    for rule in own_rules:
        if rule.get("action") in ADMITTING:
            found.extend(frontend.joined(rule, other_acls))
    return found


class _Frontend:
    """A frontend's ACLs by name (the service's as declared and the others'), and the sources other refusing
    rules refuse, by index."""

    def __init__(self, allowed, own_acls, other_acls, other_rules):
        self.allowed = netaddr.IPSet(allowed)
        self.acls_by_name = {}
        for acl in list(own_acls) + list(other_acls):
            self.acls_by_name.setdefault(acl.get("name"), []).append(acl)
        self.shadows = []   # (index, IPSet) of the other refusing rules whose sources are known exactly
        for rule in other_rules:
            if rule.get("type") in CONNECTION_TYPES and rule.get("action") in REFUSING:
                matched, _how, exact = rule_sources(rule, self.acls_by_name)
                if exact:
                    self.shadows.append((_index(rule), matched))

    def admitted(self, matched, index):
        """What a rule at ``index`` matching ``matched`` admits that the list refuses, after earlier refusals."""
        out = matched - self.allowed
        for at, refused in self.shadows:
            if at < index:
                out -= refused
        return out

    def joined(self, rule, other_acls):
        """Other ACLs named as the service's accept ``rule`` names its own: their lines join its ACL."""
        found = []
        for acl in [a for a in other_acls if a.get("name") == rule.get("condition_test")]:
            matched = acl_sources(acl)
            how = "'%s %s'" % (acl.get("criterion"), acl.get("value"))
            if matched is None:
                matched, how = every_source(), how + ", which does not test the source address alone (any source may match)"
            admitted = self.admitted(matched, _index(rule))
            if admitted:
                found.append(Finding(acl, matched, admitted, how, via=rule))
        return found


def _owner(obj, tag, prefix):
    """(owner name or None, the owner tags found): an owner of our prefix by name, another prefix's by its tag."""
    tags = foreign_tags(obj.get("tags"), tag)
    owners = owner_from_tags(tags, prefix)
    return (owners[0] if owners else None), tags


def report(finding, lb, frontend, frontend_id, tag, prefix):
    """A finding as the result lists it (``allow_sources_bypasses``), its message included."""
    obj = finding.obj
    owner, tags = _owner(obj, tag, prefix)
    out = dict(load_balancer=lb["name"], load_balancer_id=lb["id"], frontend=frontend, frontend_id=frontend_id,
               type=obj["kind"], name=obj.get("name"), id=obj["id"], index=_index(obj), owner=owner, owner_tags=tags,
               sources=[str(c) for c in finding.matched.iter_cidrs()], refused_sources=let_through(finding))
    if finding.via is not None:
        out["named_by"] = finding.via["name"]
    out["msg"] = message(out, finding)
    return out


def message(out, finding):
    """One finding in words: the object, its place, its owner, and what it admits."""
    if out["owner_tags"]:
        whose = "owner tag %s" % ", ".join(out["owner_tags"])
    else:
        whose = "no owner tag"
    what = "%s '%s' (%s, index %d, %s) in frontend '%s' on load balancer %s" % (
        out["type"], out["name"], out["id"], out["index"], whose, out["frontend"], out["load_balancer"])
    if finding.via is not None:
        does = ("carries the name of the service's ACL, so the service's accept rule '%s' also admits what it matches: %s"
                % (finding.via["name"], finding.how))
    else:
        place = ("at the same index as the service's reject rules (the Engine does not document the order among equal "
                 "indexes: it may come first)") if finding.tie else "before the service's reject rules"
        does = "%ss %s, %s" % (finding.obj.get("action"), finding.how, place)
    return "%s %s; so sources allow_sources refuses can connect: %s" % (what, does, out["refused_sources"])


def let_through(finding):
    """What a finding lets through that the list refuses, in words: what it matches, except what the list
    admits anyway or an earlier rule refuses (shorter than the networks of the difference)."""
    spared = finding.matched - finding.admitted
    if not spared:
        return networks(finding.matched)
    return "%s except %s" % (networks(finding.matched), networks(spared))
