#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: ip_address
short_description: Allocate addresses for an owner from an IP pool of Anexia Engine IPAM prefixes, idempotently
version_added: 0.1.0
description:
  - An allocation is an IPAM address object created at a chosen address in a prefix of the pool and tagged
    with the owner tag C(<tag_prefix>-svc=<owner>), the same tag the M(anxcloud.lbaas.service) module puts on
    a service's load balancer objects.
  - Idempotent per owner and family. A rerun returns the addresses the owner already has and allocates only
    the missing ones; it never allocates a second address for the same owner and family.
  - The first free address of the usable range is taken (or the last with O(strategy=last)). Every address
    object already in a prefix (network, gateway, other owners, untagged) counts as taken.
  - Usable range. IPv4 excludes the network and broadcast addresses. IPv6 excludes the first (subnet-router
    anycast) and the last address of the prefix, the same rule, so the cloud controller's
    "one below the top" address stays usable. A V(/31) or V(/127) has both addresses usable,
    a V(/32) or V(/128) its one.
  - How concurrent runs are kept apart is in the notes, after the options.
author:
  - anxcloud.lbaas contributors (@anxcloud)
options:
  pool:
    description:
      - The prefixes of the pool. Each entry is a prefix identifier, a prefix in CIDR form, or a tag that
        prefixes carry (every prefix with that tag belongs to the pool).
      - An entry of 32 lower case hexadecimal characters is an identifier, one containing C(/) a CIDR (a tag
        cannot contain C(/)), anything else a tag.
      - A CIDR with host bits set (V(198.51.100.7/24)) is refused before any request, naming the network it
        stands for (V(198.51.100.0/24)).
      - One list rather than separate options for identifiers and tags, so that a pool can combine a tagged
        set of prefixes with a single one, and a role can pass a pool through as one value.
      - Prefixes are tried in the order given; a tag's prefixes in the Engine's order. An entry that matches
        no prefix is an error, so a misspelt tag never makes an empty pool.
      - Required with O(state=present). With O(state=absent) and no O(pool), every address object that carries
        the owner tag is released, in whatever prefix it is (found through the owner tag, each confirmed on its
        own tags), so a service that forgot its pool still leaves no address behind.
    type: list
    elements: str
  owner:
    description:
      - Who the addresses belong to, a stable identifier (for a service, its O(anxcloud.lbaas.service#module:name)).
    type: str
    required: true
  family:
    description:
      - The address family. Required when O(state=present) and the pool has prefixes of both families.
      - With O(state=absent) and no O(family), the owner's addresses of both families are released.
    type: str
    choices: [v4, v6]
  count:
    description:
      - How many addresses of O(family) the owner holds. Fewer are allocated up to it; more are released,
        the highest addresses first.
    type: int
    default: 1
  range_start:
    description:
      - First address that may be allocated. Must lie in the usable range of the pool's only prefix of
        O(family); a bound outside it is an error, not ignored.
    type: str
  range_end:
    description:
      - Last address that may be allocated, with the same rules as O(range_start).
    type: str
  exclude:
    description:
      - Addresses and CIDRs never to allocate, in any order, overlapping or not. Entries of the other family are
        ignored.
    type: list
    elements: str
    default: []
  strategy:
    description:
      - V(first) takes the lowest free address, V(last) the highest.
    type: str
    choices: [first, last]
    default: first
  rdns_name:
    description:
      - The reverse DNS name (PTR record) every address of the owner in O(family) carries, set on the IPAM address
        object (its C(rdns_name), go-anxcloud PR 504). New addresses are created with it; held ones are updated in
        place when theirs differs.
      - Compared without a trailing dot and case (the Engine reads it back as C(name.example.com.) once processed);
        sent as written (without surrounding blanks).
      - Must be a host name, checked before any request. That is labels of 1-63 letters, digits or V(-) (not
        starting or ending with V(-)), separated by V(.), 253 characters in all; a trailing V(.) is allowed. A
        space, a line break or a V(_) is refused.
      - V("") removes it. Not set, the addresses keep whatever they have. Ignored with O(state=absent).
      - The role C(anxcloud.lbaas.service_loadbalancer) sets it to the service's name (C(dns.name) in C(dns.zone)) on the
        addresses it allocates when a service declares C(dns.rdns=true).
      - With it set, RV(addresses) and the diff show each address's rDNS name.
    type: str
  state:
    description:
      - V(present) makes sure the owner holds O(count) addresses; V(absent) releases every address of the owner
        in the pool (of O(family) if given). Address objects of other owners are never released.
      - An address object this module created for the owner (its description says so) that carries no owner tag,
        because tagging failed after the create, is adopted (tagged) rather than leaked, or released with
        O(state=absent).
    type: str
    choices: [present, absent]
    default: present
  force:
    description:
      - A release of an address that a bind on any load balancer still listens on (any owner's bind, or an
        untagged one) fails, naming the bind and its load balancer, because the next owner would get the address and a
        second load balancer would bind the same address and port. V(true) releases it anyway, with a warning.
      - Finding those binds reads every bind of the account, only when the run is about to release something.
    type: bool
    default: false
  ignore_binds:
    description:
      - Identifiers of binds that do not count as using an address, because an earlier task of the same run deletes
        them (in check mode they still exist). The role C(anxcloud.lbaas.service_loadbalancer) passes the binds its
        service task deletes.
    type: list
    elements: str
    default: []
notes:
  - Safe against concurrent runs. An address the Engine refuses as taken is skipped; after creating, the module
    reads the address back, and if another object holds it too, releases its own and tries the next one.
    After such a collision it reads the prefix again, so the next try skips every address allocated meanwhile.
    Five attempts at most, then the module fails naming the pool.
  - The Engine's random reservation endpoint is not used, because its addresses expire and cannot be released.
  - Runs through the collection's shared reconciler like every other module - observe, plan, then predict in
    check mode or apply, then observe and plan again, which must find nothing left to do - so RV(addresses)
    after a real run are read back from the Engine.
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.predictions
  - anxcloud.lbaas.wait.ignored
attributes:
  check_mode:
    support: full
    details:
      - Reports the addresses that would be allocated; nothing is reserved, so a concurrent run may take them first.
  diff_mode:
    support: full
"""

EXAMPLES = r"""
- name: An IPv4 address for the service shop from the prefixes tagged anxlb-pool=public
  anxcloud.lbaas.ip_address:
    pool: [anxlb-pool=public]
    owner: shop
    family: v4
  register: shop_v4

- name: An IPv4 address whose reverse DNS name is shop.example.com
  anxcloud.lbaas.ip_address:
    pool: [anxlb-pool=public]
    owner: shop
    family: v4
    rdns_name: shop.example.com

- name: Two addresses from one prefix, high end, keeping the first ten free
  anxcloud.lbaas.ip_address:
    pool: [198.51.100.0/24]
    owner: shop
    family: v4
    count: 2
    strategy: last
    exclude: [198.51.100.0/28]

- name: Release everything the service holds in the pool
  anxcloud.lbaas.ip_address:
    pool: [anxlb-pool=public]
    owner: shop
    state: absent

- name: Release the service's IPv6 addresses wherever they are (no pool needed)
  anxcloud.lbaas.ip_address:
    owner: shop
    family: v6
    state: absent
"""

RETURN = r"""
summary:
  description:
    - "One line per prefix the task writes in, the counts that are not 0 (C(pool 198.51.100.0/24: 1 to add)): an
      allocation adds, a release destroys, an adoption or a changed rDNS name changes; V(in sync) when nothing."
  returned: always
  type: str
  sample: "pool 198.51.100.0/24: 1 to change"
addresses:
  description: The owner's addresses in the pool after the run (predicted in check mode), of O(family) if given.
  returned: always
  type: list
  elements: dict
  contains:
    address: {description: The address in canonical text form., type: str}
    id: {description: "Identifier of the address object; in check mode the placeholder \"(new address)\" for one to be created.", type: str}
    prefix: {description: The prefix in CIDR form., type: str}
    prefix_id: {description: Identifier of the prefix., type: str}
    family: {description: V(v4) or V(v6)., type: str}
    rdns_name: {description: "The rDNS name, without trailing dot, lowercase; V(\"\") for none.", type: str, returned: when O(rdns_name) is set}
  sample: [{address: 198.51.100.2, id: 5b6e4f0d9a0c4c63b1a6a5c6f4e3d2c1, prefix: 198.51.100.0/24,
            prefix_id: 0a11ce11000000000000000000000001, family: v4}]
address_list:
  description: The addresses of RV(addresses) alone, in the same order, for templates and O(anxcloud.lbaas.service#module:addresses).
  returned: always
  type: list
  elements: str
  sample: [198.51.100.2]
prefix:
  description: The prefix (CIDR) of the first address, for the common case of one address.
  returned: when the owner holds an address
  type: str
  sample: 198.51.100.0/24
tagged_elsewhere:
  description:
    - Identifiers of the resources that the Engine lists for the owner tag and that are no address object in the pool's
      prefixes (of O(family) if given), as the run's first observation found them, before any write (in check mode
      with what earlier tasks predicted). These are the owner's load balancer objects, its addresses in other prefixes
      or of the other family, and anything else carrying the tag. The tag listing may not be exact; nothing here is
      confirmed on its own tags.
    - Read with the pool's addresses, so no request of its own. The role C(anxcloud.lbaas.service_loadbalancer)
      keeps those that the service's RV(anxcloud.lbaas.service#module:tagged_other) also names (tagged, and no load
      balancer object). It runs its release of a family a service no longer declares only when one is left, because
      only then can the owner hold an address of that family.
  returned: when O(pool) is given
  type: list
  elements: str
  sample: [0c2d7a1e5f3b4c6d8e9fa0b1c2d3e4f5]
plan:
  description: What the run decided, one entry per address to allocate, release, adopt or update, with the reason.
  returned: always
  type: list
  elements: dict
  sample: [{action: allocate, address: 198.51.100.2, prefix: 198.51.100.0/24, reason: owner shop holds 0 of 1 v4 address(es)}]
  contains:
    action: {description: "V(allocate), V(release), V(adopt) (tag an untagged address object created for the owner), or V(update)
               (set O(rdns_name) in place).", type: str}
    address: {description: The address., type: str}
    prefix: {description: The prefix in CIDR form., type: str}
    id: {description: "Identifier of the address object to release, adopt or update; V(null) for an allocation.", type: str}
    reason: {description: Why., type: str}
diff:
  description: The owner's addresses before and after, each side as YAML text in the same shape; equal when nothing changed.
  returned: when diff mode is on
  type: dict
  contains:
    before: {description: "YAML text: owner, family and addresses before the run (and each address's rDNS name when O(rdns_name) is set).", type: str}
    after: {description: "YAML text: the same after the run (predicted in check mode).", type: str}
  sample: {before: "owner: shop\nfamily: v4\naddresses: []\n", after: "owner: shop\nfamily: v4\naddresses:\n- 198.51.100.2\n"}
"""

from ..module_utils._addresses._request import AddressRequest
from ..module_utils._addresses._run import run_addresses
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._reconcile._predicting import Predicting


def predicted_families():
    """What ip_address observes, as check mode across tasks shows it: addresses, and the binds on them (LBaaS)."""
    from ..module_utils._addresses._predicted import AddressOverlay
    from ..module_utils._lbaas._predicted import LbaasOverlay
    return [LbaasOverlay, AddressOverlay]


class IpAddressModule(AnxcloudModule):
    predicts = Predicting(predicted_families)
    argument_spec = AddressRequest.spec

    def run(self):
        self.result = run_addresses(self.client, AddressRequest.from_params(self.params), self.check_mode,
                                    warn=self.module.warn, diff=self.module._diff)


def main():
    IpAddressModule.main()


if __name__ == "__main__":
    main()
