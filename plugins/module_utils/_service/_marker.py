# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The "last reconciled" marker a service leaves on each of its load balancers.

A tag ``<prefix>-reconciled.<service>=<scheme>,<collection version>,<declaration hash>,<time>``. The scheme
is the version of the naming and tag conventions (docs/reconciliation.md): a collection that finds a
marker of a higher scheme would misread the objects a newer release made, so it refuses to act,
the way Monogon's reconciler honours a minimum compatible release in its versioned status. The
declaration hash says which declaration the objects were last made for; the time (Unix seconds)
changes with every writing run, so a run that finds the marker changed while it waited for its lease
knows another run wrote in between.

The time is what makes that comparison correct, so it stays: without it, two runs applying the same
declaration would write the same name, and a run that planned before the other wrote would not see
the change and apply a stale plan (duplicate objects). A writing run's time is also strictly newer
than the marker it replaces (``after``), so two writing runs within one second differ too. The cost
of a new name per run, a tag entity per run, is paid back by deleting the replaced marker's entity
once no load balancer carries it (``_tag_entities.forget``): what markers leave behind is one
current marker per service and load balancer.
"""

import hashlib
import json
import time

from .._engine._errors import EngineError
from .._model._failure import Failure
from .._lbaas._lease import when
from .._model._kind import AFTER_WRITES, DELETE, TAG, Kind
from .._model._kinds import KINDS
from .._model._names import TAG_MAX
from .._model._ownership import marker_head, placement_head
from .._engine._version import COLLECTION_VERSION

SCHEME = 1
MARKER = "marker"
MARK = "mark"   # a service run's marker writes on one load balancer: attach this run's, remove the ones it replaces


class MarkerKind(Kind):
    """The marker as a plan's bookkeeping (``Kind.bookkeeping``): shown in a plan, not counted as an object nor
    predicted. Identity: the load balancer and the tag. Two operations:

    * a service run's ``mark``, one per load balancer, which runs ``AFTER_WRITES``: once every object write of
      the plan returned and the tag writes of its load balancer succeeded, alongside the wait
      (``_service._guard.MarkerWrites``);
    * gc's ``delete``, once the objects it vouches for are gone (``deleted_after``: a level of its own).

    Why not after the wait: what a marker vouches for is configuration written and tagged, not deployed. A later
    run of the same declaration (or after an ``open`` one) skips listing the ACLs and rules of the frontends of ports
    without an allow-list (``_service._observe``): that rests on this run having created none there and having
    had the DELETE of every one it found accepted (the Engine then removes it, docs/engine-api-facts.md,
    "Asynchronous writes"). Nothing else is skipped: the frontends, backends, binds and servers, and the ACLs and
    rules of ports with an allow-list, are read on every run with their state, so an object whose deployment
    failed (DeploymentError, the configuration kept) is seen and redeployed by the next run whether a marker was
    written or not. gc reads the marker's time, which is the planning time either way. The one thing a wait
    would add is seeing a deleted ACL or rule actually gone: an accepted DELETE that the Engine never carries
    out is not a documented behaviour; the run's wait then fails (timed out waiting for it to be gone), loudly."""

    bookkeeping = True
    effects = {MARK: TAG, DELETE: DELETE}
    runs = {MARK: AFTER_WRITES}
    deleted_after = tuple(KINDS)   # every LBaaS kind: removed after the objects it vouches for

    def identity(self, obj):
        return tuple(obj["id"].split("/", 1))

    def entry(self, action):
        """A ``mark`` reads like an object's line (its name the marker's head: the tag itself carries the time of
        the run, and check mode's line is the real run's); a removal as gc reports it. The tag has no identifier."""
        if action.op == MARK:
            return dict(super().entry(action), id=None)
        return dict(type=self.name, name=action.obj.get("name"), id=None, owner=action.owner, reason=action.reason,
                    load_balancer=(action.lb or {}).get("name"))


MARKER_KIND = MarkerKind(MARKER)


def declaration_hash(desired):
    """A short, stable hash of the normalized declaration (the desired objects, not the user's text)."""
    text = json.dumps(desired, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# The optional fifth field: whether the declaration had any allow-list (ACLs and rules). "open" lets the next
# runs skip listing ACLs and rules of ports without one (_service/_observe); a marker without it says nothing.
OPEN, ALLOW = "open", "allow"


class Marker:
    def __init__(self, prefix, service, scheme, version, digest, stamp=0, tag=None, open_=None):
        self.tag = tag          # the tag as found (kept verbatim, also when it does not parse)
        self.prefix = prefix
        self.service = service
        self.scheme = scheme
        self.version = version
        self.digest = digest
        self.stamp = stamp
        self.open = open_       # True: no allow-list in that declaration; False: some; None: not said

    @classmethod
    def ours(cls, prefix, service, digest, clock=time.time, after=0, open_=None):
        """This run's marker; its time is later than ``after`` (the newest marker it replaces). ``open_``
        (see OPEN) is left out when the tag would be too long with it: the marker then says nothing of it."""
        marker = cls(prefix, service, SCHEME, COLLECTION_VERSION, digest, max(int(clock()), int(after) + 1),
                     open_=open_)
        if len(marker.name) > TAG_MAX:
            marker.open = None
        if len(marker.name) > TAG_MAX:
            raise Failure("the marker tag '%s' would be longer than the Engine's %d characters; use a shorter "
                          "tag_prefix or service name" % (marker.name, TAG_MAX))
        return marker

    @property
    def name(self):
        if self.tag is not None:
            return self.tag
        flag = "" if self.open is None else "," + (OPEN if self.open else ALLOW)
        return self.head(self.prefix, self.service) + "%d,%s,%s,%d%s" % (self.scheme, self.version, self.digest,
                                                                         self.stamp, flag)

    @staticmethod
    def head(prefix, service):
        return "%s%s=" % (marker_head(prefix), service)

    @classmethod
    def find(cls, prefix, service, tags):
        """The service's markers among a load balancer's tags (normally one)."""
        head = cls.head(prefix, service)
        found = []
        for tag in tags:
            if not tag.startswith(head):
                continue
            parts = tag[len(head):].split(",")
            scheme = int(parts[0]) if parts[0].isdigit() else None
            parts += [""] * (5 - len(parts))
            stamp = int(parts[3]) if parts[3].isdigit() else 0
            open_ = {OPEN: True, ALLOW: False}.get(parts[4])
            found.append(cls(prefix, service, scheme, parts[1] or "?", parts[2], stamp, tag, open_))
        return found

    def as_dict(self):
        return dict(scheme=self.scheme, collection_version=self.version, declaration_hash=self.digest,
                    reconciled_at=when(self.stamp) if self.stamp else None)   # ISO 8601 for people; the tag keeps Unix seconds


# What a service placed outside its load balancers, remembered beside its marker: one tag per placement on each of
# its load balancers, ``<prefix>-placed.<service>=<family>:<where>`` (``dns:<zone>``: its name's records are in that
# zone). A run that no longer places it there (a new dns.zone, dns removed, state absent) finds the zone there and
# deletes its records in the same run; gc finds a dead owner's names there first. Written with the marker (a writing
# run), and like it only once every write of the plan returned.
DNS = "dns"


def placement_tag(prefix, service, family, where, option="dns.zone"):
    """The tag remembering a placement; a Failure naming ``option`` when it would be longer than the Engine keeps."""
    tag = "%s%s=%s:%s" % (placement_head(prefix), service, family, where)
    if len(tag) > TAG_MAX:
        raise Failure("%s: the tag that remembers it on the load balancers ('%s') would be longer than the Engine's %d "
                      "characters; use a shorter tag_prefix, service name or zone" % (option, tag, TAG_MAX))
    return tag


def placements(prefix, service, tags):
    """``[(family, where, tag)]`` of the service's placement tags among a load balancer's tags."""
    head = "%s%s=" % (placement_head(prefix), service)
    out = []
    for tag in tags:
        if tag.startswith(head) and ":" in tag[len(head):]:
            family, where = tag[len(head):].split(":", 1)
            out.append((family, where, tag))
    return out


def refuse_newer(lb, markers):
    """Fails when a newer, incompatible collection reconciled the service on ``lb`` last."""
    for marker in markers:
        if marker.scheme is None or marker.scheme > SCHEME:
            raise Failure(
                "service %s on load balancer %s was last reconciled by anxcloud.lbaas %s with naming scheme %s; "
                "this collection (%s) knows scheme %d and would misread those objects: upgrade the collection"
                % (marker.service, lb["name"] or lb["id"], marker.version, marker.scheme if marker.scheme else "unknown",
                   COLLECTION_VERSION, SCHEME), marker=marker.name)


class LbMarks:
    """The marker writes of one load balancer at the end of a writing run: attach ``new`` (None: the service
    is gone from there), then remove the ``olds`` it replaces. A failed write does not stop the next one, so
    a marker that could not be attached still takes the replaced one away: a marker left alone from an
    earlier declaration would vouch for what this run changed (``_service/_observe``, closed frontends), and
    any write that lands shows a run waiting for the lease that this one wrote."""

    def __init__(self, lb, new, olds, place=(), unplace=()):
        self.lb = lb
        self.new = new
        self.olds = list(olds)
        self.place = list(place)       # placement tags to attach (``placement_tag``)
        self.unplace = list(unplace)   # placement tags to remove: the run no longer places that there
        self.failed = []   # (tag name, attach: bool, EngineError)

    def write(self, client):
        if self.new is not None:
            self._one(client.tag_add, self.new, True)
        for tag in self.place:
            self._one(client.tag_add, tag, True)
        for old in self.olds + self.unplace:
            self._one(client.tag_remove, old, False)

    def _one(self, write, name, attach):
        try:
            write(self.lb["id"], name)
        except EngineError as exc:
            self.failed.append((name, attach, exc))

    def not_attached(self):
        return [(name, exc) for name, attach, exc in self.failed if attach]

    def not_removed(self):
        return [name for name, attach, _exc in self.failed if not attach]


def marker_outcome(service, marks, warn):
    """Tells what the failed marker writes of ``marks`` (an ``LbMarks`` after ``write``) mean; returns the
    text of a failure when a person must act, else None.

    The objects are converged either way, so the run stays changed. A marker that could not be attached is
    missing until the next writing run: later runs list the ACLs and rules of every port there meanwhile (no
    marker vouches for them), which is correct, only two requests per port dearer. A replaced marker that
    could not be removed beside the new one vouches for nothing the new one does not (every marker must
    vouch), and the next writing run removes it. But a replaced marker left alone, because the new one could
    not be attached either, names a declaration this run replaced: later runs would trust it and could skip
    the ACLs and rules this run made, and a run that read the load balancer before this one would not see
    that this one wrote. That needs a person: the tag removed by hand."""
    lb = marks.lb["name"] or marks.lb["id"]
    missing = marks.not_attached()
    stale = marks.not_removed()
    if missing and stale:
        return ("service %s: the plan was applied and its objects on load balancer %s are as declared, but the marker "
                "tag '%s' could not be attached (%s) nor the replaced marker tag %s removed: that tag names a "
                "declaration this run replaced and later runs would trust it; remove it from the load balancer (%s) "
                "by hand" % (service, lb, missing[0][0], missing[0][1], ", ".join("'%s'" % n for n in stale),
                             marks.lb["id"]))
    for name, exc in missing:
        warn("service %s: its objects on load balancer %s are as declared, but the marker tag '%s' could not be "
             "attached (%s); the next run that changes something attaches one, and until then runs read the ACLs "
             "and rules of all its ports there" % (service, lb, name, exc))
    for name, exc in [(n, e) for n, attach, e in marks.failed if not attach]:
        then = ("the new marker is attached and the next writing run removes it" if marks.new is not None else
                "nothing of the service is left there, so it is bookkeeping only: remove it by hand")
        warn("service %s: the replaced marker tag '%s' could not be removed from load balancer %s (%s); %s"
             % (service, name, lb, exc, then))
    return None
