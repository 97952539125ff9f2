#!/usr/bin/python
# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

DOCUMENTATION = r"""
module: dns_record_sets
short_description: Manage many record sets of an Anexia CloudDNS zone in one changeset, with prune
version_added: 0.1.0
description:
  - "What it never deletes, with or without O(prune): the zone's SOA and NS records (and NS delegations), immutable
    records, records without an owner mark (made by hand, or by a task without O(owner)), and records carrying another
    owner's mark (any tag prefix), also where they share a record set with this owner's records, nor the records the
    owner's service writes for its C(dns) name. RV(left) counts them per reason. A record set O(record_sets) names is
    made to hold exactly its values, as M(anxcloud.lbaas.dns_record) does: there the records of others fail the task
    (or are kept, with O(others=keep)), they are never deleted."
  - Makes the record sets (rrsets, the records of one name and type) of O(record_sets) in O(zone) hold exactly their
    values, each as M(anxcloud.lbaas.dns_record) would, with the same normal forms, identity (zone, name, type, value)
    and ownership marks.
  - All the changes of a task are B(one changeset) of the zone, applied all or nothing, so one task is one revision of
    the zone; a task that changes nothing sends no write. The zone's records are read once (one request, filtered by
    name or type where every entry shares it and O(prune) is off), whatever the number of record sets.
  - With O(prune=true), the record sets of O(owner) (records whose comment carries its mark, C(<tag_prefix>-svc=<owner>))
    that O(record_sets) does not name are deleted in that same changeset, only the owner's records of them, counted
    against O(max_delete). Run it with C(--check --diff) first.
  - An answer lost after CloudDNS committed the changeset is not sent again blindly; the module reads the zone again and
    finds the records there (records are identified by value).
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
  record_sets:
    description:
      - The record sets this task manages, one entry per name and type; two entries of the same name and type fail the
        task before any request, naming both.
      - Each entry is checked as M(anxcloud.lbaas.dns_record) checks its options (same names, types, values and normal
        forms); a bad entry fails the task before any request, naming the entry (C(record_sets[3] (www A))) and its
        option.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description:
          - The record name relative to the zone, V(@) for the apex, V(*.app) for a wildcard; a fully qualified name
            (trailing dot) inside the zone is made relative. Case does not matter.
        type: str
        default: "@"
      type:
        description:
          - The record type, one of V(A), V(AAAA), V(CNAME), V(TXT), V(MX), V(SRV), V(PTR) (any case); required.
        type: str
      values:
        description:
          - The values of the record set, in any order, compared in normal form (see
            O(anxcloud.lbaas.dns_record#module:values)); required.
        type: list
        elements: str
      ttl:
        description:
          - The TTL of the record set's records; compared only when given (without, new records take the record set's
            TTL, else the zone's default).
        type: int
      comment:
        description:
          - The records' comment, after the owner's mark (C(<tag_prefix>-svc=<owner>; <comment>)).
        type: str
      others:
        description:
          - What records of others in this record set are to the task; default O(others). V(keep) manages only the
            owner's records of a record set others hold values in too (see O(anxcloud.lbaas.dns_record#module:others)).
        type: str
        choices: [fail, keep]
  owner:
    description:
      - Who the records belong to, marked at the start of each record's comment. Required with O(prune=true) and with
        O(others=keep).
    type: str
  others:
    description:
      - What the records of others in a named record set are to the task, for every entry without an C(others) of its own.
      - V(fail) - the record set is this task's alone; a record of another owner in it fails the task before any write.
      - V(keep) - only this owner's records of the record set are the task's; the others stay as they are (a shared record
        set). A O(record_sets[].ttl) that a kept record lacks is refused (DNS serves one TTL per record set).
    type: str
    choices: [fail, keep]
    default: fail
  prune:
    description:
      - Delete the record sets of O(owner) that O(record_sets) does not name (only the owner's records of them), in the
        same changeset. Needs O(owner); RV(pruned) lists what goes, RV(left) what stays and why.
      - With an empty O(record_sets) every record of the owner in the zone goes (within O(max_delete)).
    type: bool
    default: false
  max_delete:
    description:
      - The most records prune may delete in one run, one per record (a record set of two addresses is two), as the
        C(max_delete) of M(anxcloud.lbaas.gc). Above it a real run fails before any write; check mode shows the whole
        plan with a warning and RV(over_max_delete). Records replaced within a named record set do not count.
    type: int
    default: 100
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
      - Reports the changeset the task would send (RV(plan), RV(pruned)) and the record sets after it; sends no write.
      - Across the tasks of a play, a later check-mode task sees the records this one predicts, as a real run would.
  diff_mode:
    support: full
    details:
      - One tree per name the task changes, C(<fqdn>) then C(<type>) then a record per line, before and after.
"""

EXAMPLES = r"""
- name: Preview first - what the zone task would create, change and prune
  anxcloud.lbaas.dns_record_sets:
    zone: example.com
    owner: web
    prune: true
    record_sets:
      - {name: www, type: A, values: [198.51.100.10, 198.51.100.11], ttl: 300}
      - {name: www, type: AAAA, values: ["2001:db8::10"], ttl: 300}
      - {name: shop, type: CNAME, values: [www.example.com.]}
      - {name: "@", type: MX, values: ["10 mail.example.com."]}
  check_mode: true
  diff: true
  register: preview

- name: The apex's SPF value of team mail beside other teams' TXT values, served before the task ends
  anxcloud.lbaas.dns_record_sets:
    zone: example.com
    owner: mail
    others: keep
    wait: served
    record_sets:
      - {type: TXT, values: ["v=spf1 include:_spf.example.net -all"]}
"""

RETURN = r"""
record_sets:
  description: Each entry's record set after the run (predicted in check mode), in the order of O(record_sets).
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: "The record name relative to the zone (V(@) for the apex), lowercase.", type: str}
    fqdn: {description: "The fully qualified name, with the trailing dot.", type: str}
    type: {description: The record type., type: str}
    values: {description: "The normalised values, sorted (all of the record set's, others' too).", type: list, elements: str}
    records: {description: "One entry per record: value, ttl (V(null): the zone's default), comment.", type: list,
              elements: dict}
plan:
  description: The changeset, an entry per record set that changes; those prune deletes have C(pruned=true).
  returned: always
  type: list
  elements: dict
  contains:
    action: {description: "V(create), V(update) or V(delete) (no record is left).", type: str}
    zone: {description: The zone., type: str}
    name: {description: The record name., type: str}
    type: {description: The record type., type: str}
    create: {description: "The records the changeset creates: value, ttl, comment.", type: list, elements: dict}
    delete: {description: "The records the changeset deletes: value, ttl, comment.", type: list, elements: dict}
    changes: {description: "values, ttl and comment that change, each with before and after.", type: dict}
    reason: {description: Why., type: str}
    pruned: {description: Present (V(true)) on the record sets prune empties of the owner's records., type: bool}
pruned:
  description: The record sets prune deletes the owner's records of (deleted, or in check mode would delete).
  returned: always
  type: list
  elements: dict
  sample: [{name: old, fqdn: old.example.com., type: A, values: [], records: [{value: 198.51.100.9, ttl: 300,
            comment: anxlb-svc=web}]}]
left:
  description:
    - The records of the zone the task left alone, counted per reason (the zone's own SOA and NS, NS delegations,
      immutable, no owner mark, another owner's, this owner's while O(prune) is off), each with the first 20 record
      sets named (C(<fqdn> <type>)) and C(more) when there are more. A task whose listing was filtered (no O(prune),
      every entry of one name or type) counts the records of that listing only.
  returned: always
  type: list
  elements: dict
  sample: [{reason: "another owner's (anxlb-svc=mail)", records: 2, record_sets: ["example.com. TXT"]},
           {reason: "the zone's own SOA and NS records", records: 3, record_sets: ["example.com. NS", "example.com. SOA"]}]
summary:
  description: "One line, C(zone example.com: 2 record sets to create, 1 to change, 0 to delete, in one changeset)."
  returned: always
  type: str
over_max_delete:
  description: V(true) when prune would delete more records than O(max_delete) (check mode only; a real run fails).
  returned: when over the cap in check mode
  type: bool
served:
  description:
    - With O(wait=served), per server asked (C(address@port)) where it came from (O(nameservers) entry or C(NS <name>)),
      the queries sent, the seconds until it answered every record set, and on failure the last answer of each record set
      it did not answer as wanted (C(waiting)).
  returned: with wait=served, when the task gets to ask the servers
  type: list
  elements: dict
diff:
  description: The record sets the task changes, before and after, one tree per name (YAML text).
  returned: when diff mode is on
  type: dict
"""

from ..module_utils._dns._record_sets_run import run_record_sets
from ..module_utils._dns._request import RecordSetsOptions
from ..module_utils._module._base import AnxcloudModule
from ..module_utils._reconcile._predicting import Predicting


def predicted_families():
    """What dns_record_sets observes, as check mode across tasks shows it: the zone's records."""
    from ..module_utils._dns._predicted import DnsOverlay
    return [DnsOverlay]


class DnsRecordSetsModule(AnxcloudModule):
    predicts = Predicting(predicted_families)
    wait_options = True
    argument_spec = RecordSetsOptions.spec

    def run(self):
        self.result = run_record_sets(self.client, RecordSetsOptions.from_params(self.params), self.check_mode,
                                      warn=self.module.warn, diff=self.module._diff)


def main():
    DnsRecordSetsModule.main()


if __name__ == "__main__":
    main()
