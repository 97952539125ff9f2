# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Check mode across tasks for CloudDNS records (the rrset kind ``_plan.RRSET``, recorded as ``dns``).

What a check-mode task would write is one changeset per rrset (``_plan.changeset``); the prediction keeps
exactly that, per zone and in the order of the tasks, and a later task's read of the zone's records
(``GET …/zone.json/<zone>/records``, filtered or not) is the Engine's answer with those changesets replayed
over it, as the Engine applies one: a delete entry removes the first record with the same name, type, value,
region and TTL, a create entry adds a record. So a predicted rrset reads back with its predicted values and
TTL, a predicted delete reads as gone, and a record of the same name that the task did not touch (another
owner's, left alone by a service's ``state: absent``) stays. Values are compared in their normal form
(``_values.stored_value``): the Engine rewrites what it stores (TXT quoting), a prediction cannot know how.
The mechanism (recording, the view that refuses writes) is ``_reconcile._predictions``.
"""

try:
    from urllib.parse import unquote
except ImportError:  # pragma: no cover - Python 2 is not supported by the collection
    from urllib import unquote

from ._clouddns import ZONES
from ._plan import changeset
from ._values import stored_value
from .._reconcile._predictions import Overlay

RECORDS = "/records"
FILTERS = (("name", "name"), ("type", "type"), ("data", "rdata"))   # query parameter -> field, as the Engine compares


def _same(record, entry):
    """Whether a delete entry names this record (as the Engine matches one: name, type, value, region, TTL)."""
    return (record.get("name") == entry["name"] and record.get("type") == entry["type"]
            and stored_value(record) == stored_value(entry)
            and (record.get("region") or "default") == (entry.get("region") or "default")
            and (record.get("ttl") or 0) == (entry.get("ttl") or 0))


def _stored(entry):
    """A create entry as the zone's records list it (a TTL of 0 is the zone's default, listed as null)."""
    return dict(identifier="(predicted)", name=entry["name"], type=entry["type"], rdata=entry["rdata"],
                ttl=entry.get("ttl") or None, comment=entry.get("comment"), region=entry.get("region") or "default",
                immutable=False)


def replayed(records, changesets):
    """``records`` (a zone's, as the Engine listed them) after ``changesets`` (``{create, delete}``) in order."""
    out = [dict(r) for r in records]
    for change in changesets:
        for entry in change["delete"]:
            found = [i for i, r in enumerate(out) if _same(r, entry)]
            if found:
                del out[found[0]]
        out.extend(_stored(entry) for entry in change["create"])
    return out


class DnsOverlay(Overlay):
    section = "dns"

    def __init__(self, recorded):
        super().__init__(recorded)
        self.changesets = [dict(c) for c in recorded.get("changesets") or []]

    def dump(self):
        return {"changesets": list(self.changesets)} if self.changesets else {}

    def record(self, action, after):
        create, delete = changeset(action)
        self.changesets.append(dict(zone=action.obj["zone"], create=create, delete=delete))

    def answers(self, path):
        return path.startswith(ZONES + "/") and (path.endswith(RECORDS) or "/" not in path[len(ZONES) + 1:])

    def get(self, path, params=None, **kwargs):
        if not path.endswith(RECORDS):
            return self._zone(path, params, **kwargs)
        records = self.client.request("GET", path, params=params, **kwargs) or []
        zone = unquote(path[len(ZONES) + 1:-len(RECORDS)])
        changesets = [c for c in self.changesets if c["zone"] == zone]
        if not changesets:
            return records
        out = replayed(records, changesets)
        for key, field in FILTERS:
            wanted = (params or {}).get(key)
            if wanted:
                out = [r for r in out if r.get(field) == wanted]
        return out

    def _zone(self, path, params=None, **kwargs):
        """A zone's answer with the records of its current revision as the predicted changesets leave them (a run that
        waits reads its records there, ``_revision.read_zone``); its state is the Engine's."""
        answer = self.client.request("GET", path, params=params, **kwargs)
        zone = unquote(path[len(ZONES) + 1:])
        changesets = [c for c in self.changesets if c["zone"] == zone]
        if not changesets or not isinstance(answer, dict):
            return answer
        out = dict(answer, revisions=[dict(r) for r in answer.get("revisions") or []])
        for revision in out["revisions"]:
            if revision.get("identifier") == out.get("current_revision") and isinstance(revision.get("records"), list):
                revision["records"] = replayed(revision["records"], changesets)
        return out
