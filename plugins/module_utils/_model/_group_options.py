# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Options of the action group that a module accepts without using them.

A play sets ``wait``/``wait_timeout`` once in ``module_defaults`` for ``group/anxcloud.lbaas.lbaas``
(the user guide and the roles do); Ansible hands them to every module of the group, and a module that
does not declare them fails with "Unsupported parameters". The modules that wait for nothing accept them
and ignore them (documented by the doc fragment ``anxcloud.lbaas.wait.ignored``). Nothing is imported
here, so a read-only module does not pull in write code by taking these.
"""

IGNORED_WAIT = dict(
    wait=dict(type="bool"),
    wait_timeout=dict(type="raw"),   # seconds or a duration (10m), as where it is used (_base.wait_argument_spec)
)


def with_ignored_wait(spec, only=None):
    """``spec`` plus the ignored wait options (``only``: the names of those to add, for a module that uses the others)."""
    out = dict(spec)
    for name, option in IGNORED_WAIT.items():
        if only is None or name in only:
            out[name] = dict(option)
    return out
