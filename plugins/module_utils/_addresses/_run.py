# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One owner's addresses, the ``ip_address`` module: a run of one part (``OwnerAddresses``, ``_reconcile._run``).

observe (``_observe``) -> plan (``_plan``) -> check mode: predict | apply (``_apply``) -> observe and plan again,
which must find nothing left to do. A release of an
address that a bind on any load balancer still listens on fails naming the bind, unless ``force``:
the next owner would get the address and a second load balancer would bind the same address and port.
"""

from ._observe import AddressObserver, binds_using
from ._plan import RELEASE, entry, in_use_message, plan_owner, sort_key
from ._pool import cidr_or_none
from .._model._failure import Failure
from .._model._kinds import refuse_host_bits
from .._model._names import check_hostname, check_owner, check_tag_prefix
from .._model._ownership import owner_tag
from .._reconcile._plan import Plan
from .._reconcile._run import Part, Run


def check_releases(client, plan, force=False, warn=None, ignore=()):
    """Fails when a release in ``plan`` would free an address a bind still uses (binds in ``ignore``, ids
    the same run deletes first, do not count); with ``force`` it warns instead. Returns the binds found."""
    ips = sorted(set(a.obj["address"] for a in plan if a.op == RELEASE))
    users = dict((ip, [b for b in binds if b["id"] not in ignore]) for ip, binds in binds_using(client, ips).items())
    users = dict((ip, binds) for ip, binds in users.items() if binds)
    if users:
        text = "; ".join(in_use_message(ip, binds) for ip, binds in sorted(users.items()))
        if not force:
            raise Failure("%s: releasing it would hand out an address a load balancer still serves; remove the "
                          "bind first, or set force: true" % text,
                          in_use=[dict(address=ip, binds=binds) for ip, binds in sorted(users.items())])
        if warn is not None:
            warn("%s; released anyway (force: true)" % text)
    return users


class OwnerAddresses(Part):
    """The addresses of one owner in one pool (``prepare`` resolves the pool before the run observes)."""

    key = "addresses"

    def __init__(self, client, request, check_mode, warn=None):
        self.client = client
        self.request = request   # an AddressRequest
        self.check_mode = check_mode
        self.warn = warn
        self.result = {"changed": False}
        self.state = None
        self.first = None   # the first observation: before this run wrote anything (in check mode the only one)

    def validate(self):
        req = self.request
        check_owner(req.owner, "owner")
        check_tag_prefix(req.tag_prefix, "tag_prefix")
        if req.count < 0:
            raise Failure("count must not be negative, got %d" % req.count)
        if req.state == "present" and req.pool is None:
            raise Failure("pool is required with state=present: it names the prefixes to allocate from")
        for index, entry in enumerate(req.pool or ()):
            network = cidr_or_none(entry)
            if network is not None:   # host bits set would silently mean the network around it
                refuse_host_bits(network, str(entry).strip(), "pool[%d]" % index)
        if (req.rdns_name or "").strip() and req.state == "present":
            # Surrounding blanks are dropped when it is sent, as always; inside, the name must be a host name.
            check_hostname(req.rdns_name.strip(), "rdns_name")

    def prepare(self):
        """The options checked (no request yet), then the pool's prefixes resolved and, for an allocation, read."""
        req = self.request
        self.validate()
        present = req.state == "present"
        self.tag = owner_tag(req.owner, req.tag_prefix)
        self.observer = AddressObserver(self.client, req.owner, req.tag_prefix, req.pool, req.family)
        self.family = req.family
        prefixes = self.observer.resolve()
        if present and self.family is None:
            families = sorted(set(pr.family for pr in prefixes))
            if len(families) > 1:
                raise Failure("family is required: pool has prefixes of both families (%s)"
                              % ", ".join(pr.cidr for pr in prefixes))
            self.family = families[0]
        if present:
            self.observer.resolve_pools((req.range_start, req.range_end, req.exclude))

    def summary(self, plan, done):
        mine = Plan([a for a in plan if a.kind.name == "address"])
        return [mine.summary(done=done)] if mine else []

    def report(self, outcome, diff=False):
        """The module's result keys: the owner's addresses after the run, the plan, and the diff."""
        order = self.state.prefix_order
        after = [self._entry(o) for o in sorted(outcome.after.values(), key=sort_key(order))]
        self.result.update(changed=outcome.changed, plan=outcome.plan.to_list(), addresses=after,
                           address_list=[a["address"] for a in after])   # the plain list, for templates
        if after:
            self.result["prefix"] = after[0]["prefix"]
        if self.first.elsewhere is not None:
            # read with the pool's addresses, before any write: the same in check mode and in a real run
            self.result["tagged_elsewhere"] = self.first.elsewhere
        if diff:
            before = sorted(outcome.before.values(), key=sort_key(order))
            self.result["diff"] = dict(before=self._view(before), after=self._view(after))
        return self.result

    def _rdns_asked(self):
        return self.request.rdns_name is not None and self.request.state == "present"

    def _entry(self, obj):
        out = entry(obj)
        if self._rdns_asked():   # shown as compared (no trailing dot) only when asked for
            out["rdns_name"] = obj.get("rdns_name") or ""
        return out

    def _view(self, objs):
        view = dict(owner=self.request.owner, family=self.family or "any", addresses=[o["address"] for o in objs])
        if self._rdns_asked():
            view["rdns_name"] = dict((o["address"], o.get("rdns_name") or "") for o in objs)
        return view

    def operations(self, client):
        """The address operations, imported only when a real run writes (a check-mode or in-sync run never loads
        the write code: every file a module imports is compiled again on every run)."""
        from ._apply import AddressOperations
        return {"address": AddressOperations(client, self.state, self.request.owner, self.request.tag_prefix,
                                             self.request.strategy,
                                             rdns_name=self.request.rdns_name if self._rdns_asked() else None)}

    def observe(self, earlier=()):
        self.state = self.observer.observe()
        if self.first is None:
            self.first = self.state
        return self.state

    def plan(self, state, planned=()):
        req = self.request
        plan = plan_owner(state, req.owner, req.count, req.state == "present", self.tag, req.strategy,
                          rdns_name=req.rdns_name if self._rdns_asked() else None)
        if any(a.op == RELEASE for a in plan):
            check_releases(self.client, plan, force=req.force, warn=self.warn, ignore=set(req.ignore_binds))
        return plan


def run_addresses(client, request, check_mode, warn=None, diff=False):
    """The ``ip_address`` module's run of ``request`` (an ``AddressRequest``): its result."""
    part = OwnerAddresses(client, request, check_mode, warn=warn)
    part.prepare()
    run = Run(client, check_mode, [part])
    outcome = run.run()
    result = part.report(outcome, diff=diff)
    result["summary"] = run.summary(outcome.plan, done=not check_mode) or "in sync"
    return result
