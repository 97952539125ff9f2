# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""gc's ``--diff`` text (pure): one line per owner, then one line per object it loses, and one per group that stays.

A person reads a collection of five owners before it runs; the owners' whole object trees, before and after,
were hundreds of lines for sixty objects. This is the same content (``removed`` and ``skipped_items`` have it
as data), at most one line per object plus one per owner::

    owner 'api' is not in the live set: 3 to remove, 5 stay (and its marker on lb1)
      - lb1: server n1.http.api
      - pool 127.0.10.0/24: address 127.0.10.3
      - zone example.com: A api.example.com. 203.0.113.7
      = lb2: 5 stay (load balancer lb2 is leased by ...)

The owner's markers (tags on load balancers that say when it was last reconciled) go on its line: they are
bookkeeping, not objects a person looks for.

It is the diff's ``prepared`` text, which Ansible prints as it is (no ``before``/``after`` headers to add).
"""


def _place(entry, default="(unknown load balancer)"):
    if entry.get("zone"):
        return "zone %s" % entry["zone"]
    if entry.get("prefix"):
        return "pool %s" % entry["prefix"]
    return entry.get("load_balancer") or default


def _header(owner, reason, gone, stay, notes, done):
    objects = [e for e in gone if e["type"] != "marker"]
    counts = ["%d %s" % (len(objects), "removed" if done else "to remove")]
    if stay:
        counts.append("%d stay" % stay)
    text = "%s: %s" % (reason or "owner '%s'" % owner, ", ".join(counts))
    markers = sorted(set(_place(e) for e in gone if e["type"] == "marker"))
    if markers:
        text += " (and its marker%s on %s)" % ("s" if len(markers) > 1 else "", ", ".join(markers))
    return text + "".join("; %s" % note for note in notes)


def _in_order(entries):
    """By place, then type in the order of removal (children first), then name: n1 before n2."""
    types = []
    for entry in entries:
        if entry["type"] not in types:
            types.append(entry["type"])
    return sorted(entries, key=lambda e: (_place(e), types.index(e["type"]), e["name"] or ""))


def _owner_lines(owner, reason, gone, stays, done):
    # a reason without objects (an owner id this collection does not write) goes on the owner's line
    notes = [s["reason"] for s in stays if not s["objects"]]
    lines = [_header(owner, reason, gone, sum(len(s["objects"]) for s in stays), notes, done)]
    lines.extend("  - %s: %s %s" % (_place(e), e["type"], e["name"]) for e in _in_order(gone) if e["type"] != "marker")
    lines.extend("  = %s: %d stay (%s)" % (_place(s, "everywhere"), len(s["objects"]), s["reason"]) for s in stays if s["objects"])
    return lines


def preview(removed, skipped, reasons, done=False):
    """The text: ``removed`` and ``skipped`` as the result has them, ``reasons``: owner -> why it is collected,
    ``done``: a real run (what went) rather than check mode (what would go)."""
    owners = sorted(set(e["owner"] for e in removed) | set(s["owner"] for s in skipped))
    lines = []
    for owner in owners:
        lines.extend(_owner_lines(owner, reasons.get(owner), [e for e in removed if e["owner"] == owner],
                                  [s for s in skipped if s["owner"] == owner], done))
    return "".join(line + "\n" for line in lines)
