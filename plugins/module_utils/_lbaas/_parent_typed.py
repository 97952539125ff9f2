# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The acl and rule modules (and their _info): objects whose parent is a frontend or a backend.

They are the per-object modules of _object_module.py with the kind chosen by the parent option given
(``frontend`` or ``backend``, its ``parent_type``), plus what ties a rule to the ACLs of its parent: a
rule names an ACL by name (``condition_test``), so a rule naming none fails before any write, and an
ACL a rule names is neither renamed nor deleted under it (the Engine answers 409).
"""

from .._engine._listings import listed_objects
from ._lookup import describe, find_by_name
from ._object_module import (
    LbaasObjectModule, field_options, object_argument_spec)
from .._model._failure import Failure
from .._model._kinds import (
    ACL, RULE, normalize_acl_value)
from ._parent_type import (
    PARENT_TYPES, chosen_kind, given_parent, parent_options)
from .._model._kind import CREATE, DELETE, UPDATE


class ParentTypedModule(LbaasObjectModule):
    generic = None          # ACL or RULE, as in KINDS
    scope_option = "load_balancer"
    module_kwargs = dict(required_one_of=[("name", "id")], mutually_exclusive=[PARENT_TYPES])

    def run(self):
        self.kind = chosen_kind(self.generic, self.params, self.client)
        super().run()

    def resolve_parent(self):
        if self.params["id"] is None and given_parent(self.params) is None:
            raise Failure("one of %s is required unless id is given" % " or ".join(PARENT_TYPES))
        return super().resolve_parent()

    def validate(self):
        index = self.params.get("index")
        if index is not None and index < 0:
            raise Failure("index must be 0 or more, got %d" % index)

    def desired_fields(self):
        out = super().desired_fields()
        if given_parent(self.params) is not None:
            out["parent_type"] = self.kind.parent_kind
        return out

    def plan(self, state):
        plan = super().plan(state)
        for action in plan:
            self.check_action(action, state)
        return plan

    def check_action(self, action, state):
        """Per-kind checks of a planned write, before any write."""


class AclModule(ParentTypedModule):
    generic = kind = ACL
    module_kwargs = dict(ParentTypedModule.module_kwargs, required_together=[("criterion", "value")])
    argument_spec = object_argument_spec(
        parents=parent_options(),
        fields=field_options(ACL),   # parent_type: set by the parent option given
    )

    def desired_fields(self):
        value = self.params.get("value")
        out = super().desired_fields()
        if value is not None:
            out["value"] = normalize_acl_value(self.params["criterion"], value, "value")
        return out

    def check_action(self, action, state):
        """An ACL that rules name by its name keeps that name while they do: renaming, moving or deleting
        it would leave them naming nothing (the Engine refuses with 409)."""
        renamed = action.op == UPDATE and "name" in action.changes
        if action.op != DELETE and not renamed:
            return
        obj = action.obj
        rules = self.rules_naming(obj)
        if rules:
            doing = "renamed" if renamed else "deleted"
            raise Failure("%s (%s) cannot be %s: rule%s %s name%s it (condition_test). To rename an ACL, create it "
                          "under the new name, point the rules at it (rule condition_test), then delete the old one"
                          % (describe("acl", obj), obj["id"], doing, "s" if len(rules) > 1 else "",
                             ", ".join("'%s' (%s)" % (r["name"], r["id"]) for r in rules),
                             "" if len(rules) > 1 else "s"),
                          blockers=[dict(type="rule", id=r["id"], name=r["name"]) for r in rules])

    def rules_naming(self, obj):
        """Rules of the ACL's parent naming its name, unless another ACL there carries the same name."""
        parent = {"kind": self.kind.parent_kind, "id": obj.get(self.kind.parent)}
        if not parent["id"]:
            return []
        same = [a for a in find_by_name(self.client, "acl", obj["name"], parent) if a["id"] != obj["id"]]
        if same:
            return []
        listed = self.client.lbaas_list("rule", **{self.kind.parent: parent["id"]})
        rules = [RULE.from_engine(r) for r in listed_objects(self.client, RULE, listed)]
        return sorted((r for r in rules if r.get("condition_test") == obj["name"]), key=lambda r: r["name"] or "")


class RuleModule(ParentTypedModule):
    generic = kind = RULE
    argument_spec = object_argument_spec(
        parents=parent_options(),
        fields=field_options(RULE),
    )

    def validate(self):
        super().validate()
        if self.params.get("condition") == "unless":
            # One ACL per value and rules joined by order express every allow-list with "if"; "unless" is
            # no value the Engine's own clients are known to send (go-anxcloud e2e_test.go sends "if").
            raise Failure("condition: 'unless' is not supported; write the rule with condition 'if' and the "
                          "opposite action (an allow-list: accept rules, then a final reject)")
        for option in ("condition_test", "condition", "type", "action"):
            value = self.params.get(option)
            if value is not None and not value.strip():
                raise Failure("%s must not be empty" % option)

    def check_action(self, action, state):
        """A rule names an ACL of its own parent: one that is neither there nor predicted by an earlier
        check-mode task fails the task before any write."""
        if action.op not in (CREATE, UPDATE) or "condition_test" not in action.changes:
            return
        wanted = action.changes["condition_test"][1]
        parent = state.parent
        if parent is None or parent.get("gone"):
            return
        if parent.get("missing"):   # check mode under a parent no task created yet: warned about already
            self.module.warn("condition_test: the ACL '%s' cannot be checked before its %s exists"
                             % (wanted, parent["kind"]))
            return
        if not find_by_name(self.client, "acl", wanted, parent):
            raise Failure("condition_test: no ACL named '%s' on %s; create it first (module anxcloud.lbaas.acl, "
                          "in an earlier task)" % (wanted, describe(parent["kind"], parent)))
