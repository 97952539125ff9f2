# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""acl_info and rule_info: the objects of a frontend or a backend, in the order the Engine applies them."""

from ._info_module import LbaasInfoModule, info_argument_spec
from ._parent_type import (
    PARENT_TYPES, chosen_kind, given_parent, parent_options)
from .._model._failure import Failure


class ParentTypedInfo(LbaasInfoModule):
    generic = None
    scope_option = "load_balancer"
    argument_spec = info_argument_spec(parent_options())
    module_kwargs = dict(mutually_exclusive=[PARENT_TYPES])

    def run(self):
        self.kind = chosen_kind(self.generic, self.params)
        if self.params["id"] is None and self.params["owner"] is None and given_parent(self.params) is None:
            raise Failure("one of %s, id or owner is required" % ", ".join(PARENT_TYPES))
        super().run()
        key = self.generic.name + "s"
        # In the order the Engine applies them: by parent, then index (ties by name)
        self.result[key].sort(key=lambda o: (o.get("parent_type") or "", o.get(o.get("parent_type") or "") or "",
                                             o.get("index") if o.get("index") is not None else -1, o.get("name") or ""))
