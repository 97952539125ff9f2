# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Filter closest: the known name a misspelt one most likely means (docs: closest.yml).

The roles name the key a user probably meant in their validation messages, as the modules do for
their options (module_utils/_module/_arguments.py), with the same measure (difflib, cutoff 0.6).
"""

import difflib

from ansible.errors import AnsibleFilterError


def closest(name, candidates, cutoff=0.6):
    if not isinstance(candidates, (list, tuple)):
        raise AnsibleFilterError("closest: the candidates must be a list, got %s" % type(candidates).__name__)
    found = difflib.get_close_matches(str(name), [str(c) for c in candidates], n=1, cutoff=float(cutoff))
    return found[0] if found else ""


class FilterModule:
    def filters(self):
        return {"closest": closest}
