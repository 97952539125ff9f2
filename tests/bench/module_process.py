"""Runs one module of the collection as its own process, the way Ansible's controller would start it on
localhost but without the controller: ``python -m ansible_collections.anxcloud.lbaas.plugins.modules.X
args.json``. Returns the module's result, its output as written, the process's wall time and its peak memory
(ru_maxrss)."""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def collections_path():
    return subprocess.check_output([os.path.join(ROOT, "scripts", "collection-path.sh")], text=True).strip()


class ModuleRun:
    def __init__(self, result, seconds, peak_mb, rc, text=""):
        self.result = result
        self.text = text   # stdout and stderr as the process wrote them
        self.seconds = seconds
        self.peak_mb = peak_mb
        self.rc = rc

    @property
    def failed(self):
        return self.rc != 0 or self.result.get("failed")


def run_module(module, args, check=False, diff=False, env=None, collections=None):
    """``env``: variables added to the process's environment (which never inherits ANEXIA_TOKEN);
    ``collections``: the collections path, if already known. The internal options are those the
    controller adds that the module's behaviour or messages depend on (``_ansible_module_name`` names
    the module in Ansible's own messages, as "Unsupported parameters for (anxcloud.lbaas.X) module")."""
    environ = module_environ(env, collections or collections_path())
    payload = module_payload(module, args, check, diff)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(payload, handle)
        path = handle.name
    out = tempfile.TemporaryFile()
    try:
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "ansible_collections.anxcloud.lbaas.plugins.modules." + module,
                                 path], stdout=out, stderr=subprocess.STDOUT, env=environ, cwd=tempfile.gettempdir())
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    finally:
        out.close()
        os.unlink(path)
    return ModuleRun(result_of(text), seconds, usage.ru_maxrss / 1024.0, proc.returncode, text)


def module_environ(env, collections):
    """The environment of a module process: this process's, the collection on PYTHONPATH, ANEXIA_TOKEN only if
    ``env`` (variables added) has it."""
    environ = dict(os.environ, PYTHONPATH=collections)
    environ.pop("ANEXIA_TOKEN", None)
    environ.update(env or {})
    return environ


def module_payload(module, args, check=False, diff=False):
    """The arguments file's content for ``module``: ``args`` with the internal options (see ``run_module``)."""
    return {"ANSIBLE_MODULE_ARGS": dict(args, _ansible_check_mode=check, _ansible_diff=diff,
                                        _ansible_tmpdir=tempfile.gettempdir(),
                                        _ansible_module_name="anxcloud.lbaas." + module)}


def result_of(text):
    """The module's JSON answer in its output ``text``; a failure quoting the output if it wrote none."""
    try:
        return json.loads(text[text.index("{"):])
    except ValueError:
        return {"failed": True, "msg": text[-2000:]}
