"""No function in plugins/ above cyclomatic complexity 15 (as radon, pinned in requirements-dev.txt, counts it).

Functions with more branches than that are hard to review and to test path by path; split them.
"""
import glob
import os

from radon.complexity import cc_visit
from radon.visitors import Class

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIMIT = 15


def _functions(blocks):
    """(qualified name, complexity) of every function and method; a closure counts within its function.
    radon lists the methods of a module-level class beside its functions, those of an inner class in it."""
    for block in blocks:
        if isinstance(block, Class):
            for inner in block.inner_classes:
                yield from _functions(inner.methods + inner.inner_classes)
        else:
            yield block.fullname, block.complexity


def _package(path):
    parts = os.path.relpath(path, os.path.join(ROOT, "plugins")).split(os.sep)
    return parts[1] if parts[0] == "module_utils" and len(parts) > 2 else parts[0]


def measured():
    """``{(package, qualified name): (file, complexity)}`` of every function in plugins/."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "plugins", "**", "*.py"), recursive=True)):
        with open(path) as handle:
            source = handle.read()
        for name, complexity in _functions(cc_visit(source)):
            found[(_package(path), name)] = (os.path.relpath(path, ROOT), complexity)
    return found


def above_limit():
    return dict((key, value) for key, value in measured().items() if value[1] > LIMIT)


def _listing(found):
    return "\n".join("%s %s: %d" % (path, key[1], cc) for key, (path, cc) in sorted(found.items()))


def test_the_measure_sees_the_code():
    functions = measured()
    assert len(functions) > 500, len(functions)   # every plugin and module_utils file, methods included
    assert functions[("_engine", "EngineClient.request")][1] > 1
    assert ("filter", "group_servers") in functions


def test_no_function_above_the_limit():
    found = above_limit()
    assert not found, "above cyclomatic complexity %d:\n%s" % (LIMIT, _listing(found))
