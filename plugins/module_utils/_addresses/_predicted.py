# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Check mode across tasks for IPAM addresses (the kind ``_plan.ADDRESS``, recorded as ``addresses``).

A predicted allocation is an address object of its owner at its address (it replaces an unclaimed object
there, as a claim would) and a resource carrying its tags; a predicted release is an object being deleted
(``Marked for deletion``), as the Engine shows one for minutes after the delete, so its address is not
handed out again and no owner holds it; an adopted address carries its new tags; a changed rDNS name reads
back changed. The mechanism (recording, the view that refuses writes) is ``_reconcile._predictions``.
"""

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

from ._plan import ADOPT, ALLOCATE, CHANGE, RELEASE
from .._model._ipam import DELETING, canonical, description, looks_unclaimed
from .._reconcile._plan import Placeholder, is_placeholder
from .._reconcile._predictions import Overlay, not_found


def _with_rdns(summaries, rdns):
    """Address summaries with the rDNS names earlier tasks set in place (``{identifier: name}``)."""
    return [dict(s, rdns_name=rdns[s["identifier"]]) if s.get("identifier") in rdns else s for s in summaries]


def _address_of(summary):
    try:
        return canonical(summary.get("name"))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None   # not an address: it cannot be the one allocated


class AddressOverlay(Overlay):
    section = "addresses"
    reads = ("address_list", "address_get")

    def __init__(self, recorded):
        super().__init__(recorded)

        def entries(name):
            return recorded.get(name) or []
        self.allocated = dict((a["id"], a) for a in (dict(a, id=Placeholder.parse(a["id"])) for a in entries("allocated")))
        self.released = dict((r["id"], r) for r in entries("released"))
        self.tags = dict((t["id"], list(t["tags"])) for t in entries("tags"))
        self.rdns = dict((r["id"], r["rdns_name"]) for r in entries("rdns"))   # existing addresses' new rDNS names

    def dump(self):
        if not (self.allocated or self.released or self.tags or self.rdns):
            return {}
        return {"allocated": [self.allocated[i] for i in sorted(self.allocated)],
                "released": [self.released[i] for i in sorted(self.released)],
                "tags": [{"id": i, "tags": sorted(t)} for i, t in sorted(self.tags.items())],
                "rdns": [{"id": i, "rdns_name": n} for i, n in sorted(self.rdns.items())]}

    # ---- recording ---------------------------------------------------------------------------------
    def record(self, action, after):
        obj = action.obj
        ident = Placeholder.parse(action.id)
        if action.op == ALLOCATE:
            self.allocated[ident] = {"id": ident, "address": obj["address"], "prefix_id": obj["prefix_id"],
                                     "prefix": obj["prefix"], "family": obj["family"], "owner": obj["owner"],
                                     "tags": sorted(action.tags), "rdns_name": obj.get("rdns_name") or ""}
        elif action.op == RELEASE:
            if ident in self.allocated:
                del self.allocated[ident]
            else:
                self.released[ident] = {"id": ident, "address": obj["address"], "prefix_id": obj["prefix_id"]}
        elif action.op == ADOPT:
            self.tags[ident] = sorted(set(self.tags.get(ident, [])) | set(action.tags))
        elif action.op == CHANGE:   # ip_address's rdns_name, changed in place
            name = action.changes["rdns_name"][1]
            if ident in self.allocated:
                self.allocated[ident]["rdns_name"] = name
            else:
                self.rdns[ident] = name

    # ---- reads -------------------------------------------------------------------------------------
    def address_list(self, prefix=None, version=None, search=None, status=None):
        listing = self.client.address_list(prefix=prefix, version=version, search=search, status=status)

        def wanted(entry):
            family = "v%d" % int(version) if version not in (None, "") else None
            return (prefix in (None, "", entry["prefix_id"]) and (search or "") in entry["address"]
                    and family in (None, entry.get("family", family)))
        if status not in (None, ""):
            # A released object reads as being deleted, nothing else; a predicted allocation is in no such list.
            out = [s for s in listing if s["identifier"] not in self.released]
            if status == DELETING:
                seen = set(s["identifier"] for s in out)
                out += [{"identifier": i, "name": r["address"]} for i, r in sorted(self.released.items())
                        if i not in seen and wanted(r)]
            return out
        out = list(listing)
        for ident, entry in sorted(self.allocated.items()):
            if not wanted(entry):
                continue
            # A claim takes the unclaimed object at the address over: it then holds our allocation.
            out = [s for s in out if not (_address_of(s) == entry["address"] and looks_unclaimed(s))]
            out.append({"identifier": ident, "name": entry["address"], "description_customer": description(entry["owner"]),
                        "role_text": "Default", "rdns_name": entry.get("rdns_name") or ""})
        return _with_rdns(out, self.rdns)

    def address_get(self, ident):
        ident = Placeholder.parse(ident)
        entry = self.allocated.get(ident)
        if entry is not None:
            return {"identifier": ident, "name": entry["address"], "prefix": entry["prefix_id"], "status": "Active",
                    "description_customer": description(entry["owner"]), "role_text": "Default",
                    "rdns_name": entry.get("rdns_name") or "",
                    "version": int(entry["family"][1:])}
        if is_placeholder(ident):
            raise not_found("address", ident)
        obj = self.client.address_get(ident)
        if ident in self.released:
            obj = dict(obj, status=DELETING)
        if ident in self.rdns:
            obj = dict(obj, rdns_name=self.rdns[ident])
        return obj

    # ---- core resources and tags ---------------------------------------------------------------------
    def tagged(self, tag):
        found = [(i, a["address"]) for i, a in sorted(self.allocated.items()) if tag in a["tags"]]
        return found + [(i, None) for i, tags in sorted(self.tags.items()) if tag in tags]

    def resource(self, ident):
        allocated = self.allocated.get(ident)
        if allocated is None:
            return None
        return {"identifier": ident, "name": allocated["address"], "resource_type": {"identifier": None},
                "tags": [{"name": t} for t in allocated["tags"]]}

    def tags_of(self, ident):
        return self.tags.get(ident, ())
