# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The live set of a gc run, and the checks that keep a mistaken one from collecting what is alive (pure).

A live set that is empty by accident (a misspelt variable, a vars file that lost its last entry) or that
names no owner found (a typo in every name) would make gc collect every owner of the prefix: refused unless
``collect_all``. A name in ``keep`` that matches no owner is most likely a typo for one that is then collected:
refused (``strict_keep``, the default), or with ``strict_keep: false`` warned about. Both before the first write,
in check mode too.
"""

import difflib

from .._model._failure import Failure


def live_set(request):
    """The owners alive (``keep`` and ``keep_new``), or None when only ``remove`` says what goes."""
    if request.keep is None and not request.keep_new:
        return [] if request.collect_all else None
    return sorted(set(request.keep or []) | set(request.keep_new or []))


def closest(name, candidates):
    """' (did you mean X?)' for the closest of ``candidates``, or ''."""
    match = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return " (did you mean %s?)" % match[0] if match else ""


def unmatched(request, found):
    """The names in ``keep`` that match no owner found (``keep_new`` names may not exist yet)."""
    return sorted(set(request.keep or []) - set(found) - set(request.keep_new or []))


def unmatched_message(request, names, found):
    live = set(live_set(request) or [])
    others = [o for o in found if o not in live]
    return ("keep names owner(s) that tag prefix '%s' does not have: %s; if a name is misspelt, the owner it meant "
            "is collected" % (request.tag_prefix, ", ".join(n + closest(n, others) for n in names)))


def check_keep(request, found, warn):
    """Warns about (``strict_keep``: refuses) names in ``keep`` that match no owner. Returns them."""
    names = unmatched(request, found)
    if names:
        text = unmatched_message(request, names, found)
        if request.strict_keep:
            raise Failure(text + ". Nothing was deleted (strict_keep: true, the default). Correct the name in keep (an "
                          "owner that is alive but not created yet goes in keep_new), or set strict_keep: false to only "
                          "warn", keep_unmatched=names, removed=[])
        warn(text)
    return names


def check_not_all(request, collected, kept, names):
    """Refuses a run whose live set keeps none of the owners found while it collects some, unless ``collect_all``.

    ``collected``: the owners this run would collect because they are not alive (not those in ``remove``),
    with something left to remove; ``kept``: the owners of the live set found; ``names``: the unmatched keep names."""
    if request.collect_all or live_set(request) is None or kept or request.keep_new or not collected:
        return
    why = "keep is empty" if not request.keep else "keep names none of them"
    if names:
        why += " (%s match no owner)" % ", ".join(names)
    raise Failure("gc would collect every owner of tag prefix '%s' it found (%s): %s. Nothing was deleted. Check the "
                  "live set (keep); to collect every owner, set collect_all: true"
                  % (request.tag_prefix, ", ".join(collected), why), keep_unmatched=names, removed=[])
