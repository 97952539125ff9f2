# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Deleting the account-level tag a lease or a replaced marker leaves behind.

On the Engine a tag name is an entity of the account, created on the fly when first attached and kept
after it is detached (go-anxcloud pkg/core/tags/tags.go lists and deletes them; Terraform's
anxcloud_tag deletes one with the service identifier of its first organisation assignment). Leases
and markers get a new name on every writing run, so without this they would pile up.

Only names the caller built as its own lease or marker come here, never an owner tag: owner tags are
shared by every object of a service and stay.
"""

from ._errors import EngineError, NotFoundError


def names_like(client, query):
    """The names of the account's tag entities the Engine matches to ``query`` (one request; its match is not
    known to be exact, so callers compare the names themselves)."""
    return [t.get("name") or "" for t in client.tag_entities(query)]


def still_carried(client, name):
    """Whether any resource carries exactly ``name`` (the listing's match is confirmed on each resource)."""
    for resource in client.resources_by_tag(name):
        if name in client.resource_tags(resource["identifier"]):
            return True
    return False


def forget(client, name, check_carriers=True):
    """Deletes the tag entity named exactly ``name``; returns how many assignments were deleted.

    With ``check_carriers`` nothing is deleted while a resource still carries the tag (a marker name
    is shared by the load balancers one run marked). Raises EngineError; callers treat a failure as
    a leftover to report, not as a failed run.
    """
    if check_carriers and still_carried(client, name):
        return 0
    return delete_found(client, lookup(client, name))


def lookup(client, name):
    """The tag entities named exactly ``name``: ``[(identifier, [service identifiers])]``. Only reads,
    so it can go out while the tag is still being detached."""
    try:
        found = [t for t in client.tag_entities(name) if t.get("name") == name]
    except NotFoundError:
        # No tag entity endpoint: nothing to delete. (go-anxcloud's List reads an error body as an
        # empty list, too.)
        return []
    out = []
    for entity in found:
        info = client.tag_entity_get(entity["identifier"]) or {}
        services = []
        for assignment in info.get("organisation_assignments") or []:
            ident = ((assignment or {}).get("service") or {}).get("identifier")
            if ident and ident not in services:
                services.append(ident)
        out.append((entity["identifier"], services))
    return out


def delete_found(client, found):
    """Deletes what ``lookup`` found (every assignment); returns how many were deleted."""
    deleted = 0
    for ident, services in found:
        for service in services or [""]:
            if client.tag_entity_delete(ident, service):
                deleted += 1
    return deleted


class Lookahead:
    """Lookups (``lookup``) sent ahead of the deletes they serve: a lease's tag entity exists from the moment the
    lease is attached, a replaced marker's from long before the run, and their names are the run's own, so the
    reads can go out while the run writes and waits, and its end is left with the detach and the delete.

    ``start(names)`` sends them on the client's pool and returns at once; ``found(name)`` is what ``lookup``
    found (waiting for it if it still runs), or None: not looked up ahead, the lookup failed, or it found no
    entity (the caller then looks again, so an entity that only showed up late is still deleted). What was found
    is only what a later lookup would find: which entity to delete. Whether to delete it (ownership, a marker no
    load balancer carries any more) is decided by the caller at the time of the delete, as without it."""

    def __init__(self, client):
        self.client = client
        self.started = {}   # name -> its Started lookup

    def start(self, names):
        for name in names:
            if name not in self.started:
                self.started[name] = self.client.start(self._look, [name])

    def _look(self, name):
        try:
            return lookup(self.client, name)
        except EngineError:
            return None   # looked up again when deleting

    def found(self, name):
        started = self.started.get(name)
        return (started.results()[0] or None) if started is not None else None

    def entities(self, name):
        """What was found ahead for ``name``, else a lookup now; None when that failed too (looked up again when
        deleting)."""
        found = self.found(name)
        return found if found is not None else self._look(name)
