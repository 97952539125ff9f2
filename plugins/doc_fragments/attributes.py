# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later


class ModuleDocFragment:
    # Standard attributes (https://docs.ansible.com/ansible/latest/dev_guide/developing_modules_documenting.html)
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in C(check_mode) and return changed status prediction without modifying target.
  diff_mode:
    description:
      - Will return details on what has changed (or possibly needs changing in C(check_mode)), when in diff mode.
      - The diff's C(before) and C(after) are YAML text (load balancers and linked objects by name, unset fields left out),
        so that C(--diff) shows the lines that change; the same data is in the other return values.
"""

    ACTIONGROUP = r"""
options: {}
attributes:
  action_group:
    description: Use C(group/anxcloud.lbaas.lbaas) in C(module_defaults) to set defaults for this module.
    support: full
    membership:
      - anxcloud.lbaas.lbaas
"""

    INFO_MODULE = r"""
options: {}
attributes:
  check_mode:
    support: full
    details:
      - This action does not modify state.
  diff_mode:
    support: N/A
    details:
      - This action does not modify state.
"""
