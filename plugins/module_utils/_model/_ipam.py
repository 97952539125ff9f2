# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""IPAM address objects as the Engine shows them (pure): the address in canonical form, what an allocation's
description says, and the statuses that make an object neither held nor free (being deleted) or free to claim
(unclaimed). The address runs (``_addresses``) and check mode's predictions of them (``_addresses._predicted``) read
addresses through these, so a prediction looks like what the Engine answers.
"""

try:
    import netaddr
except ImportError:   # AnxcloudModule.main reports it missing (missing_required_lib) before a run starts
    netaddr = None

# An object being deleted (Terraform treats it as gone, anxcloud/resource_ip_address.go).
DELETING = "Marked for deletion"
# An unclaimed object, as a prefix created with create_empty=false holds one for every address.
UNCLAIMED_STATUS = "Inactive"
UNCLAIMED_ROLES = ("", "Default")


def canonical(address):
    return str(netaddr.IPAddress(address))


def looks_unclaimed(summary):
    """What a summary can tell about an unclaimed object (its status needs a filtered listing)."""
    return not (summary.get("description_customer") or "") and (summary.get("role_text") or "") in UNCLAIMED_ROLES


def description(owner):
    """What an allocation's address object says about its owner; it lets a run find an allocation whose
    tagging failed (the create went through, the tag did not) instead of leaking it."""
    return "anxcloud.lbaas: %s" % owner
