"""A kind is declared once (issue 28): no list, tuple, set or dict in plugins/ names two or more LBaaS kinds
outside the declaration (``_model/_kinds.py``) and the transport's own path table (``_engine/_client.py``, which
cannot import the model). Everything else derives the kinds from ``KINDS``; a literal list elsewhere is the
kind of restatement that let a new kind leave gaps (a frontend with ACLs looked deletable in ``--check``)."""
import ast
import os

from ansible_collections.anxcloud.lbaas.plugins.module_utils._model._kinds import KINDS

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 4))
PLUGINS = os.path.join(ROOT, "plugins")
ALLOWED = {os.path.join("module_utils", "_model", "_kinds.py"): 2,    # KINDS' frontend/backend parent pair
           os.path.join("module_utils", "_engine", "_client.py"): 2}  # the path table and its link fields
NAMES = set(KINDS) - {"loadbalancer"}   # the load balancer is every kind's root, named as such on its own


def enumerations(path):
    """(line, names) of each collection literal in ``path`` holding two or more kind names."""
    with open(path) as source:
        tree = ast.parse(source.read())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        names = sorted(set(i.value for i in items if isinstance(i, ast.Constant) and i.value in NAMES))
        if len(names) >= 2:
            found.append((node.lineno, names))
    return found


def test_the_kinds_are_named_together_only_in_the_declaration_and_the_transport():
    assert len(NAMES) == 6, NAMES   # the scan is about the declared kinds, whatever they are
    outside, counts = [], {}
    for folder, _dirs, files in os.walk(PLUGINS):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, PLUGINS)
            found = enumerations(path)
            if rel in ALLOWED:   # a nested literal (the pairs of _kinds.py) counts once, by its line
                counts[rel] = len(set(line for line, _names in found))
            else:
                outside.extend("%s:%d %s" % (rel, line, names) for line, names in found)
    assert outside == []
    assert all(counts.get(rel, 0) <= limit for rel, limit in ALLOWED.items()), counts
