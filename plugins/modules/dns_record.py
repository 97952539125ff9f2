#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: dns_record
short_description: Manage the records of one name and type (an rrset) in an Anexia CloudDNS zone, idempotently
version_added: 0.1.0
description:
  - Makes the records of O(name) and O(type) in O(zone) hold exactly O(values) (O(state=present)), or removes them
    (O(state=absent)).
  - "What it never changes or deletes: the zone's SOA and NS records, immutable records, and records carrying another
    owner's mark (any tag prefix) or, without O(owner), any mark; such a record in the rrset fails the task before any
    write, naming it, unless O(others=keep) keeps it. A record without a mark is managed by naming its rrset."
  - A record is identified by its zone, name, type and normalised value, never by its identifier, which CloudDNS
    changes with every revision of the zone. Values are normalised before they are compared (with dnspython), so the
    forms the Engine rewrites compare equal to the ones written, see O(values).
  - Every change of a task is B(one changeset) of the zone, applied all or nothing. A changed value, TTL or comment is
    the old record's delete and the new one's create in the same revision, so a failure never leaves a duplicate or a
    gap; a value held more than once is kept once.
  - CloudDNS refuses writes while a revision of the zone validates and deploys. The module waits for the zone to be
    editable before it writes (a zone that is not editable is waited for, not failed), and with O(wait=true) until
    its own revision is live (C(deployment_level) 100), so the records resolve when the task ends.
  - The zone's SOA and NS records and records marked immutable are never changed; a type of V(SOA) or V(NS) is
    refused.
  - Ownership. Records carry no tags, so with O(owner) the module marks each record it writes at the start of its
    comment with the owner tag's text, C(<tag_prefix>-svc=<owner>), followed by C(; ) and O(comment) if given. A record
    whose comment starts with another owner's mark (any tag prefix), or with any mark when O(owner) is not set, is
    never changed or deleted; the task fails naming it (with O(others=keep) it is kept and the task manages only the
    owner's records of the rrset). A record without a mark is managed by naming its rrset (it gets the mark when
    O(owner) is set).
  - Runs through the collection's shared reconciler like every other module - observe, plan, then predict in check
    mode or apply, then observe again - so RV(rrset) after a real run is read back from the Engine.
  - Needs the Python library C(dnspython) on the host that runs the module.
author:
  - anxcloud.lbaas contributors (@anxcloud)
requirements:
  - dnspython
options:
  zone:
    description:
      - The zone's name, for example V(example.com) (a trailing dot and case do not matter).
    type: str
    required: true
  name:
    description:
      - The record name relative to the zone, V(@) for the zone's apex, V(*.app) for a wildcard.
      - A fully qualified name (with a trailing dot) inside the zone is accepted and made relative. A name that ends with
        the zone but has no trailing dot (V(web.example.com) in zone V(example.com)) is refused, naming both spellings;
        taken as relative, as CloudDNS takes it, it would be C(web.example.com.example.com).
      - The fully qualified name may have at most 253 characters. A V(CNAME) is refused at V(@), and beside records of
        other types at its name (and another type beside a V(CNAME)), as CloudDNS refuses them; check mode refuses them
        too.
      - Case does not matter (DNS names compare without case; the Engine stores them lowercase).
    type: str
    default: "@"
  type:
    description:
      - The record type, one of V(A), V(AAAA), V(CNAME), V(TXT), V(MX), V(SRV), V(PTR) (any case).
        V(SOA) and V(NS) are the zone's own and refused with a message.
    type: str
    required: true
  values:
    description:
      - The values of the rrset, in any order; duplicates count once. Required with O(state=present).
      - With O(state=absent), only the records of these values are removed; without, every record of the rrset.
      - Compared in normal form. V(A) a dotted quad; V(AAAA) in any IPv6 form (V(FD00:0010::0005) equals V(fd00:10::5));
        V(CNAME), V(PTR), and the targets of V(MX) (V(10 mail.example.com)) and V(SRV) (V(10 5 443 web.example.com)) are
        fully qualified names with or without the trailing dot, in any case (a target without a trailing dot is
        taken as fully qualified, as the Engine takes it, never as relative to the zone).
      - V(TXT) a value made only of quoted strings (V("v=spf1" " -all")) is those strings joined; any other text is
        one string as written, quotes and spaces included. Either is stored as quoted strings of at most 255 bytes, so
        V(hello world) and V("hello world") are the same value.
      - A TXT value is UTF-8 text; it is split into strings between characters, never inside one.
    type: list
    elements: str
  ttl:
    description:
      - The TTL of every record of the rrset, in seconds. Compared only when given; not given, new records take the
        TTL the rrset's other records have, else the zone's default.
      - Between V(60) and V(604800) (CloudDNS's range); another value is refused before any request, in check mode too.
    type: int
  comment:
    description:
      - The records' comment (one line). Compared only when given or when O(owner) is set; with O(owner) it follows
        the owner's mark, so the stored comment is C(<tag_prefix>-svc=<owner>; <comment>).
      - A comment that starts with an owner mark (C(<prefix>-svc=<name>), any prefix) is refused without O(owner), as it would
        make the records that owner's. Set O(owner) and the module writes the mark.
    type: str
  owner:
    description:
      - Who the records belong to, a stable identifier such as a service's name, marked in each record's comment (see
        the description). Records of another owner are never touched.
    type: str
  others:
    description:
      - What the records of others in the rrset are to this task.
      - V(fail) (default) - the rrset is this task's alone; a record of another owner in it (or, without O(owner), any
        marked record) fails the task, naming it, before any write.
      - V(keep) - a shared rrset (SPF and site verification TXT values at the apex, from two teams); the task manages only
        the records carrying its O(owner)'s mark and keeps every other record of the rrset as it is (another owner's, a
        hand-made one, an immutable one). O(values) are this owner's values; O(state=absent) removes only this owner's
        records; a value another owner holds too is held once per owner, so that either one's removal leaves it served.
        Needs O(owner); not for a V(CNAME).
      - TTL with V(keep). DNS serves one TTL per rrset, so a O(ttl) that a kept record of the rrset does not have is
        refused (the task fails naming those records), as no owner changes the others' records. Without O(ttl), the
        owner's new records take the rrset's TTL.
    type: str
    choices: [fail, keep]
    default: fail
  state:
    description:
      - V(present) makes the rrset hold exactly O(values); V(absent) removes O(values), or the whole rrset.
      - V(absent) in a zone that does not exist (any more) has nothing to remove; the task is ok, with a warning.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - anxcloud.lbaas.engine
  - anxcloud.lbaas.dns_wait
  - anxcloud.lbaas.owner_tag
  - anxcloud.lbaas.attributes
  - anxcloud.lbaas.attributes.actiongroup
  - anxcloud.lbaas.predictions
attributes:
  check_mode:
    support: full
    details:
      - Reports the changeset the task would send and the rrset after it; sends no write.
      - Across the tasks of a play, a later check-mode task sees the records this one predicts (created, changed or
        deleted), as a real run would find them; so do the service's O(anxcloud.lbaas.service#module:dns) records.
  diff_mode:
    support: full
"""

EXAMPLES = r"""
- name: www.example.com resolves to two addresses
  anxcloud.lbaas.dns_record:
    zone: example.com
    name: www
    type: A
    values: [198.51.100.10, 198.51.100.11]
    ttl: 300

- name: The apex's mail exchanger, owned by the service shop
  anxcloud.lbaas.dns_record:
    zone: example.com
    name: "@"
    type: MX
    values: ["10 mail.example.com"]
    owner: shop

- name: An SPF record (spaces and quotes are part of the value)
  anxcloud.lbaas.dns_record:
    zone: example.com
    type: TXT
    values: ["v=spf1 include:_spf.example.net -all"]

- name: The apex's SPF value of team mail, beside the TXT values other teams hold there (a shared rrset)
  anxcloud.lbaas.dns_record:
    zone: example.com
    type: TXT
    values: ["v=spf1 include:_spf.example.net -all"]
    owner: mail
    others: keep

- name: Remove the alias
  anxcloud.lbaas.dns_record:
    zone: example.com
    name: shop
    type: CNAME
    state: absent
"""

RETURN = r"""
rrset:
  description: The rrset after the run (predicted in check mode).
  returned: always
  type: dict
  contains:
    zone: {description: The zone's name., type: str}
    name: {description: "The record name relative to the zone (V(@) for the apex), lowercase.", type: str}
    fqdn: {description: "The fully qualified name, with the trailing dot.", type: str}
    type: {description: The record type., type: str}
    values: {description: "The normalised values, sorted.", type: list, elements: str}
    records:
      description: One entry per record, sorted by value.
      type: list
      elements: dict
      contains:
        value: {description: The normalised value (TXT as quoted strings)., type: str}
        ttl: {description: The TTL; V(null) for the zone's default., type: int}
        comment: {description: "The comment, with the owner's mark when the record has one.", type: str}
  sample: {zone: example.com, name: www, fqdn: www.example.com., type: A, values: [198.51.100.10],
           records: [{value: 198.51.100.10, ttl: 300, comment: anxlb-svc=shop}]}
summary:
  description:
    - "One line, what the task writes (check mode) or wrote, per name, as the other modules' plan lines say it
      (C(dns www.example.com.: 1 to change)); V(in sync) when nothing."
  returned: always
  type: str
  sample: "dns www.example.com.: 1 to add"
plan:
  description:
    - What the run decided; at most one entry, the changeset of the rrset.
    - V(redeploy) writes the rrset again as it is, when the zone's newest revision failed to deploy and the DNS servers
      still serve the one before it (with O(wait)).
  returned: always
  type: list
  elements: dict
  contains:
    action: {description: "V(create) (the rrset had no record), V(update) or V(delete) (no record is left).", type: str}
    zone: {description: The zone., type: str}
    name: {description: The record name., type: str}
    type: {description: The record type., type: str}
    create: {description: "The records the changeset creates: value, ttl, comment.", type: list, elements: dict}
    delete: {description: "The records the changeset deletes: value, ttl, comment.", type: list, elements: dict}
    changes: {description: "values, ttl and comment of the rrset that change, each with before and after.", type: dict}
    reason: {description: Why., type: str}
served:
  description:
    - With O(wait=served), per server asked (C(address@port)) where it came from (O(nameservers) entry or C(NS <name>)),
      the queries sent, the seconds until it answered, and on failure its last answer (C(waiting)).
  returned: with wait=served, when the task gets to ask the servers
  type: list
  elements: dict
diff:
  description: The rrset's records before and after, each side as YAML text.
  returned: when diff mode is on
  type: dict
"""

from ..module_utils._dns._request import DnsRecordRequest
from ..module_utils._dns._run import run_dns_record
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._reconcile._predicting import Predicting


def predicted_families():
    """What dns_record observes, as check mode across tasks shows it: the zone's records."""
    from ..module_utils._dns._predicted import DnsOverlay
    return [DnsOverlay]


class DnsRecordModule(AnxcloudModule):
    predicts = Predicting(predicted_families)
    wait_options = True
    argument_spec = DnsRecordRequest.spec

    def run(self):
        self.result = run_dns_record(self.client, DnsRecordRequest.from_params(self.params), self.check_mode,
                                     warn=self.module.warn, diff=self.module._diff)


def main():
    DnsRecordModule.main()


if __name__ == "__main__":
    main()
