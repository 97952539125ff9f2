# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later


class ModuleDocFragment:
    # The owner tag's prefix, as every module that reads or writes one owner tag names it (service, service_info
    # and gc describe theirs with the markers and leases).
    DOCUMENTATION = r"""
options:
  tag_prefix:
    description:
      - Prefix of the owner tag.
    type: str
    default: anxlb
"""
