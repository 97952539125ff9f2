# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a gc run is asked to do, as it takes it: the ``gc`` module's options read once (``GcRequest.from_params``).
``GcRun`` and the live-set checks (``_live``) read these attributes, never a module's params; ``GcRun.validate``
checks them before any request. Pure, no I/O."""


class GcRequest:
    OPTIONS = ("keep", "keep_new", "dns_zones", "collect_all", "strict_keep", "remove", "tag_prefix", "load_balancers",
               "pools", "min_age", "prune_orphans", "max_delete", "lease_timeout", "lease_holder", "wait_timeout")

    def __init__(self, keep=None, keep_new=(), dns_zones=(), collect_all=False, strict_keep=True, remove=(),
                 tag_prefix="anxlb", load_balancers=(), pools=(), min_age=0, prune_orphans=False, max_delete=100,
                 lease_timeout=1800, lease_holder=None, wait_timeout=600):
        self.keep = None if keep is None else list(keep)   # None: no live set given (remove only, or collect_all)
        self.keep_new = list(keep_new or [])
        self.dns_zones = list(dns_zones or [])
        self.collect_all = collect_all
        self.strict_keep = strict_keep
        self.remove = list(remove or [])
        self.tag_prefix = tag_prefix
        self.load_balancers = list(load_balancers or [])
        self.pools = list(pools or [])
        self.min_age = min_age
        self.prune_orphans = prune_orphans
        self.max_delete = max_delete     # None: no cap
        self.lease_timeout = lease_timeout
        self.lease_holder = lease_holder
        self.wait_timeout = wait_timeout

    @classmethod
    def from_params(cls, params):
        """The request of the ``gc`` module's options (an option the module leaves unset: its default; an unset
        ``max_delete``, no cap, stays unset)."""
        out = cls(**dict((key, params[key]) for key in cls.OPTIONS if params.get(key) is not None))
        if "max_delete" in params and params["max_delete"] is None:
            out.max_delete = None
        return out
