"""One class per name in module_utils (issue 28): a class whose name ends in ``Plan`` is the reconciliation core's
``Plan`` or builds on it (an accumulator or a set of decisions is named for what it is), and one class is called
``Kind``. Plugin classes (ActionModule, ModuleDocFragment, ...) share their names by Ansible's convention, and a
stand-in defined where an import failed (``except ImportError``) is the same class's absence, not another class."""
import ast
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 4))
UTILS = os.path.join(ROOT, "plugins", "module_utils")


def _defined(node, out, rel, fallback=False):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef) and not fallback:
            bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "?") for b in child.bases]
            out.setdefault(child.name, []).append((rel, bases))
        _defined(child, out, rel, fallback or isinstance(child, ast.ExceptHandler))


def classes():
    """{name: [(file, base names)]} of every class defined in module_utils, but import-failure stand-ins."""
    out = {}
    for folder, _dirs, files in os.walk(UTILS):
        for name in (f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            with open(path) as source:
                _defined(ast.parse(source.read()), out, os.path.relpath(path, UTILS))
    return out


def test_every_plan_is_the_plan_and_one_class_is_called_kind():
    found = classes()
    assert all(len(where) == 1 for where in found.values()), dict((n, w) for n, w in found.items() if len(w) > 1)
    plans = dict((name, where[0][1]) for name, where in found.items() if name.endswith("Plan"))
    assert "Plan" in plans

    def is_plan(name):
        return name == "Plan" or any(is_plan(base) for base in plans.get(name, ()) if base in plans)
    assert [name for name in plans if not is_plan(name)] == []
    assert [where for where, _bases in found["Kind"]] == [os.path.join("_model", "_kind.py")]
