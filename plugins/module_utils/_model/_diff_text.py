# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A module's ``diff`` as text a person reads: ``before`` and ``after`` rendered as YAML strings. Pure (no I/O,
nothing of the collection imported), so the module base class and the runs that render a tree of their own (the
service's) share it from the lowest layer that may hold it.

Ansible shows a string diff as a unified text diff (a dict as one JSON blob each side), so ``--diff``
points at the lines that change. Unset keys (``None``) are dropped: they are noise, not a difference.
Every module's diff passes through ``readable_diff`` once, when its result is finished (``_module._base``);
the structured data stays in the other result keys (``objects``, ``removed``, ``addresses``, ...).
"""

import json
from importlib.util import find_spec

# PyYAML is imported where a diff is rendered, not with this file: every module imports it (through
# _base), but only a run in diff mode has a diff, and importing yaml costs every other run ~15 ms.
HAS_YAML = find_spec("yaml") is not None   # PyYAML comes with ansible-core; JSON text without it
LINE = 1 << 16   # an inline leaf is never folded onto a second line


def drop_unset(value):
    """``value`` without the keys whose value is None, at every depth (lists keep their items)."""
    if isinstance(value, dict):
        return dict((k, drop_unset(v)) for k, v in value.items() if v is not None)
    if isinstance(value, (list, tuple)):
        return [drop_unset(v) for v in value]
    return value


def as_text(value, inline_leaves=False):
    """YAML block text, keys in the order the module built them; JSON text without PyYAML.

    ``inline_leaves``: a mapping or list of plain values is one line (``n1: {ip: 127.0.0.1, port: 80}``),
    never folded, so that a tree of many objects is a line per object and a diff line names its object."""
    value = drop_unset(value)
    if HAS_YAML:
        try:
            # diff mode only (see above): other runs do not compile PyYAML
            import yaml   # pylint: disable=import-outside-toplevel
        except ImportError:  # pragma: no cover - found but broken: JSON text then
            pass
        else:
            if inline_leaves:
                return yaml.safe_dump(value, default_flow_style=None, width=LINE, sort_keys=False, allow_unicode=True)
            return yaml.safe_dump(value, default_flow_style=False, sort_keys=False, allow_unicode=True)
    return json.dumps(value, indent=2) + "\n"


def readable_diff(result):
    """Renders ``result['diff']`` before/after in place (a side already text stays as it is)."""
    diff = result.get("diff")
    if not isinstance(diff, dict):
        return result
    for side in ("before", "after"):
        if side in diff and not isinstance(diff[side], str):
            diff[side] = as_text(diff[side] if diff[side] is not None else {})
    return result
