"""Imports at one seam (issue 40, item 6): plugins/ imports inside a function only what a run may never need, and
everything else at file level. tests/bench/import_cost.py measured that laziness pays only there (a no-op service
task costs no more CPU with every other import at file level); anywhere else an import inside a function only hides
what a file depends on. The seams, each kept in the function that needs it:

- the write code: ``_apply`` and ``_wait`` modules (and ``_dns._changeset``, which imports ``_dns._apply`` and
  ``_reconcile._apply`` at its top), imported only when a plan has something to write (``Run._applier``,
  ``Part.operations``);
- check mode's predictions and overlays (``_predictions``, ``_predicted``);
- what only the DNS options need: dnspython (optional), and service_info's zone reads (``_dns._values``,
  ``_dns._owners``) when it runs without ``dns_zones``;
- PyYAML, for the --diff text only.

A third-party library at file level is imported in ``try`` / ``except ImportError``: a module still loads without
it, and reports it missing with Ansible's message (``_module/_base.py``, REQUIRED_LIBRARIES), not with a traceback.
Checked by an AST walk of plugins/, and at run time by a task refused for its arguments (every module's ``main()``
run in one Python process, as Ansible runs a module): it answers in JSON and loads none of the seams.
"""
import ast
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 5))
PLUGINS = os.path.join(ROOT, "plugins")
MODULES = sorted(f[:-3] for f in os.listdir(os.path.join(PLUGINS, "modules")) if f.endswith(".py"))

# What may be imported inside a function (the statement's text, as tests/bench/import_cost.py SEAMS reads it).
SEAMS = re.compile(r"\._apply\b|\._wait\b|\._predictions\b|\._predicted\b|^import dns\.|^import yaml\b|"
                   r"_dns\._values\b|_dns\._owners\b")
# Write code the pattern does not name: file -> statement, each with the reason.
WRITE_CODE = {
    # _changeset imports ._apply and .._reconcile._apply at its top: dns_record_sets' write operations
    "module_utils/_dns/_record_sets_run.py": "from ._changeset import ZoneChangeset",
}
# Third-party libraries a module may run without (or must report missing): at file level only inside ``try``.
OPTIONAL = ("requests", "urllib3", "netaddr", "dns", "yaml", "jmespath")


def sources():
    for folder, _dirs, files in os.walk(PLUGINS):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as handle:
                    yield os.path.relpath(path, PLUGINS), handle.read()


def function_imports(source):
    """(line, statement) of every import inside a function of ``source``, the statement without its comment."""
    lines, out = source.splitlines(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    text = " ".join(line.split("#")[0].strip() for line in lines[sub.lineno - 1:sub.end_lineno])
                    out.add((sub.lineno, text.strip()))
    return sorted(out)


def misplaced(relpath, source):
    return ["%s:%d: %s" % (relpath, line, text) for line, text in function_imports(source)
            if not SEAMS.search(text) and WRITE_CODE.get(relpath) != text]


def unguarded(relpath, source):
    """File-level imports of an optional library outside ``try`` / ``except ImportError``."""
    out = []

    def walk(body, guarded):
        for node in body:
            if isinstance(node, ast.Try):
                catches = any(h.type is None or "ImportError" in ast.dump(h.type) for h in node.handlers)
                walk(node.body, guarded or catches)
                for handler in node.handlers:
                    walk(handler.body, guarded)
            elif isinstance(node, ast.If):
                walk(node.body, guarded)
                walk(node.orelse, guarded)
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and not guarded:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if not node.level else []
                out.extend("%s:%d: %s" % (relpath, node.lineno, n) for n in names if n.split(".")[0] in OPTIONAL)
    walk(ast.parse(source).body, False)
    return out


def test_functions_import_only_at_the_seams():
    assert [m for relpath, source in sources() for m in misplaced(relpath, source)] == []


def test_the_write_code_exceptions_are_still_there():
    # an exception that no longer matches anything is stale: drop it
    found = dict(sources())
    for relpath, text in WRITE_CODE.items():
        assert text in [t for _l, t in function_imports(found[relpath])], relpath


def test_optional_libraries_at_file_level_are_guarded():
    assert [m for relpath, source in sources() for m in unguarded(relpath, source)] == []


@pytest.mark.parametrize("source,wrong", [
    ("def f():\n    from .._engine._errors import EngineError\n", True),
    ("def f():\n    import netaddr\n", True),
    ("class A:\n    def f(self):\n        from ._changeset import ZoneChangeset\n", True),   # another file
    ("def f():\n    from ._apply import Applier   # the write code\n", False),
    ("def f():\n    from ..module_utils._dns._predicted import DnsOverlay\n", False),
    ("def f():\n    import dns.name\n", False),
    ("def f():\n    import yaml\n", False),
    ("def f():\n    from ..module_utils._dns._owners import names_by_owner\n", False),
])
def test_the_rule_catches_an_import_off_the_seams(source, wrong):
    assert bool(misplaced("module_utils/_x/_y.py", source)) is wrong


@pytest.mark.parametrize("source,wrong", [
    ("import netaddr\n", True),
    ("from requests.adapters import HTTPAdapter\n", True),
    ("try:\n    import netaddr\nexcept ImportError:\n    netaddr = None\n", False),
    ("try:\n    import jmespath\nexcept (ImportError, ValueError):\n    jmespath = None\n", False),
    ("from ._x import netaddr\n", False),
])
def test_the_rule_catches_an_unguarded_library(source, wrong):
    assert bool(unguarded("module_utils/_x/_y.py", source)) is wrong


PROBE = r"""
import json, runpy, sys
results, args = [], sys.argv[1]
for name in sys.argv[2:]:
    sys.argv = [name, args]
    try:
        runpy.run_module("ansible_collections.anxcloud.lbaas.plugins.modules." + name, run_name="__main__")
    except SystemExit as exc:
        results.append([name, exc.code])
print(json.dumps(dict(results=results, modules=sorted(sys.modules))), file=sys.__stderr__)
"""
# the seams as module names: what no module imports before a run needs it
SEAM_MODULES = re.compile(r"\._apply$|\._wait$|\._predictions$|\._predicted$|\._changeset$|\._owners$")


def test_a_task_refused_for_its_arguments_answers_and_loads_none_of_the_seams(tmp_path):
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": {"bogus": 1}}))
    collections = subprocess.check_output([os.path.join(ROOT, "scripts", "collection-path.sh")], text=True).strip()
    proc = subprocess.run([sys.executable, "-c", PROBE, str(args)] + MODULES, capture_output=True, text=True, cwd=str(tmp_path),
                          env=dict(os.environ, PYTHONPATH=collections), check=False)
    seen = json.loads(proc.stderr.strip().splitlines()[-1])
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    # each module refused the option, as a JSON answer (exit code 1), not a crash
    assert list(seen["results"]) == [[name, 1] for name in MODULES], proc.stdout[-2000:]
    assert len(answers) == len(MODULES)
    for answer in answers:
        assert answer["failed"] and "Unsupported parameters" in answer["msg"] and "bogus" in answer["msg"], answer
    assert [m for m in seen["modules"] if m.split(".")[0] in ("dns", "yaml")] == []
    utils = "ansible_collections.anxcloud.lbaas.plugins.module_utils."
    ours = [m[len(utils):] for m in seen["modules"] if m.startswith(utils)]
    assert "_module._base" in ours and "_service._run" in ours   # the probe did run the modules, eager but at the seams
    assert [m for m in ours if SEAM_MODULES.search(m)] == []
