"""The per-object modules' field options and the kinds' declaration say the same (Kind.option_type)."""
import pytest

from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._object_module import field_options
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._parent_typed import AclModule, RuleModule
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import ACL, RULE
from ansible_collections.anxcloud.lbaas.plugins.modules.backend import BackendModule
from ansible_collections.anxcloud.lbaas.plugins.modules.bind import BindModule
from ansible_collections.anxcloud.lbaas.plugins.modules.frontend import FrontendModule
from ansible_collections.anxcloud.lbaas.plugins.modules.server import ServerModule


def test_acl_and_rule_options_are_their_declared_fields():
    assert field_options(ACL, skip=("parent_type",)) == {"criterion": {"type": "str"}, "value": {"type": "str"},
                                                         "index": {"type": "int"}}
    for module, kind in ((AclModule, ACL), (RuleModule, RULE)):
        fields = [f for f in kind.fields if f not in kind.links and f != "parent_type"]
        assert dict((f, module.argument_spec[f]) for f in fields) == field_options(kind, skip=("parent_type",))
    assert RULE.option_type("index") == "int" and RULE.option_type("redirection_code") == "str"


@pytest.mark.parametrize("module", [BackendModule, FrontendModule, BindModule, ServerModule], ids=lambda m: m.__name__)
def test_hand_written_options_agree_with_the_declaration(module):
    """Where a module still writes its field options itself, each option named like a field has the declared
    type, unless the module reads it otherwise (durations, structured health checks, renderers)."""
    kind = module.kind
    own = set(module.durations) | set(module.renderers) | set(kind.links)
    for field in kind.fields:
        option = module.field_options.get(field, field)
        if field in own or option not in module.argument_spec:
            continue
        assert module.argument_spec[option]["type"] == kind.option_type(field), (field, option)
