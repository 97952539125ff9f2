"""The per-object modules take their field options from the kinds' declaration (field_options), as before it
they wrote them by hand, and their hand-written DOCUMENTATION says the same (what validate-modules compares)."""
import importlib

import pytest
import yaml

from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._object_module import field_options
from ansible_collections.anxcloud.lbaas.plugins.module_utils._lbaas._parent_typed import AclModule, RuleModule
from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import ACL, BACKEND, BIND, FRONTEND, RULE, SERVER
from ansible_collections.anxcloud.lbaas.plugins.modules import acl, backend, bind, frontend, rule, server
from ansible_collections.anxcloud.lbaas.plugins.modules.backend import BackendModule
from ansible_collections.anxcloud.lbaas.plugins.modules.bind import BindModule
from ansible_collections.anxcloud.lbaas.plugins.modules.frontend import FrontendModule
from ansible_collections.anxcloud.lbaas.plugins.modules.server import ServerModule

# The field options as the modules wrote them by hand before they were derived: names, types, choices, aliases.
WRITTEN = {
    "backend": {"mode": {"type": "str", "choices": ["tcp", "http"]}, "health_check": {"type": "raw"},
                "server_timeout": {"type": "raw"}, "enabled": {"type": "bool"}},
    "frontend": {"mode": {"type": "str", "choices": ["tcp", "http"]}, "default_backend": {"type": "str"},
                 "client_timeout": {"type": "raw"}, "enabled": {"type": "bool"}},
    "bind": {"address": {"type": "str"}, "port": {"type": "int"}, "ssl": {"type": "bool"},
             "ssl_certificate_path": {"type": "str"}},
    "server": {"address": {"type": "str", "aliases": ["ip"]}, "port": {"type": "int"}, "check": {"type": "raw"}},
    "acl": {"criterion": {"type": "str"}, "value": {"type": "str"}, "index": {"type": "int"}},
    "rule": {"index": {"type": "int"}, "condition": {"type": "str"}, "condition_test": {"type": "str"},
             "type": {"type": "str"}, "action": {"type": "str"}, "redirection_type": {"type": "str"},
             "redirection_code": {"type": "str"}, "redirection_value": {"type": "str"}, "rule_type": {"type": "str"}},
}
MODULES = [(BackendModule, BACKEND, backend), (FrontendModule, FRONTEND, frontend), (BindModule, BIND, bind),
           (ServerModule, SERVER, server), (AclModule, ACL, acl), (RuleModule, RULE, rule)]
IDS = [kind.name for _m, kind, _d in MODULES]


@pytest.mark.parametrize("module,kind,doc", MODULES, ids=IDS)
def test_field_options_are_the_declaration_and_as_written_before(module, kind, doc):
    derived = field_options(kind)
    assert derived == WRITTEN[kind.name]
    assert dict((option, module.argument_spec[option]) for option in derived) == derived


def documented_options(doc):
    """The module's options with those of the collection's fragments it extends, as ansible-doc merges them."""
    documentation = yaml.safe_load(doc.DOCUMENTATION)
    options = {}
    for name in documentation.get("extends_documentation_fragment") or []:
        parts = name.split(".")[2:]   # anxcloud.lbaas.<fragment>[.<variable>]
        fragment = importlib.import_module("ansible_collections.anxcloud.lbaas.plugins.doc_fragments." + parts[0])
        text = getattr(fragment.ModuleDocFragment, parts[1].upper() if len(parts) > 1 else "DOCUMENTATION")
        options.update(yaml.safe_load(text).get("options") or {})
    options.update(documentation["options"])
    return options


@pytest.mark.parametrize("module,kind,doc", MODULES, ids=IDS)
def test_documentation_agrees_with_the_derived_options(module, kind, doc):
    """What ansible-test validate-modules compares: type, choices, aliases and (no) default of each field option."""
    documented = documented_options(doc)
    for option, spec in field_options(kind).items():
        assert option in documented, option
        doc_spec = documented[option]
        assert doc_spec.get("type", "str") == spec["type"], option
        assert doc_spec.get("choices") == spec.get("choices"), option
        assert doc_spec.get("aliases") == spec.get("aliases"), option
        assert doc_spec.get("default") is None, option


def test_parent_type_and_parent_links_are_set_by_the_parent_option_not_their_own():
    for kind in (ACL, RULE):
        for form in kind.variants.values():
            assert set(form.variant_fields()) == {"parent_type", "frontend", "backend"}
            assert not set(field_options(form)) & {"parent_type", "frontend", "backend"}
    assert SERVER.option_name("ip") == "address" and BIND.option_name("address") == "address"
    assert RULE.option_type("index") == "int" and RULE.option_type("redirection_code") == "str"
    assert BACKEND.option_type("server_timeout") == "raw"   # a duration, read by the module (_durations)
