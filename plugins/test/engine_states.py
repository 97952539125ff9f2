# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Tests deployed and deployment_failed: Engine deployment states in a registered result (docs: deployed.yml,
deployment_failed.yml)."""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

# Engine deployment states (docs/engine-api-facts.md, "Deployment states") as the modules return them (titles) and as the Engine sends them
# ({"id": "3", "text": "Deployed", "type": 1}); type 1 is OK, 0 an error, 2 pending.
OK = "ok"
ERROR = "error"
PENDING = "pending"
TITLES = {"Deployed": OK, "Updated": OK, "DeploymentError": ERROR, "NewlyCreated": PENDING, "Updating": PENDING}
TYPES = {1: OK, 0: ERROR, 2: PENDING}
# Keys of a registered result that echo the task's own arguments (state: present) rather than the Engine's.
SKIPPED = ("invocation", "diff", "plan")


def _state(value):
    if isinstance(value, str):
        return TITLES.get(value)
    if isinstance(value, Mapping):
        kind = value.get("type")
        if str(kind) in ("0", "1", "2") and ("text" in value or "title" in value or "id" in value):
            return TYPES[int(kind)]
    return None


def states(value, found=None):
    """Every deployment state below ``value`` (a registered result, an object, a list of objects, a state)."""
    found = [] if found is None else found
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in SKIPPED:
                continue
            if key == "state" and _state(item):
                found.append(_state(item))
            else:
                states(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            states(item, found)
    return found


def _states_or_fail(value, test):
    if isinstance(value, str):
        if _state(value) is None:
            raise AnsibleFilterError("%s: %r is not an Engine deployment state (%s)" % (test, value, ", ".join(sorted(TITLES))))
        return [_state(value)]
    found = states(value)
    if not found:
        raise AnsibleFilterError("%s: found no Engine deployment state in the value; give it the registered result of an "
                                 "anxcloud.lbaas module, an object, a list of objects or a state" % test)
    return found


def deployed(value):
    """True when every deployment state in ``value`` is OK (Deployed or Updated)."""
    return all(s == OK for s in _states_or_fail(value, "deployed"))


def deployment_failed(value):
    """True when any deployment state in ``value`` is DeploymentError."""
    return any(s == ERROR for s in _states_or_fail(value, "deployment_failed"))


class TestModule:
    def tests(self):
        return {"deployed": deployed, "deployment_failed": deployment_failed}
