# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later


class ModuleDocFragment:
    # How the CloudDNS record modules wait: for the revision, and with wait=served for the zone's servers
    # (module_utils/_dns/_apply.py, module_utils/_dns/_served.py).
    DOCUMENTATION = r"""
options:
  wait:
    description:
      - V(true) - wait until the zone's revision with this task's changeset is live (C(deployment_level) 100); a revision
        that fails to deploy fails the task.
      - V(served) - then also ask the zone's authoritative servers (its NS records, resolved on the host that runs the
        module, or O(nameservers)) over UDP and TCP until each answers every record set of the task authoritatively with
        its values (with O(others=keep) this owner's values, and none of those it removed; a record set deleted - no
        data), and its TTL when the task gives one. A run that changes nothing asks too (an earlier run may have ended
        before its data was served). A server that does not answer at all fails the task at once, naming it (use
        O(wait=true) to skip the check where port 53 is blocked); at O(wait_timeout) the task fails with each server's
        last answer (RV(served)). Check mode asks no server.
      - V(false) - end once CloudDNS accepted the changeset. The module always waits for the zone to be editable before
        it writes.
    type: raw
    default: true
  wait_timeout:
    description:
      - How long the task waits in total, for the zone to be editable, the revision to go live and (O(wait=served)) the
        servers to answer, in seconds (V(600)) or as a duration (V(90s), V(10m), V(1h)).
    type: raw
    default: 600
  nameservers:
    description:
      - With O(wait=served), the servers to ask instead of the zone's NS records - V(host), V(host@port) or V(host:port)
        (V([v6]:port) or V(v6@port) for an IPv6 address); the host an address or a name the host that runs the module
        resolves; port 53 by default. Refused without O(wait=served).
    type: list
    elements: str
"""
