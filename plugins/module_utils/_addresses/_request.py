# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The ``ip_address`` module's options as its run takes them (pure: a module imports it for its argument spec)."""

from .._model._group_options import with_ignored_wait
from .._model._request import Request, TAG_PREFIX


class AddressRequest(Request):
    """One owner's addresses as a run takes them: the ``ip_address`` module's options (``spec``, its argument spec,
    stated here once), read once (``from_params``). ``OwnerAddresses`` reads these attributes and validates them."""

    spec = with_ignored_wait(dict(
        pool=dict(type="list", elements="str"),
        owner=dict(type="str", required=True),
        family=dict(type="str", choices=["v4", "v6"]),
        count=dict(type="int", default=1),
        range_start=dict(type="str"),
        range_end=dict(type="str"),
        exclude=dict(type="list", elements="str", default=[]),
        strategy=dict(type="str", choices=["first", "last"], default="first"),
        tag_prefix=dict(TAG_PREFIX),
        rdns_name=dict(type="str"),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        force=dict(type="bool", default=False),
        ignore_binds=dict(type="list", elements="str", default=[]),
    ))
