# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The ``service`` module's options, stated once (pure: a module imports it for its argument spec; the run reads them
as a ``_declaration.ServiceDeclaration``)."""

from .._model._request import LEASE_OPTIONS, Request, TAG_PREFIX, WAIT_OPTIONS


class ServiceRequest(Request):
    """The options of the ``service`` module (with the wait options, which its run reads too)."""

    spec = dict(
        name=dict(type="str", required=True),
        name_suffix=dict(type="str"),
        load_balancers=dict(type="list", elements="str", required=True),
        ports=dict(type="list", elements="dict", default=[], options=dict(
            name=dict(type="str"),
            port=dict(type="int", required=True),
            target_port=dict(type="int"),
            mode=dict(type="str", choices=["tcp", "http"], default="tcp"),
            health_check=dict(type="raw"),
            server_timeout=dict(type="raw"),
            client_timeout=dict(type="raw"),
            ssl=dict(type="bool", default=False),
            ssl_certificate_path=dict(type="str"),
            allow_sources=dict(type="list", elements="str"),
            enabled=dict(type="bool"),   # unset: the service's ``enabled``
        )),
        enabled=dict(type="bool", default=True),   # the ports' frontends in service (maintenance)
        allow_sources=dict(type="list", elements="str"),
        allow_sources_bypass=dict(type="str", choices=["warn", "fail"], default="warn"),
        addresses=dict(type="list", elements="str", default=[]),
        servers=dict(type="list", elements="dict", default=[], options=dict(
            name=dict(type="str", required=True),
            address=dict(type="str", required=True, aliases=["ip"]),
            check=dict(type="raw", default="enabled"),   # enabled/disabled or a boolean (_health_check.server_check)
        )),
        tag_prefix=dict(TAG_PREFIX),
        **LEASE_OPTIONS,
        state=dict(type="str", choices=["present", "absent"], default="present"),
        dns=dict(type="dict", options=dict(
            zone=dict(type="str", required=True),
            name=dict(type="str", required=True),
            ttl=dict(type="int"),
            wait=dict(type="str", choices=["served"]),
            nameservers=dict(type="list", elements="str"),
        )),
        **WAIT_OPTIONS
    )
