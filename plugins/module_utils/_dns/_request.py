# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The ``dns_record`` module's options as its run takes them (pure: a module imports it for its argument spec)."""

from .._model._request import Request, TAG_PREFIX, WAIT_OPTIONS

# The wait options of the DNS modules (doc fragment anxcloud.lbaas.dns_wait): wait is true, false or served (the
# zone's authoritative servers asked until they answer the new data, ``_served``), with the servers to ask.
DNS_WAIT_OPTIONS = dict(WAIT_OPTIONS, wait=dict(type="raw", default=True), nameservers=dict(type="list", elements="str"))


class DnsRecordRequest(Request):
    """The ``dns_record`` module's options (its argument spec, with the wait options its run reads)."""

    spec = dict(
        zone=dict(type="str", required=True),
        name=dict(type="str", default="@"),
        type=dict(type="str", required=True),
        values=dict(type="list", elements="str"),
        ttl=dict(type="int"),
        comment=dict(type="str"),
        owner=dict(type="str"),
        others=dict(type="str", choices=["fail", "keep"], default="fail"),
        tag_prefix=dict(TAG_PREFIX),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        **DNS_WAIT_OPTIONS
    )


class RecordSetsOptions(Request):
    """The ``dns_record_sets`` module's options (its argument spec, with the wait options its run reads); its run
    checks them into a ``_record_sets.RecordSetsRequest``."""

    spec = dict(
        zone=dict(type="str", required=True),
        record_sets=dict(type="list", elements="dict", required=True, options=dict(
            name=dict(type="str", default="@"),
            type=dict(type="str"),
            values=dict(type="list", elements="str"),
            ttl=dict(type="int"),
            comment=dict(type="str"),
            others=dict(type="str", choices=["fail", "keep"]),   # no default: left out, the task's others applies
        )),
        owner=dict(type="str"),
        others=dict(type="str", choices=["fail", "keep"], default="fail"),
        prune=dict(type="bool", default=False),
        max_delete=dict(type="int", default=100),
        tag_prefix=dict(TAG_PREFIX),
        **DNS_WAIT_OPTIONS
    )
