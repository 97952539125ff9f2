# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One rrset, the ``dns_record`` module: a run of one part (``RrsetPart``, ``_reconcile._run``).

observe (one GET of the zone's records of that name and type; with ``wait`` the zone's state beside it) -> plan
(``_plan.plan_rrset``, and what the zone's newest revision needs, ``_revision``) -> check mode: predict | apply
(``_apply.RrsetOperations``: one changeset) -> observe and plan again, which must find nothing left to do. Every
option is checked before the first request, so bad input writes nothing. With ``wait: served`` the run then asks the
zone's authoritative servers until each answers the new data (``_served``).
"""

import time

from ansible.module_utils.basic import missing_required_lib

from ._claims import Claims
from ._plan import (
    COMMENT_MAX, FAIL, RRSET, SERVICE_NOTE, DesiredRrset, ZoneObservation, check_others, comment_text, flat_record,
    mark_of, observed_rrset, plan_rrset, rrset_key, view)
from ._revision import read_zone, revision_plan
from ._served import SERVED, check_nameservers, served_outcome, wait_mode
from ._values import (
    check_ttl, check_type, fqdn, has_dnspython, normal_name, normal_values, normal_zone, stored_value)
from .._model._failure import Failure
from .._model._names import check_owner, check_tag_prefix
from .._reconcile._plan import Plan
from .._reconcile._run import Part, Run


def desired_from(params):
    """The task's options as a ``DesiredRrset``, or a Failure naming the first bad option (no request sent yet)."""
    p = params
    zone = normal_zone(p["zone"])
    name = normal_name(p["name"], zone)
    rtype = check_type(p["type"])
    present = p["state"] == "present"
    if p.get("owner") is not None:
        check_owner(p["owner"], "owner")
    check_tag_prefix(p["tag_prefix"], "tag_prefix")
    values = p.get("values")
    if present and not values:
        raise Failure("values is required with state=present: give the rrset's values (state=absent removes it)")
    values = normal_values(rtype, values) if values is not None else None
    if rtype == "CNAME" and values and len(values) > 1:
        raise Failure("values: a CNAME has one value (a name is an alias of one name), got %d" % len(values))
    if present and rtype == "CNAME" and name == "@":
        raise Failure("type CNAME at name @: the zone's apex holds its SOA and NS records, and CloudDNS keeps no record "
                      "beside a CNAME; give the apex A/AAAA records, or the CNAME another name")
    ttl = check_ttl(p.get("ttl"))
    full = _comment(p)
    others = check_others(p.get("others") or FAIL, p.get("owner"), rtype)
    return DesiredRrset(zone, name, rtype, values, present=present, ttl=ttl, comment=full,
                        compare_comment=p.get("comment") is not None or p.get("owner") is not None,
                        owner=p.get("owner"), tag_prefix=p["tag_prefix"], others=others)


def _comment(params):
    """The full comment the records carry (the owner's mark, then the comment), checked against CloudDNS's limits."""
    comment = params.get("comment")
    if comment is not None and any(ord(c) < 32 for c in comment):
        raise Failure("comment must be one line (no control characters)")
    if comment is not None and comment.strip() == SERVICE_NOTE:
        raise Failure("comment: '%s' marks the records a service writes for its dns option (a service deletes its "
                      "records at a name it left); give this record another comment" % SERVICE_NOTE)
    mark = mark_of(comment)
    if mark and params.get("owner") is None:
        raise Failure("comment %r starts with the owner mark %s, which makes records that owner's (never changed by a task "
                      "of another owner); set owner to have the module write the mark (owner: %s), or give a comment that "
                      "does not start with one" % (comment, mark, mark.split("-svc=", 1)[1]))
    full = comment_text(params.get("owner"), params["tag_prefix"], comment)
    if full and len(full) > COMMENT_MAX:
        raise Failure("comment is too long: with the owner's mark it has %d characters, CloudDNS keeps at most %d"
                      % (len(full), COMMENT_MAX))
    return full


class RrsetPart(Part):
    """The rrset a ``dns_record`` task names. ``wait``: the run waits for the zone's new revision to be live, and
    so reads the zone's state beside its records (``_revision``)."""

    key = "dns"

    def __init__(self, client, desired, wait=True, wait_timeout=600, warn=None):
        self.client = client
        self.desired = desired
        self.wait, self.wait_timeout = wait, wait_timeout
        self.warn = warn or (lambda text: None)
        self.beside = []   # the name's records of other types, as last observed
        self.claims = Claims()   # what this run's changeset answered: another writer's records after it are late

    def observe(self, earlier):
        """The name's records of every type (the same one request: a CNAME clashes with any other type, which the Engine
        refuses and check mode must refuse as the real run), kept apart from the rrset's own (``beside``)."""
        d = self.desired
        try:
            records, answer = read_zone(self.client, d.zone, self.wait, name=d.name)
        except Failure:
            if d.present:
                raise
            self.warn("zone: there is no CloudDNS zone %s in this account, so there is no record of %s to remove"
                      % (d.zone, fqdn(d.name, d.zone)))
            return ZoneObservation({})
        records = self.claims.without_late(d.zone, d.name, records, lambda r: d.foreign(flat_record(r)), self.warn)
        self.beside = [r for r in records if r.get("name") == d.name and r.get("type") != d.type]
        return ZoneObservation(observed_rrset(d.zone, d.name, d.type, records), {d.zone: answer} if answer else {})

    def plan(self, state, planned):
        plan = plan_rrset(state.world, self.desired)
        if any(a.creates for a in plan):
            self._check_beside()
        actions, waits = revision_plan(state.zones, state.world, list(plan))
        return Plan(list(plan) + actions, waits)

    def _check_beside(self):
        """A CNAME and another record of its name: the Engine refuses the changeset; refused here first, naming them."""
        d = self.desired
        clash = [r for r in self.beside if (d.type == "CNAME") != (r.get("type") == "CNAME")]
        if clash:
            held = ", ".join("%s %s" % (r["type"], stored_value(r)) for r in clash)
            raise Failure("%s %s: the name holds %s, and CloudDNS keeps no other record beside a CNAME (a CNAME makes the "
                          "name an alias of another); remove those records first, or give this rrset another name"
                          % (fqdn(d.name, d.zone), d.type, held))

    def operations(self, client):
        from ._apply import RrsetOperations   # a real run that writes only (_reconcile._run)
        return {RRSET.name: RrsetOperations(client, wait=self.wait, timeout=self.wait_timeout, claims=self.claims)}

    def summary(self, plan, done):
        return [Plan([a for a in plan if a.kind is RRSET]).summary(done=done)] if plan else []

    def report(self, outcome, diff=False):
        """The module's result keys: the rrset after the run, the plan, and the diff."""
        d = self.desired
        after = self._records(outcome.after)
        result = dict(changed=outcome.changed, plan=outcome.plan.to_list(),
                      rrset=dict(zone=d.zone, name=d.name, fqdn=fqdn(d.name, d.zone), type=d.type,
                                 values=sorted(set(r["value"] for r in after)), records=after))
        if diff:
            result["diff"] = dict(before=self._view(self._records(outcome.before)), after=self._view(after))
        return result

    def _records(self, world):
        d = self.desired
        obj = world.get(rrset_key(d.zone, d.name, d.type))
        if obj is None:   # a planned create is keyed by its placeholder
            obj = next((o for o in world.values() if o.get("kind") == RRSET.name), None)
        return [view(r) for r in sorted((obj or {}).get("records") or [], key=lambda r: r["value"])]

    def _view(self, records):
        d = self.desired
        return dict(rrset="%s %s" % (fqdn(d.name, d.zone), d.type), records=records)


def check_dnspython(option=None):
    """A Failure when dnspython is missing (values are compared with it): said before any request."""
    if not has_dnspython():
        raise Failure(missing_required_lib("dnspython") + (" (for the option %s)" % option if option else ""))


def run_dns_record(client, request, check_mode, warn=None, diff=False):
    """The ``dns_record`` module's run of ``request`` (a ``DnsRecordRequest``): its result; with ``wait: served`` what
    each of the zone's servers answered (``served``)."""
    check_dnspython()
    started = time.monotonic()
    desired = desired_from(request.as_params())
    mode = wait_mode(request.wait)
    nameservers = check_nameservers(request.nameservers, mode)
    part = RrsetPart(client, desired, wait=bool(mode), wait_timeout=request.wait_timeout, warn=warn)
    run = Run(client, check_mode, [part], wait=bool(mode), wait_timeout=request.wait_timeout)
    outcome = run.run()
    result = part.report(outcome, diff=diff)
    result["summary"] = run.summary(outcome.plan, done=not check_mode) or "in sync"
    if mode == SERVED and not check_mode:
        with_result(result, lambda: served_outcome(client, desired.zone, [desired], outcome, nameservers,
                                                   started + request.wait_timeout), "served")
    return result


def with_result(result, served, key):
    """``result[key] = served()``; a Failure of it reports ``result`` too (what was written stays said)."""
    try:
        result[key] = served()
    except Failure as exc:
        exc.partial_result = dict(result)
        raise
