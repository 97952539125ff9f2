# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A module's options as its run takes them: one typed request per module, whose fields and defaults are the
module's argument spec, stated once (pure, no I/O).

A module declares ``argument_spec = TheRequest.spec``; its run reads ``TheRequest.from_params(params)``, never a
module's params. Code that makes a request itself (gc's removal of an owner as the service would remove it, tests)
names only what differs: every option left out has the spec's default, so no default is written twice."""

import copy

# The prefix of the owner tag (and of leases, markers, placements), an option of every module that writes or reads
# owners; its default stated once.
TAG_PREFIX = dict(type="str", default="anxlb")
# The lease options of the modules that take leases (service, gc).
LEASE_OPTIONS = dict(
    lease_timeout=dict(type="int", default=1800),
    lease_holder=dict(type="str"),
)

# The options of doc fragment anxcloud.lbaas.wait (the module base adds them to a module that waits; a request that
# reads them states them with its own).
WAIT_OPTIONS = dict(
    wait=dict(type="bool", default=True),
    wait_timeout=dict(type="raw", default=600),   # seconds or a duration (10m): turned into seconds before the run
)


class Request:
    """Attributes named as the options of ``spec`` (the argument spec: option -> {type, default, ...})."""

    spec = {}

    def __init__(self, **values):
        unknown = sorted(set(values) - set(self.spec))
        if unknown:
            raise TypeError("%s has no option %s" % (type(self).__name__, ", ".join(unknown)))
        for name, option in self.spec.items():
            setattr(self, name, values[name] if name in values else copy.deepcopy(option.get("default")))

    @classmethod
    def from_params(cls, params):
        """The request of a module's ``params`` (Ansible has put the defaults in; an option given as null stays null)."""
        return cls(**dict((name, params[name]) for name in cls.spec if name in params))

    def as_params(self):
        return dict((name, getattr(self, name)) for name in self.spec)
