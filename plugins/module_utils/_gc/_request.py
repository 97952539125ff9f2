# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a gc run is asked to do, as it takes it: the ``gc`` module's options read once (``GcRequest.from_params``).
``GcRun`` and the live-set checks (``_live``) read these attributes, never a module's params; ``GcRun.validate``
checks them before any request. Pure, no I/O."""

from .._model._request import LEASE_OPTIONS, Request, TAG_PREFIX
from .._model._group_options import with_ignored_wait


class GcRequest(Request):
    """The ``gc`` module's options (``spec``, its argument spec, stated here once; the wait options it ignores or
    uses are the module base's)."""

    spec = with_ignored_wait(dict(
        keep=dict(type="list", elements="str"),
        keep_new=dict(type="list", elements="str", default=[]),
        dns_zones=dict(type="list", elements="str", default=[]),
        collect_all=dict(type="bool", default=False),
        strict_keep=dict(type="bool", default=True),
        remove=dict(type="list", elements="str", default=[]),
        tag_prefix=dict(TAG_PREFIX),
        load_balancers=dict(type="list", elements="str", default=[]),
        pools=dict(type="list", elements="str", default=[]),
        min_age=dict(type="int", default=0),
        prune_orphans=dict(type="bool", default=False),
        max_delete=dict(type="int", default=100),   # None (given as null): no cap
        **LEASE_OPTIONS,
        wait_timeout=dict(type="raw", default=600),
    ), only=["wait"])
