#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: ip_pool_info
short_description: Usage of an IP pool of Anexia Engine IPAM prefixes, with allocations by owner
version_added: 0.1.0
description:
  - Per prefix of the pool, its size, usable addresses, used and free ones, and the allocations grouped by owner
    (the owner tag C(<tag_prefix>-svc=<owner>) that M(anxcloud.lbaas.ip_address) puts on address objects).
  - The usable range follows M(anxcloud.lbaas.ip_address). Address objects without an owner tag (network,
    gateway, addresses made by other tools) count as used and are listed under RV(prefixes[].unowned), apart
    from RV(prefixes[].allocations), so that no made-up owner name (like C(null) or C(untagged)) can clash with a
    real one and every key of RV(prefixes[].allocations) is an owner M(anxcloud.lbaas.ip_address) accepts.
  - Reads one core resource per address object (the Engine lists tags only per object), concurrently.
  - An address object being deleted (status C(Marked for deletion)) is nobody's allocation and not free either;
    it counts as used and is listed under RV(prefixes[].deleting).
  - An unclaimed address object (status C(Inactive), role C(Default), no description), as a prefix created with
    C(create_empty=false) holds for every address, counts as free, because M(anxcloud.lbaas.ip_address) claims it.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  pool:
    description:
      - The prefixes, each a prefix identifier, a prefix in CIDR form, or a tag that prefixes carry.
    type: list
    elements: str
    required: true
  family:
    description:
      - Only the prefixes of this family.
    type: str
    choices: [v4, v6]
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.wait.ignored
  - anxcloud.lbaas.attributes.info_module
"""

EXAMPLES = r"""
- name: How full is the public pool?
  anxcloud.lbaas.ip_pool_info:
    pool: [anxlb-pool=public]
  register: usage

- name: Show the free addresses per prefix
  ansible.builtin.debug:
    msg: "{{ usage.prefixes | items2dict(key_name='prefix', value_name='free') }}"
"""

RETURN = r"""
prefixes:
  description: One entry per prefix of the pool, in the order the pool names them.
  returned: always
  type: list
  elements: dict
  contains:
    id: {description: Identifier of the prefix., type: str}
    prefix: {description: The prefix in CIDR form., type: str}
    family: {description: V(v4) or V(v6)., type: str}
    size: {description: Addresses in the prefix., type: int}
    usable: {description: Addresses allocation may hand out (network and last address excluded)., type: int}
    used: {description: "Addresses with an address object that is not unclaimed, each distinct address counted once,
           including the network and broadcast objects outside the usable range (so RV(prefixes[].used) +
           RV(prefixes[].free) can exceed RV(prefixes[].usable)).", type: int}
    free: {description: Usable addresses without an address object or with an unclaimed one (what
           M(anxcloud.lbaas.ip_address) can still hand out without bounds or exclusions)., type: int}
    allocations: {description: "Owner -> its addresses in the prefix, sorted; owners sorted by name.", type: dict}
    unowned: {description: "Addresses with an address object but no owner tag, sorted (unclaimed and deleting ones
              excluded).", type: list, elements: str}
    deleting: {description: "Addresses whose only address objects are being deleted, sorted.", type: list, elements: str}
  sample: [{id: 0a11ce11000000000000000000000001, prefix: 198.51.100.0/24, family: v4, size: 256, usable: 254,
            used: 4, free: 251, allocations: {shop: [198.51.100.2]}, unowned: [198.51.100.0, 198.51.100.1, 198.51.100.255],
            deleting: []}]
"""

from ..module_utils._addresses._ippool import Pool
from ..module_utils._addresses._pool import address_int, observe, owners, resolve
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._model._group_options import with_ignored_wait
from ..module_utils._model._names import check_tag_prefix
from ..module_utils._model._request import TAG_PREFIX


class IpPoolInfoModule(AnxcloudModule):
    argument_spec = with_ignored_wait(dict(
        pool=dict(type="list", elements="str", required=True),
        family=dict(type="str", choices=["v4", "v6"]),
        tag_prefix=dict(TAG_PREFIX),
    ))

    def run(self):
        check_tag_prefix(self.params["tag_prefix"], "tag_prefix")
        prefixes = observe(self.client, resolve(self.client, self.params["pool"], self.params["family"]))
        out = []
        for prefix in prefixes:
            pool = Pool(prefix.cidr)
            by_owner, unowned = owners(self.client, prefix, self.params["tag_prefix"])
            taken = prefix.taken()
            out.append(dict(
                id=prefix.id, prefix=prefix.cidr, family=prefix.family, size=pool.size, usable=pool.usable,
                used=len(taken), free=pool.usable - len([ip for ip in taken if pool.contains(ip)]),
                allocations=dict((owner, sorted(set(ips), key=address_int)) for owner, ips in sorted(by_owner.items())),
                unowned=unowned,
                deleting=[ip for ip in taken if not prefix.live(ip)],
            ))
        self.result["prefixes"] = out


def main():
    IpPoolInfoModule.main()


if __name__ == "__main__":
    main()
