# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One rrset, reconciled through the shared ``Reconciler`` (the ``dns_record`` module).

observe (one GET of the zone's records of that name and type) -> plan (``_plan.plan_rrset``) -> check mode:
predict | apply (``_apply.RrsetOperations``: one changeset) -> observe and plan again, which must find
nothing left to do. Every option is checked before the first request, so bad input writes nothing.
"""

import time

from ._clouddns import CloudDNS
from ._plan import (
    COMMENT_MAX, FAIL, SERVICE_NOTE, DesiredRrset, check_others, comment_text, observed_rrset, plan_rrset, rrset_key, view)
from ._served import SERVED, check_nameservers, served_outcome, wait_mode
from ._values import (
    check_type, fqdn, has_dnspython, normal_name, normal_values, normal_zone)
from .._model._failure import Failure
from .._model._names import check_owner, check_tag_prefix
from .._reconcile._loop import Reconciler

TTL_MAX = 2147483647   # RFC 2181: 31 bits


class Observation:
    def __init__(self, world):
        self.world = world


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
    ttl = p.get("ttl")
    if ttl is not None and not 0 < ttl <= TTL_MAX:
        raise Failure("ttl must be between 1 and %d seconds, got %d (leave it out for the zone's default)" % (TTL_MAX, ttl))
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
    full = comment_text(params.get("owner"), params["tag_prefix"], comment)
    if full and len(full) > COMMENT_MAX:
        raise Failure("comment is too long: with the owner's mark it has %d characters, CloudDNS keeps at most %d"
                      % (len(full), COMMENT_MAX))
    return full


class DnsRecordRun:
    def __init__(self, client, params, check_mode):
        self.client = client
        self.params = params
        self.check_mode = check_mode
        self.result = {"changed": False}
        self.desired = None

    def run(self, diff=False):
        if not has_dnspython():
            from ansible.module_utils.basic import missing_required_lib
            raise Failure(missing_required_lib("dnspython"))
        started = time.monotonic()
        self.desired = desired_from(self.params)
        d = self.desired
        mode = wait_mode(self.params["wait"])
        nameservers = check_nameservers(self.params.get("nameservers"), mode)
        reconciler = Reconciler(self.client, self.check_mode, wait=bool(mode),
                                wait_timeout=self.params["wait_timeout"], applier=self._applier)
        outcome = reconciler.run(self.observe, self.plan)
        after = self._records(outcome.after)
        self.result.update(changed=outcome.changed, plan=outcome.plan.to_list(),
                           rrset=dict(zone=d.zone, name=d.name, fqdn=fqdn(d.name, d.zone), type=d.type,
                                      values=sorted(set(r["value"] for r in after)), records=after))
        if diff:
            before = self._records(outcome.before)
            self.result["diff"] = dict(before=self._view(before), after=self._view(after))
        if mode == SERVED and not self.check_mode:
            self.result["served"] = served_outcome(self.client, d.zone, [d], outcome, nameservers,
                                                   started + self.params["wait_timeout"])
        return self.result

    def _records(self, world):
        obj = world.get(rrset_key(self.desired.zone, self.desired.name, self.desired.type))
        if obj is None:   # a planned create is keyed by its placeholder
            obj = next(iter(world.values()), None)
        return [view(r) for r in sorted((obj or {}).get("records") or [], key=lambda r: r["value"])]

    def _view(self, records):
        d = self.desired
        return dict(rrset="%s %s" % (fqdn(d.name, d.zone), d.type), records=records)

    def observe(self):
        d = self.desired
        records = CloudDNS(self.client).records(d.zone, name=d.name, rtype=d.type)
        return Observation(observed_rrset(d.zone, d.name, d.type, records))

    def plan(self, state):
        return plan_rrset(state.world, self.desired)

    def _applier(self, client, waiter):
        """The Reconciler's applier, made only when a real run writes (a check-mode or in-sync run never imports it)."""
        from ._apply import RrsetOperations
        from .._reconcile._apply import Applier
        operations = RrsetOperations(client, wait=bool(wait_mode(self.params["wait"])), timeout=self.params["wait_timeout"])
        return Applier(client, waiter, operations={"dns_record": operations})
