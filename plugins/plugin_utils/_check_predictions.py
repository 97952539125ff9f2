# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The action of the collection's writing modules: check mode predicts across the tasks of a play.

Each module that writes (backend, frontend, bind, server, service, ip_address) has an action plugin
of its name in plugins/action/ that is this class. It runs the module as the ``normal`` action
would, and in check mode also carries the predictions of the run's earlier check-mode tasks to it
and the module's own predictions back:

* in check mode the module gets what was recorded for this host in this playbook run (option
  ``check_mode_predictions``), observes the Engine with it laid over (module_utils/_reconcile/_predictions.py)
  and returns the record with its own plan added, which is kept as the host fact
  ``anxcloud_lbaas_predictions``. Facts are what Ansible carries from task to task (tasks run in
  forked workers; within a loop, from item to item too);
* a task that runs for real changes the Engine, so the predictions made before it no longer hold:
  they are cleared (only when there are any; otherwise a real run's result is untouched).

The record names the playbook run it belongs to, so a persistent fact cache never hands one run's
predictions to the next. The value is a list, so that no ``hash_behaviour`` merges an old record
into a new one.
"""

from ansible.plugins.action import ActionBase

FACT = "anxcloud_lbaas_predictions"
OPTION = "check_mode_predictions"


def run_id(task):
    """The playbook run: every task's uuid starts with the controller process's random part (the
    same for every task and play of one run, another in the next run); only the counter after the
    last dash differs between tasks."""
    return str(getattr(task, "_uuid", "") or "").rsplit("-", 1)[0]


def latest(task_vars, run):
    """This run's newest record: the host fact, or, between the items of a loop, where the executor
    puts an item's facts for the next one (``ansible_facts.ansible_facts``, and the fact as a variable
    when facts are injected as variables). ``seq`` counts the run's updates."""
    facts = task_vars.get("ansible_facts") or {}
    found = [facts.get(FACT), (facts.get("ansible_facts") or {}).get(FACT), task_vars.get(FACT)]
    found = [f for f in found if isinstance(f, dict) and f.get("run") == run]
    return max(found, key=lambda f: int(f.get("seq") or 0)) if found else {}


def plain(value):
    """The recorded value as plain data (facts come back as the templating engine's own types)."""
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


class PredictingAction(ActionBase):

    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # tmp no longer has any effect
        task_vars = task_vars or {}
        wrap_async = self._task.async_val and not self._connection.has_native_async
        run = run_id(self._task)
        kept = latest(task_vars, run)
        records = plain(kept.get("records") or [])
        seq = int(kept.get("seq") or 0) + 1

        args = dict(self._task.args)
        args.pop(OPTION, None)   # never the user's: only what this run predicted
        check = bool(self._task.check_mode)
        if check:
            args[OPTION] = records
        out = self._execute_module(module_name=self._task.action, module_args=args, task_vars=task_vars,
                                   wrap_async=wrap_async)
        predicted = out.pop(OPTION, None)
        ((out.get("invocation") or {}).get("module_args") or {}).pop(OPTION, None)   # internal: not in results
        if check and predicted is not None and predicted != records:
            out["ansible_facts"] = {FACT: {"run": run, "seq": seq, "records": predicted}}
        elif not check and records:
            out["ansible_facts"] = {FACT: {"run": run, "seq": seq, "records": []}}
        result.update(out)
        if not wrap_async:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result
