# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""gc's ``--diff`` text (pure): one line per owner, then one line per object it loses, and one per group that stays.

A person reads a collection of five owners before it runs; the owners' whole object trees, before and after,
were hundreds of lines for sixty objects. This is the same content (``removed`` and ``skipped_items`` have it
as data), at most one line per object plus one per owner::

    owner 'api' is not in the live set: 6 to remove, 5 stay
      - lb1: server n1.http.api
      - lb1: marker anxlb-reconciled.api
      - pool 127.0.10.0/24: address 127.0.10.3
      = lb2: 5 stay (load balancer lb2 is leased by ...)

It is the diff's ``prepared`` text, which Ansible prints as it is (no ``before``/``after`` headers to add).
"""


def _place(entry, default="(unknown load balancer)"):
    if entry.get("prefix"):
        return "pool %s" % entry["prefix"]
    return entry.get("load_balancer") or default


def _name(entry):
    if entry["type"] == "marker":
        return (entry["name"] or "").split("=", 1)[0]   # the tag's key: its value is the marker's internals
    return entry["name"]


def _header(owner, reason, gone, stay, notes, done):
    counts = ["%d %s" % (len(gone), "removed" if done else "to remove")]
    if stay:
        counts.append("%d stay" % stay)
    text = "%s: %s" % (reason or "owner '%s'" % owner, ", ".join(counts))
    return text + "".join("; %s" % note for note in notes)


def preview(removed, skipped, reasons, done=False):
    """The text: ``removed`` and ``skipped`` as the result has them, ``reasons``: owner -> why it is collected,
    ``done``: a real run (what went) rather than check mode (what would go)."""
    owners = sorted(set(e["owner"] for e in removed) | set(s["owner"] for s in skipped))
    lines = []
    for owner in owners:
        gone = [e for e in removed if e["owner"] == owner]
        stays = [s for s in skipped if s["owner"] == owner]
        # a reason without objects (an owner id this collection does not write) goes on the owner's line
        notes = [s["reason"] for s in stays if not s["objects"]]
        lines.append(_header(owner, reasons.get(owner), gone, sum(len(s["objects"]) for s in stays), notes, done))
        lines.extend("  - %s: %s %s" % (_place(e), e["type"], _name(e)) for e in gone)
        lines.extend("  = %s: %d stay (%s)" % (_place(s, "everywhere"), len(s["objects"]), s["reason"]) for s in stays if s["objects"])
    return "".join(line + "\n" for line in lines)
