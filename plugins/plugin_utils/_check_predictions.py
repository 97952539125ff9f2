# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The action of the collection's writing modules: check mode predicts across the tasks of a play.

Each module that writes (loadbalancer, backend, frontend, bind, server, acl, rule, service, ip_address,
dns_record, dns_record_sets) has an action plugin of its name in plugins/action/ that is ``PredictingAction``. It runs
the module as the ``normal`` action
would, and in check mode also carries the predictions of the run's earlier check-mode tasks to it
and the module's own predictions back:

* in check mode the module gets what was recorded for this host in this playbook run (option
  ``check_mode_predictions``), observes the Engine with it laid over (module_utils/_reconcile/_predictions.py)
  and returns the record with its own plan added. The plugin takes it out of the result and keeps it
  in a file of the controller's own temporary directory (``PredictionStore``), one per host;
* a task that runs for real changes the Engine, so the predictions made before it no longer hold:
  that file is removed.

And a task whose result something else presents (the role ``service_loadbalancer`` prints a summary per
service) may set the variable ``anxcloud_lbaas_result_verbosity`` (also on the read-only modules whose action is
``ReportingAction``, such as service_info): below that ``-v`` count Ansible prints
only the task's status line (and warnings, and the diff), not its whole result. Ansible's own setup module
does the same (``_ansible_verbose_override``).

Why a file and not a host fact (which is how Ansible carries data from task to task): a fact is part of
the task's result, so every check-mode task printed the whole record at ``-v`` (tens of KB of internals
for two small services), and a persistent fact cache kept it after the run. The controller's temporary
directory (``DEFAULT_LOCAL_TMP``) is made once per ``ansible-playbook`` process, before the workers that
run the tasks are forked (each task of a host, and each item of a loop, runs in such a worker), is shared
by all of them (Ansible keeps its module cache there too), and is removed when the run ends: so the
record is this run's and no other's, without naming the run in it.
"""

import hashlib
import json
import os
import tempfile

from ansible import constants as C
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

OPTION = "check_mode_predictions"
RESULT_VERBOSITY = "anxcloud_lbaas_result_verbosity"


def plain(value):
    """The recorded value as plain data (task arguments come back as the templating engine's own types)."""
    if isinstance(value, dict):
        return dict((str(k), plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def quiet(shown_from, verbosity):
    """Whether the result is left out at this verbosity: ``shown_from`` (the task's ``anxcloud_lbaas_result_verbosity``,
    unset: 1, Ansible's own) is the ``-v`` count from which it is printed."""
    try:
        return shown_from is not None and verbosity < int(shown_from)
    except (TypeError, ValueError):
        return False   # not a number: printed as usual


class PredictionStore:
    """One host's predictions in this playbook run: a JSON file in the controller's temporary directory.

    The tasks of one host run one after another (in any strategy), so there is one writer at a time; the
    file is replaced whole, so a reader never sees half of one."""

    def __init__(self, host, root=None):
        root = root or os.path.join(C.DEFAULT_LOCAL_TMP, "anxcloud_lbaas_predictions")
        # the host name as a file name: hashed, so that any inventory name is one safe file name
        self.path = os.path.join(root, hashlib.sha256(str(host).encode("utf-8")).hexdigest() + ".json")

    def load(self):
        """The records, or none (no check-mode task of this host predicted anything yet in this run)."""
        try:
            with open(self.path) as handle:
                records = json.load(handle)
        except (OSError, ValueError):
            return []
        return records if isinstance(records, list) else []

    def save(self, records):
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        fd, part = tempfile.mkstemp(dir=os.path.dirname(self.path), suffix=".part")
        with os.fdopen(fd, "w") as handle:
            json.dump(records, handle)
        os.replace(part, self.path)

    def clear(self):
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass


class ReportingAction(ActionBase):
    """Runs the module of the task's name as the ``normal`` action does; below the task's
    ``anxcloud_lbaas_result_verbosity`` the output shows only its status line (``quiet``). ``module_args`` and
    ``returned`` are where a subclass adds to what goes to the module and takes from what comes back."""

    _supports_check_mode = True
    _supports_async = True

    def module_args(self, task_vars):
        return dict(self._task.args)

    def returned(self, out, task_vars):
        """``out``, the module's result, before it is the task's."""

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # tmp no longer has any effect
        task_vars = task_vars or {}
        wrap_async = self._task.async_val and not self._connection.has_native_async
        out = self._execute_module(module_name=self._task.action, module_args=self.module_args(task_vars),
                                   task_vars=task_vars, wrap_async=wrap_async)
        self.returned(out, task_vars)
        result.update(out)
        if quiet(task_vars.get(RESULT_VERBOSITY), Display().verbosity):
            result["_ansible_verbose_override"] = True   # the status line only; registered results are whole
        if not wrap_async:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result


class PredictingAction(ReportingAction):
    """A writing module's action: in check mode, the play's predictions so far go to the module and its own come
    back into the store (the module docstring)."""

    def module_args(self, task_vars):
        self.store = PredictionStore(task_vars.get("inventory_hostname") or "")
        self.records = self.store.load()
        args = super().module_args(task_vars)
        args.pop(OPTION, None)   # never the user's: only what this run predicted
        if self._task.check_mode:
            args[OPTION] = plain(self.records)
        return args

    def returned(self, out, task_vars):
        predicted = out.pop(OPTION, None)   # internal: kept in the store, never in the result Ansible shows
        ((out.get("invocation") or {}).get("module_args") or {}).pop(OPTION, None)
        check = bool(self._task.check_mode)
        if check and predicted is not None and predicted != self.records:
            self.store.save(predicted)
        elif not check and self.records:
            self.store.clear()
