"""Read-only modules carry no write code: what Ansible ships with them (every file they import, at any
depth, as its module packager finds imports) holds no applier, no loop, no predictions, no writing run."""
import ast
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 5))
PACKAGE = "ansible_collections.anxcloud.lbaas.plugins."
READ_ONLY = sorted(f for f in os.listdir(os.path.join(ROOT, "plugins", "modules")) if f.endswith("_info.py"))
WRITE = (
    "module_utils/_reconcile/_apply.py", "module_utils/_reconcile/_loop.py", "module_utils/_reconcile/_predictions.py",
    "module_utils/_addresses/_apply.py", "module_utils/_addresses/_run.py", "module_utils/_gc/_apply.py",
    "module_utils/_gc/_run.py", "module_utils/_service/_guard.py", "module_utils/_service/_run.py",
    "module_utils/_lbaas/_object_module.py", "module_utils/_dns/_apply.py", "module_utils/_dns/_run.py",
    "module_utils/_lbaas/_predicted.py", "module_utils/_addresses/_predicted.py", "module_utils/_dns/_predicted.py",
)


def absolute(path, node):
    """The dotted module an ``ImportFrom`` in ``path`` names; a relative one (``from ..module_utils._x import y``)
    resolved from the file's package, as Python and Ansible's packager resolve it."""
    if not node.level:
        return node.module or ""
    package = PACKAGE.rstrip(".").split(".") + os.path.relpath(os.path.dirname(path), os.path.join(ROOT, "plugins")).split(os.sep)
    base = package[:len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported(path):
    """The collection's files ``path`` imports: every import statement, also inside functions (Ansible's
    packager sees those too)."""
    out = set()
    for node in ast.walk(ast.parse(open(path).read())):
        module = absolute(path, node) if isinstance(node, ast.ImportFrom) else None
        if module and module.startswith(PACKAGE):
            base = os.path.join(ROOT, "plugins", *module[len(PACKAGE):].split("."))
            if os.path.isdir(base):
                out.update(os.path.join(base, alias.name + ".py") for alias in node.names)
            else:
                out.add(base + ".py")
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith(PACKAGE) for a in node.names), "plain import of the collection in %s" % path
    return set(p for p in out if os.path.exists(p))


def closure(path):
    seen, todo = set(), [path]
    while todo:
        for found in imported(todo.pop()) - seen:
            seen.add(found)
            todo.append(found)
    return sorted(os.path.relpath(p, os.path.join(ROOT, "plugins")) for p in seen)


def test_the_closure_follows_imports_at_any_depth():
    shipped = closure(os.path.join(ROOT, "plugins", "modules", "service.py"))
    assert "module_utils/_reconcile/_apply.py" in shipped and "module_utils/_engine/_errors.py" in shipped


@pytest.mark.parametrize("module", READ_ONLY)
def test_a_read_only_module_imports_no_write_code(module):
    shipped = closure(os.path.join(ROOT, "plugins", "modules", module))
    assert "module_utils/_module/_base.py" in shipped
    assert [f for f in shipped if f in WRITE] == []


OVERLAYS = {"lbaas": "module_utils/_lbaas/_predicted.py", "addresses": "module_utils/_addresses/_predicted.py",
            "dns": "module_utils/_dns/_predicted.py"}


@pytest.mark.parametrize("module,families", [
    ("backend.py", ["lbaas"]), ("frontend.py", ["lbaas"]), ("bind.py", ["lbaas"]), ("server.py", ["lbaas"]),
    ("acl.py", ["lbaas"]), ("rule.py", ["lbaas"]), ("service.py", ["lbaas", "addresses", "dns"]),
    ("ip_address.py", ["lbaas", "addresses"]), ("dns_record.py", ["dns"])])
def test_a_predicting_module_ships_the_predictions_and_the_overlays_of_what_it_reads(module, families):
    # by plain import statements (_reconcile/_predicting.py, the module's overlays), which Ansible's packager follows
    shipped = closure(os.path.join(ROOT, "plugins", "modules", module))
    assert "module_utils/_reconcile/_predictions.py" in shipped
    assert sorted(f for f, path in OVERLAYS.items() if path in shipped) == sorted(families)


PLANNING = ("module_utils/_reconcile/_plan.py", "module_utils/_service/_plan.py", "module_utils/_addresses/_plan.py",
            "module_utils/_gc/_plan.py", "module_utils/_lbaas/_planner.py") + WRITE


@pytest.mark.parametrize("observer", [
    "_addresses/_observe.py", "_lbaas/_views.py", "_lbaas/_lookup.py", "_service/_observe.py"])
def test_observation_imports_no_planning(observer):
    shipped = closure(os.path.join(ROOT, "plugins", "module_utils", observer))
    assert [f for f in shipped if f in PLANNING] == []
