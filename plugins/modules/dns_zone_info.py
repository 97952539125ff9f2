#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: dns_zone_info
short_description: List the Anexia CloudDNS zones of the account, or one zone with the state of its revisions
version_added: 0.1.0
description:
  - Without O(name), every zone of the account (one request); with O(name), that zone (one request), failing when
    there is none.
  - Each zone comes with its newest revision's state, so a play can tell whether its last change is live
    (RV(zones[].live)).
  - O(tag_prefix) is accepted so that C(module_defaults) of the action group apply; zones are not marked.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  name:
    description:
      - The zone's name (a trailing dot and case do not matter).
    type: str
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored
  - anxcloud.lbaas.attributes.info_module
"""

EXAMPLES = r"""
- name: Every zone
  anxcloud.lbaas.dns_zone_info:
  register: zones

- name: Is the last change of example.com live?
  anxcloud.lbaas.dns_zone_info:
    name: example.com
  register: zone
  until: zone.zones[0].live
  retries: 30
  delay: 2
"""

RETURN = r"""
zones:
  description: The zones, sorted by name (one with O(name)).
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: The zone's name., type: str}
    live: {description: Whether the newest revision is live and the zone takes writes (C(is_editable) and C(deployment_level) 100)., type: bool}
    is_editable: {description: Whether CloudDNS takes writes to the zone now., type: bool}
    deployment_level: {description: "How far the newest revision is deployed, in percent.", type: int}
    validation_level: {description: "How far the newest revision is validated, in percent.", type: int}
    serial: {description: The newest revision's serial., type: int}
    state: {description: "The newest revision's state (V(validating), V(deploying), V(active), V(failed) ...).", type: str}
    current_revision: {description: The identifier of the current revision., type: str}
    revisions: {description: "The revisions the Engine lists, newest first: identifier, serial, state, created_at.", type: list, elements: dict}
    master: {description: Whether CloudDNS is the zone's master., type: bool}
    dnssec_mode: {description: The DNSSEC mode., type: str}
    admin_email: {description: The SOA's contact., type: str}
    ttl: {description: The zone's default TTL., type: int}
    refresh: {description: SOA refresh., type: int}
    retry: {description: SOA retry., type: int}
    expire: {description: SOA expire., type: int}
    dns_servers: {description: The zone's name servers., type: list, elements: dict}
  sample: [{name: example.com, live: true, is_editable: true, deployment_level: 100, serial: 1795814961, state: active}]
"""

from ..module_utils._dns._clouddns import CloudDNS, live, revision_state
from ..module_utils._dns._values import normal_zone
from ..module_utils._model._names import check_tag_prefix
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._model._group_options import with_ignored_wait
from ..module_utils._model._request import TAG_PREFIX

SHOWN = ("is_editable", "deployment_level", "validation_level", "current_revision", "master", "dnssec_mode", "admin_email",
         "ttl", "refresh", "retry", "expire", "dns_servers", "published_at")


def zone_entry(zone):
    serial, state = revision_state(zone)
    out = dict(name=zone.get("name"), live=live(zone), serial=serial, state=state)
    out.update((k, zone.get(k)) for k in SHOWN)
    out["revisions"] = [dict((k, r.get(k)) for k in ("identifier", "serial", "state", "created_at"))
                        for r in zone.get("revisions") or []]
    return out


class DnsZoneInfoModule(AnxcloudModule):
    argument_spec = with_ignored_wait(dict(
        name=dict(type="str"),
        tag_prefix=dict(TAG_PREFIX),
    ))

    def run(self):
        check_tag_prefix(self.params["tag_prefix"])
        dns = CloudDNS(self.client)
        if self.params.get("name") is not None:
            zones = [dns.zone(normal_zone(self.params["name"], "name"), option="name")]
        else:
            zones = dns.zones()
        self.result["zones"] = sorted((zone_entry(z) for z in zones), key=lambda z: z["name"] or "")


def main():
    DnsZoneInfoModule.main()


if __name__ == "__main__":
    main()
