# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later


class ModuleDocFragment:
    # Waiting for the Engine's asynchronous deployment of LBaaS objects.
    DOCUMENTATION = r"""
options:
  wait:
    description:
      - Wait until every object the task created, changed or deleted is deployed (or gone).
      - An object that fails to deploy (C(DeploymentError)) is asked to redeploy once; if it fails again the task fails,
        with the Engine's reason where its answer carries one, else with the fields the object was given.
    type: bool
    default: true
  wait_timeout:
    description:
      - How long to wait in total when O(wait=true), in seconds (V(600)) or as a duration (V(90s), V(10m), V(1h)).
    type: raw
    default: 600
"""

    # The wait options of a module that waits for nothing (module_utils._model._group_options).
    IGNORED = r"""
options:
  wait:
    description:
      - Ignored. Accepted so that C(module_defaults) for C(group/anxcloud.lbaas.lbaas) that set it for the modules
        that wait apply to this one too.
    type: bool
  wait_timeout:
    description:
      - Ignored. Accepted so that C(module_defaults) for C(group/anxcloud.lbaas.lbaas) that set it for the modules
        that wait apply to this one too.
    type: raw
"""

    # The same for a module that uses O(wait_timeout) but has no O(wait) to turn waiting off (gc).
    IGNORED_FLAG = r"""
options:
  wait:
    description:
      - Ignored. Accepted so that C(module_defaults) for C(group/anxcloud.lbaas.lbaas) that set it for the modules
        that wait apply to this one too; this module always waits for what it deletes to be gone.
    type: bool
"""
