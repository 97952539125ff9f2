# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Full listings: LBaaS objects read from the listing itself where the Engine offers them (docs/engine-api-facts.md,
"Lists and paging"; the api_full_listings option).

Anexia's newer Go SDK asks LBaaS listings for whole objects with ``attributes=all`` (go-anxsdk ``ListFull``, whose
items are the single GETs' types); whether the v1 listings this client reads honour it is not known. So every
LBaaS listing asks, and what the answer holds decides, entry by entry:

* an entry carrying every key the kind's observation reads (``Kind.answer_keys``: identifier, name, the parent link,
  the compared fields, the state) stands for the GET of its object (``listed_objects``): no request;
* an entry lacking any of them is read by its GET, as before, and the client stops asking for that kind for the rest
  of the run (``lacking``): an Engine that ignores the parameter costs nothing and is asked once per kind;
* an Engine that refuses the parameter (400 or 422 naming ``attributes``) gets the same listing again without it, and
  no listing of the run asks again: one request more per run at most, as the first listing that asks goes out alone
  (``asks`` holds the others until its answer tells whether the Engine takes the parameter).
"""

import threading

PARAMETER = {"attributes": "all"}


def refuses_parameter(exc):
    """Whether an error answer refuses the ``attributes`` parameter itself (a 400 or 422 naming it)."""
    named = "attributes" in (exc.validation or {}) or "attributes" in (exc.message or "")
    return exc.status in (400, 422) and named


class FullListings:
    """What one client learnt this run about the Engine's full listings; thread-safe."""

    def __init__(self, wanted=True):
        self.wanted = bool(wanted)   # api_full_listings: false asks never and reads every object by its GET
        self.refused = False         # the Engine refused the parameter: no listing of the run asks again
        self.lacking = set()         # kinds whose listing entries lacked what their observation reads
        self.long = {}               # kind -> pages its account-wide listing announced (None: not said), when too many
        self._accepted = False       # a listing that asked was answered: the Engine takes the parameter
        self._probing = False        # the first listing that asks is in flight
        self._cond = threading.Condition()

    def asks(self, kind):
        """Whether a listing of ``kind`` asks for whole objects now. While the Engine's answer to the parameter is not
        known, the first caller asks and the others wait for its answer (a refusal costs one request, not one per
        listing that went out meanwhile); a caller told True must call ``answered`` when its listing ended."""
        with self._cond:
            while True:
                if not self.wanted or self.refused or kind in self.lacking:
                    return False
                if self._accepted or not self._probing:
                    self._probing = True
                    return True
                self._cond.wait()

    def answered(self, taken):
        """The end of a listing that asked: ``taken`` True (answered), False (the parameter refused), None (failed
        otherwise: the next listing asks again)."""
        with self._cond:
            if taken:
                self._accepted = True
            elif taken is False:
                self.refused = True
            self._probing = False
            self._cond.notify_all()

    def lacks(self, kind):
        """Entries of ``kind`` lacked what their observation reads: the Engine does not offer full listings of it."""
        with self._cond:
            self.lacking.add(kind)

    @property
    def known_full(self):
        """Whether full entries may stand for GETs at all (``wanted``, and not refused)."""
        return self.wanted and not self.refused

    def too_long(self, kind, pages):
        """Whether the account-wide listing of ``kind`` is known this run to take more than ``pages`` pages (or not to
        say how many): a first page already read says so, and asking again would only cost that page again."""
        with self._cond:
            if kind not in self.long:
                return False
            known = self.long[kind]
            return known is None or known > pages

    def longer(self, kind, known):
        """The account-wide listing of ``kind`` announced ``known`` pages (None: it did not say), more than wanted."""
        with self._cond:
            self.long[kind] = known

    def taken(self, kind):
        """Whether a listing of ``kind`` is known to ask for whole objects now, at no wait: wanted, not refused, a
        listing that asked was answered already, and no listing of ``kind`` lacked what its observation reads."""
        with self._cond:
            return self.wanted and not self.refused and self._accepted and kind not in self.lacking


def listed_objects(client, kind, entries):
    """The whole objects of ``entries`` (of one LBaaS listing; an identifier string stands for an object known by its
    identifier only), in their order, as ``client.lbaas_get_many`` of their identifiers would answer them: an entry
    that carries every key of ``kind.answer_keys`` (``kind``: a ``_model._kind.Kind``) stands for its GET; the others
    are read by their GET (concurrently; one deleted since the listing is left out), and an entry lacking a key
    stops the client asking for full listings of the kind. ``client`` may be a view of the client (check mode's,
    service_info's): its ``lbaas_get_many`` reads the others."""
    whole = _whole(client.full_listings, kind, entries)
    read = [_identifier(entry) for entry, ok in zip(entries, whole) if not ok]
    got = dict((obj["identifier"], obj) for obj in client.lbaas_get_many(kind.name, read)) if read else {}
    return [entry if ok else got[_identifier(entry)] for entry, ok in zip(entries, whole) if ok or _identifier(entry) in got]


def _whole(full, kind, entries):
    """Per entry, whether it stands for its object's GET: a listing entry carrying every key the kind reads, while full
    entries are used at all (``known_full``). A listing entry lacking one tells the client the Engine does not offer
    full listings of the kind; an identifier says nothing about listings."""
    carries = [not isinstance(entry, str) and all(key in entry for key in kind.answer_keys) for entry in entries]
    if any(not isinstance(entry, str) and not ok for entry, ok in zip(entries, carries)):
        full.lacks(kind.name)
    return [full.known_full and ok for ok in carries]


def _identifier(entry):
    return entry if isinstance(entry, str) else entry["identifier"]


def children_by_parent(client, kind, parent_kind, parents, expected=0):
    """Parent identifier -> the entries of its children of ``kind`` (a ``_model._kind.Kind``: ``kind.parent`` names
    the link to the parent), for each of ``parents`` (listing entries of ``parent_kind``), as
    ``client.lbaas_list(kind.name, **{kind.parent: identifier})`` answers them, read from ONE listing of the whole
    account; None where that listing is not worth it or does not tell, and the caller lists per parent as before.

    Why: observing a load balancer lists each child kind once per parent (binds per frontend, servers per backend),
    the most requests of a run that changes nothing. Where the Engine lists whole objects, one listing without a
    parent filter answers them all, and its entries of other parents are dropped unread (never read by their GET).
    The account may be big, though: the listing is read whole only when its first page says it takes at most as many
    pages as there are parents (no more requests than the per-parent listings); else it stops after that first page
    (``lbaas_list_within``), and the client remembers the pages announced (``FullListings.too_long``): a big account
    costs one request more per child kind and run, at most, not per load balancer. Tried only where it
    can pay off: two parents or more, the kind's listings known to come whole this run (``FullListings.taken``),
    ``expected`` children (those the caller declares under these parents: the listing holds them once they exist)
    filling no more pages than there are parents, and the parents' own entries whole (an Engine that ignores
    ``attributes=all`` lists parents as identifier and name, and children so too: the account-wide listing would be a
    request wasted)."""
    ids = [parent["identifier"] for parent in parents]
    if not _worth_a_look(client, kind, parent_kind, parents, expected):
        return None
    listing = client.lbaas_list_within(kind.name, len(ids))
    if listing is None:
        return None
    if any(kind.parent not in entry for entry in listing):
        # An entry without the parent link cannot be placed: only the per-parent listings' filter tells. It lacks a
        # key the kind's observation reads, so the kind is not asked whole again this run (as ``listed_objects``).
        client.full_listings.lacks(kind.name)
        return None
    grouped = dict((ident, []) for ident in ids)
    for entry in listing:
        found = grouped.get(_link(entry[kind.parent]))
        if found is not None:   # a child of a parent not asked for: dropped unread
            found.append(entry)
    return grouped


def _worth_a_look(client, kind, parent_kind, parents, expected):
    """Whether ``children_by_parent`` may send its account-wide listing at all (its docstring says when)."""
    count = len(parents)
    if count < 2 or not client.full_listings.taken(kind.name) or client.full_listings.too_long(kind.name, count):
        return False
    if -(-expected // client.page_size) > count:   # the declared children alone fill more pages: not worth a look
        return False
    return all(isinstance(parent, dict) and all(key in parent for key in parent_kind.answer_keys) for parent in parents)


def _link(value):
    """The identifier a link names, given as ``{identifier, name}`` (answers) or an identifier string."""
    return value.get("identifier") if isinstance(value, dict) else value
