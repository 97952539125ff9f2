"""Imports between the packages of plugins/module_utils run one way (docs/how-reconciliation-works.md,
"The code in layers"; docs/images/layers.dot):

    _engine <- _model <- _reconcile <- _lbaas, _addresses, _dns <- _service <- _gc

A file may import its own package and any package to the left of it, never one to the right, and
``_lbaas``, ``_addresses`` and ``_dns`` (one level) not each other. ``_module`` (the module base class) imports
only ``_engine`` and ``_model``, and of the packages only ``_lbaas``'s module bases (``_object_module``,
``_info_module``) build on it; the modules in plugins/modules import what they need. Every import
statement counts, also one inside a function (Ansible's packager ships those too).
"""
import ast
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 4))
UTILS = os.path.join(ROOT, "plugins", "module_utils")
PACKAGE = "ansible_collections.anxcloud.lbaas.plugins.module_utils."
LEVEL = {"_engine": 0, "_model": 1, "_reconcile": 2, "_lbaas": 3, "_addresses": 3, "_dns": 3, "_service": 4, "_gc": 5}
MODULE_BASE = "_module"
MODULE_BASE_USERS = ("_lbaas/_object_module.py", "_lbaas/_info_module.py")
MODULE_BASE_IMPORTS = ("_engine", "_model")


def files():
    for package in sorted(os.listdir(UTILS)):
        if os.path.isdir(os.path.join(UTILS, package)) and package.startswith("_") and package != "__pycache__":
            for name in sorted(os.listdir(os.path.join(UTILS, package))):
                if name.endswith(".py"):
                    yield package, package + "/" + name


def absolute(relpath, node):
    """The dotted module an ``ImportFrom`` in ``relpath`` (below module_utils) names; a relative one is
    resolved from the file's package, as Python and Ansible's packager resolve it."""
    if not node.level:
        return node.module or ""
    package = PACKAGE.rstrip(".").split(".") + relpath.split("/")[:-1]
    base = package[:len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported_packages(relpath):
    """(line, package) for every import of a module_utils package in the file."""
    out = []
    for node in ast.walk(ast.parse(open(os.path.join(UTILS, relpath)).read())):
        names = []
        if isinstance(node, ast.ImportFrom):
            names = [absolute(relpath, node)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        out.extend((node.lineno, n[len(PACKAGE):].split(".")[0]) for n in names if n.startswith(PACKAGE))
    return out


def allowed(package, relpath, other):
    if other == package:
        return True
    if package == MODULE_BASE:
        return other in MODULE_BASE_IMPORTS
    if other == MODULE_BASE:
        return relpath in MODULE_BASE_USERS
    return LEVEL[other] < LEVEL[package]


def test_every_package_has_a_place_in_the_order():
    assert set(p for p, _f in files()) == set(LEVEL) | {MODULE_BASE}


@pytest.mark.parametrize("package,relpath", list(files()), ids=lambda v: v)
def test_imports_run_one_way(package, relpath):
    wrong = ["%s:%d imports %s" % (relpath, line, other) for line, other in imported_packages(relpath)
             if not allowed(package, relpath, other)]
    assert wrong == []


def test_the_rule_catches_an_upward_import():
    assert not allowed("_reconcile", "_reconcile/_predictions.py", "_addresses")
    assert not allowed("_addresses", "_addresses/_pool.py", "_lbaas")
    assert not allowed("_service", "_service/_run.py", "_module")
    assert allowed("_gc", "_gc/_run.py", "_service") and allowed("_lbaas", "_lbaas/_info_module.py", "_module")
