# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""An advisory lease per load balancer, so two playbook runs do not reconcile one at once.

The lease is a tag on the load balancer, ``<prefix>-lease=<holder>@<expiry>`` (expiry in Unix
seconds), taken only by a run that is about to write: a no-op run sends no mutating request. The
Engine has no compare-and-swap and concurrent tag writes are known to conflict (ENGSUP-5902), so
the lease is advisory (docs/reconciliation.md, "Lease"): attach ours, read the tags back, and give way if
any other live lease shows up, rather than letting the smallest holder win: a run that read the
tags before the other one attached would also win, and two writers are worse than two runs that
both stop with a clear message. A lease past its expiry belongs to a run that crashed: it is
removed, and the taker waits a moment for that run's last requests before it writes.

One implementation for every writer: the service module takes the leases of all its load balancers at
once (``acquire``: one held elsewhere stops the run), gc one load balancer at a time (``acquire_each``:
one held elsewhere leaves that load balancer out), and both tell the same things in the same words.

A lease's name is new with every run (holder and expiry), and tag names are account-level entities
on the Engine, so releasing a lease (ours, or an expired one taken over) detaches it and then
deletes its tag entity: what leases leave behind is nothing.
"""

import os
import re
import socket
import time
from datetime import datetime, timezone

from .._engine._errors import EngineError
from .._model._failure import Failure
from .._model._names import HOLDER_MAX
from .._engine._tag_entities import delete_found, forget

HOLDER_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]+")


def default_holder(owner, host=None, pid=None):
    """Who holds a lease: the service, the controller host and the process, readable in a message.
    The host name is shortened so that the holder fits the lease tag (``_names.HOLDER_MAX``)."""
    host = HOLDER_UNSAFE.sub("-", host or socket.gethostname() or "localhost").strip("-") or "localhost"
    pid = "%d" % (os.getpid() if pid is None else pid)
    room = max(1, HOLDER_MAX - len(owner) - len(pid) - 2)
    return "%s@%s:%s" % (owner, host[:room], pid)


def when(expiry):
    return datetime.fromtimestamp(expiry, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class LeaseTag:
    def __init__(self, prefix, holder, expiry):
        self.prefix = prefix
        self.holder = holder
        self.expiry = int(expiry)

    @property
    def name(self):
        return "%s-lease=%s@%d" % (self.prefix, self.holder, self.expiry)

    @classmethod
    def parse(cls, prefix, tag):
        head = "%s-lease=" % prefix
        if not tag.startswith(head) or "@" not in tag:
            return None
        holder, expiry = tag[len(head):].rsplit("@", 1)
        if not expiry.isdigit():
            return None
        return cls(prefix, holder, expiry)

    def describe(self):
        return "%s (until %s)" % (self.holder, when(self.expiry))


def leases(prefix, tags):
    return [lease for lease in (LeaseTag.parse(prefix, t) for t in tags) if lease is not None]


class Leases:
    """The leases one run holds. ``tags_of(lb_id)`` reads a load balancer's tag names; ``warn(text)``
    tells the user what a run leaves behind or took over."""

    def __init__(self, client, prefix, holder, timeout, tags_of, clock=time.time, sleep=time.sleep, takeover_wait=2.0,
                 warn=None, ahead=None):
        self.client = client
        self.prefix = prefix
        self.holder = holder
        self.timeout = timeout
        self.tags_of = tags_of
        self.clock = clock
        self.sleep = sleep
        self.takeover_wait = takeover_wait
        self.held = []          # (lb, LeaseTag) we attached
        self.seen = {}          # lb id -> its tags as read back after attaching ours
        self.taken_over = []    # expired leases of other holders we removed
        self.leftovers = []     # (tag name, error): tag entities that could not be deleted
        self.warn = warn or (lambda text: None)
        self._told = 0          # how many of taken_over were told already
        self.ahead = ahead      # a _tag_entities.Lookahead: the held leases' entities looked up while the run works

    def others(self, tags, live=True):
        now = self.clock()
        return [lease for lease in leases(self.prefix, tags)
                if lease.holder != self.holder and (lease.expiry > now) == live]

    def held_message(self, lb, lease):
        text = ("load balancer %s is leased by %s: another run is reconciling it. Retry later, or if that run is "
                "gone, remove the tag '%s' from the load balancer (%s)")
        return text % (lb["name"] or lb["id"], lease.describe(), lease.name, lb["id"])

    def acquire(self, lbs, tags_by_lb):
        """Takes the lease on every load balancer, or fails naming the holder (and releases what it took).
        ``tags_by_lb`` are the tags as observed; returns True if an expired lease was taken over.

        A live lease seen in the observed tags fails the run before anything is written. The attaches
        go one after another (tag writes are serialised), then every load balancer's tags are read
        back at once: one round trip for all of them, not one per load balancer. What this call took is
        released again when it fails; leases taken by earlier calls stay held."""
        start, before = len(self.held), len(self.taken_over)
        try:
            for lb in lbs:
                live = self.others(tags_by_lb[lb["id"]])
                if live:
                    raise Failure(self.held_message(lb, live[0]), lease_holder=live[0].holder,
                                  lease_expires=when(live[0].expiry), load_balancer=lb["name"] or lb["id"])
            ours = LeaseTag(self.prefix, self.holder, self.clock() + self.timeout)   # one name: one tag entity
            for lb in lbs:
                self.client.tag_add(lb["id"], ours.name)
                self.held.append((lb, ours))
            seen = self.client.map(lambda lb: self.tags_of(lb["id"]), lbs)
            for (lb, ours), tags in zip(self.held[start:], seen):
                self._check(lb, ours, tags, tags_by_lb[lb["id"]])
        except (Failure, EngineError):
            earlier, self.held = self.held[:start], self.held[start:]
            self.release()
            self.held = earlier
            raise
        took_over = len(self.taken_over) > before
        if took_over:
            self.sleep(self.takeover_wait)   # let the crashed run's last requests land first
        self.warn_taken_over()
        return took_over

    def acquire_each(self, lbs, tags_by_lb):
        """Takes the leases one load balancer at a time; ``{lb id: why not}`` for those it could not take
        (the others are held). ``tags_by_lb``: the tags as observed."""
        failed = {}
        for lb in lbs:
            try:
                self.acquire([lb], {lb["id"]: tags_by_lb.get(lb["id"], [])})
            except Failure as exc:
                failed[lb["id"]] = exc.msg
        return failed

    def changed(self, lbs, tags_by_lb):
        """Whether a load balancer's tags other than leases differ from the observed ones since the lease
        was taken: another run wrote there in between (its marker changed)."""
        def others(tags):
            return sorted(t for t in tags if LeaseTag.parse(self.prefix, t) is None)
        return any(others(self.seen[lb["id"]]) != others(tags_by_lb.get(lb["id"], [])) for lb in lbs if lb["id"] in self.seen)

    def warn_taken_over(self):
        for lb, lease in self.taken_over[self._told:]:
            self.warn("took over the expired lease of %s on load balancer %s: that run ended without releasing it"
                      % (lease.describe(), lb["name"] or lb["id"]))
        self._told = len(self.taken_over)

    def warn_left(self, left):
        """Tells of leases that stay (``left``: [(lb, lease)]) and of released ones whose tag entity stays."""
        for lb, lease in left:
            self.warn("the lease tag '%s' stays on load balancer %s until %s: it could not be removed"
                      % (lease.name, lb["name"] or lb["id"], when(lease.expiry)))
        for name, exc in self.leftovers:
            self.warn("the released lease tag '%s' could not be deleted from the account (%s); it is on no load "
                      "balancer and can be deleted by hand" % (name, exc))
        self.leftovers = []

    def _check(self, lb, ours, tags, observed):
        self.seen[lb["id"]] = tags
        if ours.name not in tags:
            # The Engine accepted the attach but does not show it: no lease, so no writing.
            raise Failure("could not take the lease on load balancer %s: the tag '%s' is not on it after attaching it"
                          % (lb["name"] or lb["id"], ours.name), load_balancer=lb["name"] or lb["id"])
        live = self.others(tags)
        if live:   # another run attached meanwhile: both give way rather than both write
            raise Failure(self.held_message(lb, live[0]), lease_holder=live[0].holder,
                          lease_expires=when(live[0].expiry), load_balancer=lb["name"] or lb["id"])
        for expired in self.others(observed, live=False):
            self.client.tag_remove(lb["id"], expired.name)
            self.taken_over.append((lb, expired))
            self._forget(expired)

    def look_ahead(self):
        """Starts the lookups of the held leases' tag entities (``ahead``), so that a release is left with the
        detach and the delete. Read only: a lease's name is unique to this run and its entity exists once it is
        attached."""
        if self.ahead is not None:
            self.ahead.start([lease.name for _lb, lease in self.held])

    def _forget(self, lease):
        """Deletes a released lease's tag entity. Its name is unique to one run (holder, expiry), so no
        other resource carries it; a failure leaves one entity, reported, never a failed run."""
        self.forget_entities([lease], None)

    def release(self):
        """Removes our lease tags and their tag entities; returns the leases that could not be removed
        (they expire on their own). Entities that could not be deleted are in ``leftovers``."""
        removed, left = self.remove_tags()
        for lease in removed:
            self._forget(lease)
        return left

    def remove_tags(self):
        """Detaches our lease tags (one tag write after another); returns (the released leases, [(lb, lease)]
        that could not be removed). The leases one ``acquire`` took share a name (and so a tag entity): released
        once, and only when no load balancer keeps it. Their entities are for ``forget_entities``."""
        removed, left = [], []
        for lb, lease in self.held:
            try:
                self.client.tag_remove(lb["id"], lease.name)
            except EngineError:
                left.append((lb, lease))
                continue
            removed.append(lease)
        self.held = []
        kept = set(lease.name for _lb, lease in left)
        return list(dict((lease.name, lease) for lease in removed if lease.name not in kept).values()), left

    def forget_entities(self, removed, found):
        """Deletes the entities of removed leases, as ``lookup`` found them earlier (``found``, or looked up
        ahead: ``ahead``; None: look now)."""
        def one(lease):
            try:
                entities = found.get(lease.name) if found else None
                if entities is None and self.ahead is not None:
                    entities = self.ahead.found(lease.name)
                if entities is None:
                    forget(self.client, lease.name, check_carriers=False)
                else:
                    delete_found(self.client, entities)
            except EngineError as exc:
                self.leftovers.append((lease.name, exc))
        self.client.map(one, removed)
