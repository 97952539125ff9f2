"""A task refused for its arguments loads no dnspython and none of the run's code (issue 28, point 5): the modules
import dnspython, and the service, gc and run layers, only once a run starts (requests and netaddr are imported at
file level, in ``try``: every valid run loads them anyway, issue 40, item 6). Measured, not timed: every module's
``main()`` runs in one Python process, as Ansible runs a module, with an option no module has; afterwards the
process must not have imported any of them (what one module imported, the next would inherit, so the set is checked
once, after all of them)."""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 5))
MODULES = sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "plugins", "modules")) if f.endswith(".py"))
LIBRARIES = ("dns",)
# What a run needs and a refused task must not load: the orchestrating layers and every file that starts a run.
RUN_CODE = ("_service", "_gc", "_dns._run", "_dns._owners", "_addresses._run", "_addresses._pool",
            "_reconcile._apply", "_reconcile._predictions")

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


def test_a_task_refused_for_its_arguments_imports_no_dnspython_and_no_run_code(tmp_path):
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
    assert [m for m in seen["modules"] if m.split(".")[0] in LIBRARIES] == []
    utils = "ansible_collections.anxcloud.lbaas.plugins.module_utils."
    ours = [m[len(utils):] for m in seen["modules"] if m.startswith(utils)]
    assert "_module._base" in ours   # the probe did run the modules
    # a module's typed request (``*._request``) is its argument spec, stated once: imported with the module (pure),
    # and with it its package (an empty __init__)
    assert [m for m in ours if m.startswith(RUN_CODE) and not m.endswith("._request") and "." in m] == []
