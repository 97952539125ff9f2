"""Runs a kept AnsiballZ payload (ANSIBLE_KEEP_REMOTE_FILES=1) as its own wrapper does, with CPU checkpoints:
``python ansiballz_stages.py AnsiballZ_X.py config.json``; used by import_cost.py, not by the tests.

The wrapper's steps are the same as ansible-core 2.19's (``ansible/_internal/_ansiballz/_wrapper.py``): the script
is compiled as Python compiles a script, the payload's zip is decoded into a temporary directory with its
``sitecustomize.py``, put first on ``sys.path``, and ``_loader.run_module`` runs the module as ``__main__``, so that
every module of ansible-core and of the collection is imported from the zip (zipimport: compiled each time, no
bytecode cache) and the libraries (requests, netaddr, dnspython) from the interpreter's site-packages, as in a real
run.
What this adds: ``time.process_time()`` (the process's user+sys CPU) read after each step, and optional steps:

- ``stages``: ``[name, [module, ...]]`` imported, in order, after ansible-core's loader and before the module runs
  (to charge their import to ``name`` instead of to the run); ``"compile:<module>"`` compiles that module's source
  from the zip instead;
- ``after``: the same, after the module has exited (SystemExit caught): what importing them would add to this run;
- ``out``: where the checkpoints go (JSON: ``[[name, cpu seconds so far], ...]``, the modules the run itself
  imported, the exit code). The first checkpoint is the interpreter's start (with ``site``) up to this file's first
  line. What the process spends after the last one (finalizing its modules at exit) only ``wait4`` sees.
"""
import time

CHECKPOINTS = [("interpreter start", time.process_time())]

import base64  # noqa: E402  (the wrapper's own imports, after the first checkpoint)
import importlib.util  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import zipfile  # noqa: E402

CALL = 'if __name__ == "__main__":\n    _ansiballz_main('


def mark(name):
    CHECKPOINTS.append((name, time.process_time()))


def wrapper_arguments(path):
    """The keyword arguments the kept script passes to ``_ansiballz_main`` (the zip, the module's name, its args),
    read by running the script with its last call made a dict: the script is compiled whole, as Python would."""
    with open(path) as handle:
        source = handle.read()
    if CALL not in source:
        raise SystemExit("%s: not an ansible-core 2.19 AnsiballZ script (no %r)" % (path, CALL))
    namespace = {"__name__": "ansiballz_stages", "__file__": path}
    code = compile(source.replace(CALL, 'if True:\n    _KW = dict('), path, "exec")
    exec(code, namespace)   # pylint: disable=exec-used
    return namespace["_KW"]


def load(target):
    if target.startswith("compile:"):
        name = target[len("compile:"):]
        loader = importlib.util.find_spec(name).loader
        compile(loader.get_source(name), loader.get_filename(name), "exec")
    else:
        importlib.import_module(target)


def main():
    payload, config_path = sys.argv[1], sys.argv[2]
    with open(config_path) as handle:
        config = json.load(handle)
    # as the wrapper: the script's own directory is not on sys.path
    sys.path = [p for p in sys.path if p not in ("", ".", os.path.dirname(os.path.realpath(__file__)))]
    kw = wrapper_arguments(payload)
    temp_path = os.path.realpath(tempfile.mkdtemp(prefix="ansible_" + kw["ansible_module"] + "_payload_"))
    code = None
    try:
        zipped = os.path.join(temp_path, "ansible_" + kw["ansible_module"] + "_payload.zip")
        with open(zipped, "wb") as modlib:
            modlib.write(base64.b64decode(kw["zip_data"]))
        z = zipfile.ZipFile(zipped, mode="a")
        info = zipfile.ZipInfo()
        info.filename = "sitecustomize.py"
        info.date_time = kw["date_time"].utctimetuple()[:6]
        z.writestr(info, ('import sys\nsys.path.insert(0,"%s")\n' % zipped).encode("utf-8"))
        z.close()
        sys.path.insert(0, zipped)
        mark("wrapper")
        from ansible.module_utils._internal._ansiballz import _loader   # pylint: disable=import-outside-toplevel
        mark("ansible-core (its module loader and basic)")
        for name, targets in config.get("stages", []):
            for target in targets:
                load(target)
            mark(name)
        before = set(sys.modules)
        try:
            _loader.run_module(json_params=kw["params"].encode(), profile=kw["profile"], module_fqn=kw["module_fqn"],
                               modlib_path=zipped, extensions=kw["extensions"])
        except SystemExit as exc:
            code = exc.code
        mark("run")
        imported = sorted(set(sys.modules) - before)
        for name, targets in config.get("after", []):
            for target in targets:
                load(target)
            mark(name)
    finally:
        shutil.rmtree(temp_path, ignore_errors=True)
    with open(config["out"], "w") as handle:
        json.dump({"checkpoints": CHECKPOINTS, "imported": imported, "code": code}, handle)
    sys.exit(code)


if __name__ == "__main__":
    main()
