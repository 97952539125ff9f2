# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""CloudDNS v1 reads and writes over the collection's one Engine client (its retries, errors and counts).

Paths and bodies as go-anxcloud's clients send them (docs/engine-api-facts.md, CloudDNS): a zone is named
by its name; records are listed as a plain array filtered by ``name`` and ``type``; a changeset
``{create, delete}`` applies all or nothing. Reads only here, and the one write a record module sends.
"""

try:
    from urllib.parse import quote
except ImportError:  # pragma: no cover - Python 2 is not supported by the collection
    from urllib import quote

from .._engine._errors import NotFoundError
from .._model._failure import Failure

ZONES = "/api/clouddns/v1/zone.json"


def zone_path(zone, *rest):
    return "/".join([ZONES, quote(zone, safe="")] + list(rest))


class CloudDNS:
    def __init__(self, client):
        self.client = client

    def zones(self):
        """Every zone of the account (the paging keys of the answer do nothing: all are in ``results``)."""
        answer = self.client.request("GET", ZONES) or {}
        return answer.get("results") or [] if isinstance(answer, dict) else list(answer)

    def zone(self, zone, option="zone"):
        """The zone with its revisions, or a Failure naming ``option`` when there is none of that name."""
        try:
            return self.client.request("GET", zone_path(zone))
        except NotFoundError:
            raise Failure("%s: there is no CloudDNS zone %s in this account" % (option, zone))

    def records(self, zone, name=None, rtype=None, option="zone"):
        """The records of the zone's newest revision, filtered by exact (stored) name and type."""
        params = dict((k, v) for k, v in (("name", name), ("type", rtype)) if v)
        try:
            return self.client.request("GET", zone_path(zone, "records"), params=params or None) or []
        except NotFoundError:
            raise Failure("%s: there is no CloudDNS zone %s in this account" % (option, zone))

    def changeset(self, zone, create=(), delete=()):
        """One all-or-nothing revision: ``delete`` entries match stored records, ``create`` entries are added."""
        return self.client.request("POST", zone_path(zone, "changeset"), body={"create": list(create), "delete": list(delete)})


def live(zone):
    """Whether the zone's newest revision is live and the zone takes writes."""
    return bool(zone.get("is_editable")) and zone.get("deployment_level") == 100


def revision_state(zone):
    """(serial, state) of the zone's newest revision, (None, None) without one."""
    revisions = zone.get("revisions") or []
    if not revisions:
        return None, None
    return revisions[0].get("serial"), revisions[0].get("state")
