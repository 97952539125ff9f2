#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: dns_record_info
short_description: List the records of an Anexia CloudDNS zone, by name and type
version_added: 0.1.0
description:
  - The records of the zone's newest revision (one request), the zone's SOA and NS included, filtered by O(name)
    and O(type) on the Engine's side.
  - Each record comes with its value in the normal form M(anxcloud.lbaas.dns_record) compares (RV(records[].value)),
    as the Engine stores it (RV(records[].rdata)), and its owner when its comment carries the owner's mark
    C(<tag_prefix>-svc=<owner>).
  - Record identifiers are not returned; CloudDNS changes them with every revision of the zone.
  - Needs the Python library C(dnspython) on the host that runs the module.
author:
  - anxcloud.lbaas contributors (@anxcloud)
requirements:
  - dnspython
options:
  zone:
    description:
      - The zone's name.
    type: str
    required: true
  name:
    description:
      - Only the records of this name, relative to the zone (V(@) for the apex); case does not matter.
    type: str
  type:
    description:
      - Only the records of this type (any case), for example V(A) or V(SOA).
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
- name: The addresses www.example.com has
  anxcloud.lbaas.dns_record_info:
    zone: example.com
    name: www
    type: A
  register: www

- name: Every record of the zone
  anxcloud.lbaas.dns_record_info:
    zone: example.com
  register: all_records
"""

RETURN = r"""
records:
  description: The records, sorted by name, type and value.
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: The name relative to the zone (V(@) for the apex)., type: str}
    fqdn: {description: The fully qualified name., type: str}
    type: {description: The record type., type: str}
    value: {description: The value in normal form (what M(anxcloud.lbaas.dns_record) compares)., type: str}
    rdata: {description: The value as the Engine stores it., type: str}
    ttl: {description: The TTL; V(null) for the zone's default., type: int}
    comment: {description: The comment., type: str}
    owner: {description: "The owner named by the comment's mark C(<tag_prefix>-svc=<owner>) of O(tag_prefix); V(null) without.", type: str}
    mark: {description: "The owner mark the comment starts with, of any tag prefix; V(null) without.", type: str}
    immutable: {description: "Whether CloudDNS keeps the record as it is (the SOA and NS records, records marked so).", type: bool}
    region: {description: The GeoDNS region., type: str}
  sample: [{name: www, fqdn: www.example.com., type: A, value: 198.51.100.10, rdata: 198.51.100.10, ttl: 300,
            comment: anxlb-svc=shop, owner: shop, mark: anxlb-svc=shop, immutable: false, region: default}]
"""

from ansible.module_utils.basic import missing_required_lib

from ..module_utils._dns._clouddns import CloudDNS
from ..module_utils._dns._plan import flat_record, mark_of
from ..module_utils._dns._values import fqdn, has_dnspython, normal_name, normal_zone
from ..module_utils._model._failure import Failure
from ..module_utils._model._names import check_tag_prefix
from ..module_utils._model._ownership import owner_tag_head
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._model._group_options import with_ignored_wait
from ..module_utils._model._request import TAG_PREFIX


def record_entry(record, zone, tag_prefix):
    flat = flat_record(record)
    mark = mark_of(flat["comment"])
    head = owner_tag_head(tag_prefix)
    return dict(name=flat["name"], fqdn=fqdn(flat["name"], zone), type=flat["type"], value=flat["value"],
                rdata=flat["rdata"], ttl=flat["ttl"], comment=flat["comment"], mark=mark,
                owner=mark[len(head):] if mark and mark.startswith(head) else None,
                immutable=flat["immutable"], region=flat["region"])


class DnsRecordInfoModule(AnxcloudModule):
    argument_spec = with_ignored_wait(dict(
        zone=dict(type="str", required=True),
        name=dict(type="str"),
        type=dict(type="str"),
        tag_prefix=dict(TAG_PREFIX),
    ))

    def run(self):
        if not has_dnspython():
            raise Failure(missing_required_lib("dnspython"))
        p = self.params
        check_tag_prefix(p["tag_prefix"])
        zone = normal_zone(p["zone"])
        name = normal_name(p["name"], zone) if p.get("name") is not None else None
        rtype = p["type"].strip().upper() if p.get("type") else None
        records = CloudDNS(self.client).records(zone, name=name, rtype=rtype)
        self.result["records"] = sorted((record_entry(r, zone, p["tag_prefix"]) for r in records),
                                        key=lambda r: (r["name"], r["type"], r["value"] or ""))


def main():
    DnsRecordInfoModule.main()


if __name__ == "__main__":
    main()
