# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How gc's plan reaches the Engine: the one ``Applier``, owner by owner, with the operations of its kinds.

An owner's LBaaS objects go as every module deletes them (children first, bounded passes) and are
waited for until gone; then its markers (``MarkerOperations``), then its addresses, each only if no
bind listens on it now (``ReleaseOperations``). An owner whose removal fails is recorded and the next
one goes on; a rate limit stops all.
"""

from .._addresses._observe import binds_using
from .._addresses._plan import in_use_message
from .._engine._errors import EngineError
from .._engine._tag_entities import forget
from ._plan import MARKER
from .._model._failure import Failure
from .._model._kind import Operations


class MarkerOperations(Operations):
    """A marker goes once what it vouches for is gone: the tag off the load balancer, then its tag entity
    (a failure to delete that is a warning: the entity carries nothing)."""

    after_gone = True

    def __init__(self, client, warn):
        self.client = client
        self.warn = warn

    def delete(self, applier, action):
        self.client.tag_remove(action.lb["id"], action.obj["name"])
        try:
            forget(self.client, action.obj["name"])
        except EngineError as exc:
            self.warn("the marker tag '%s' could not be deleted from the account (%s)" % (action.obj["name"], exc))


class ReleaseOperations(Operations):
    """Releasing a collected owner's addresses once its binds are gone. The snapshot said no other bind
    listens on them; a bind made since then wins over the release (the owner's removal then fails)."""

    after_gone = True
    sequential = True

    def __init__(self, client):
        self.client = client

    def delete(self, applier, action):
        self.client.address_delete(action.id)

    def delete_all(self, applier, actions):
        users = binds_using(self.client, sorted(set(a.obj["address"] for a in actions)))
        busy = [a for a in actions if users.get(a.obj["address"])]
        for action in actions:
            if action not in busy:
                self.delete(applier, action)
        if busy:
            raise Failure("; ".join(in_use_message(a.obj["address"], users[a.obj["address"]]) for a in busy) +
                          " (bound since the snapshot); not released")
        return []


def gc_operations(client, warn):
    """The operations of gc's own kinds: markers and address releases (the run applies owner by owner)."""
    return {MARKER: MarkerOperations(client, warn), "address": ReleaseOperations(client)}
