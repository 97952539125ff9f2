# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later


class ModuleDocFragment:
    # Check mode across the tasks of a play (plugin_utils/_check_predictions.py, module_utils/_reconcile/_predictions.py).
    DOCUMENTATION = r"""
options:
  check_mode_predictions:
    description:
      - Internal, do not set. The collection's action plugin fills it in check mode with what the play's
        earlier check-mode tasks on this host predicted (objects deleted or created, addresses allocated or
        released, DNS records created or deleted), so that this task predicts from the world they left, as a real run would find it.
        Any value given in a task is dropped.
      - The module returns its own predictions back to the action plugin, which takes them out of the result
        and keeps them for the rest of the playbook run in the controller's temporary directory (per host;
        removed when C(ansible-playbook) ends), so they are neither printed nor set as a fact. A task of the
        collection that runs for real clears them.
    type: list
    elements: dict
attributes:
  action:
    description: Runs through an action plugin of the same name, which carries check mode predictions from task
      to task on the controller. A task that sets the variable C(anxcloud_lbaas_result_verbosity) (a number, e.g.
      in the task's C(vars)) has its whole result printed only from that many C(-v) on; below, Ansible prints its
      status line, warnings and diff (the role C(anxcloud.lbaas.service_loadbalancer) sets 3, as it prints a
      summary of its own). The registered result is whole either way.
    support: full
"""
