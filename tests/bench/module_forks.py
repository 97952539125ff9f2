"""A process that runs modules of the collection as processes forked from it: ``python module_forks.py`` with the
collection on PYTHONPATH reads one request a line on stdin (JSON: module, args file, output file, its whole environment;
optionally a file for stderr apart and a timeout after which the child is killed),
forks, and the child runs the module as ``python -m ansible_collections.anxcloud.lbaas.plugins.modules.X args.json``
would (``runpy`` as ``__main__``, the args file in ``sys.argv[1]``, its stdout and stderr to the output file); the
server answers a line (JSON: exit status, the child's peak memory, whether it was killed) when the child has ended.

Why: a module process spends most of its CPU time importing ansible.module_utils.basic and the libraries (0.25 of
0.4 s for a refusal) and finalizing its modules at exit (0.09 s). The server imports them, and the collection's
module_utils, once before any fork and runs no module itself, so each child starts from the state a fresh process
reaches by those imports and nothing else: the module's own code, argument parsing, output and exit status are its
own, per process. What this cannot show is what a fresh process imports (test_lazy_imports.py uses real
``python -m`` processes for that); a library missing from every module process is missing from the server's path
too (test_requirements.py starts a server with a directory hiding it first on PYTHONPATH)."""
import atexit
import importlib
import json
import os
import pkgutil
import runpy
import select
import signal
import sys
import threading
import traceback

MODULES = "ansible_collections.anxcloud.lbaas.plugins.modules."
UTILS = "ansible_collections.anxcloud.lbaas.plugins.module_utils"
# what every module process imports anyway: Ansible's module base and the libraries the runs need
# (plugins/module_utils/_module/_base.py REQUIRED_LIBRARIES, checked there before a run), and dnspython's parts that
# the DNS modules import when they check a value (plugins/module_utils/_dns/_values.py)
PRELOADED = ("ansible.module_utils.basic", "requests", "netaddr", "dns.exception", "dns.name", "dns.rdata",
             "dns.rdataclass", "dns.rdatatype", "dns.tokenizer")


def child(request):
    """Runs in the forked process: the module as ``python -m`` runs it, then the end of the process."""
    for target, path in ((1, request["out"]), (2, request.get("err") or request["out"])):   # stderr apart if asked
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, target)
        os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)   # not the server's requests
    os.dup2(null, 0)
    os.close(null)
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [request["module"], request["args"]]
    sys.path[0] = os.getcwd()   # as ``python -m`` has it (a script's own directory for this server)
    code = 0
    try:
        runpy.run_module(MODULES + request["module"], run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code
    except BaseException:   # pylint: disable=broad-exception-caught  # as the interpreter prints an uncaught one, exit 1
        traceback.print_exc()
        code = 1
    exit_as_the_interpreter_does(code)


def exit_as_the_interpreter_does(code):
    """What the interpreter does at its exit that can be seen: it waits for the threads that are not daemons (and
    for the thread pools' workers, threading's own exit handlers), runs the atexit handlers (Ansible's removal of
    its temporary directory) and flushes the output; then the process ends without finalizing every module, which
    shows nothing and cost 90 ms per process (of 110). This is how the standard library ends a child it forks
    (multiprocessing's ``BaseProcess._bootstrap`` calls ``threading._shutdown()`` and flushes, ``popen_fork`` then
    ``os._exit``), plus the atexit handlers, which a module process runs. Measured (lead, 2 files, twice each): letting
    the child fall through to the interpreter's own exit doubled their CPU time (9.6-10.7 -> 19.8-23.3 CPU-s), as its
    finalizing writes to every object the child shares with the server and so copies its whole heap."""
    threading._shutdown()   # pylint: disable=protected-access
    atexit._run_exitfuncs()   # pylint: disable=protected-access
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    if code is None or isinstance(code, int):
        os._exit(code or 0)
    print(code, file=sys.stderr)   # sys.exit("message"): the message on stderr, exit status 1
    sys.stderr.flush()
    os._exit(1)


def preload(name):
    """Imports ``name`` for the children to inherit. An import that fails (a library hidden by a directory first on
    PYTHONPATH, tests/integration/test_requirements.py) leaves nothing behind (Python keeps no failed module), so each
    child imports it again and fails as a fresh process does, where the module can report it."""
    try:
        importlib.import_module(name)
    except ImportError:
        pass


def serve():
    for name in PRELOADED:
        preload(name)
    # and the collection's own module_utils, which a run imports as it needs them (0.02-0.03 s of each run)
    utils = importlib.import_module(UTILS)
    for found in pkgutil.walk_packages(utils.__path__, UTILS + "."):
        preload(found.name)
    for line in sys.stdin:
        request = json.loads(line)
        # the module's imports, once; then the module itself is forgotten, so that each child runs it as ``python -m``
        # does, from its source as __main__ (runpy warns about a module run that is imported already)
        preload(MODULES + request["module"])
        sys.modules.pop(MODULES + request["module"], None)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            child(request)
        killed = ended_in_time(pid, request.get("timeout"))
        _pid, status, usage = os.wait4(pid, 0)
        print(json.dumps({"rc": os.waitstatus_to_exitcode(status), "peak_mb": usage.ru_maxrss / 1024.0,
                          "killed": killed}), flush=True)


def ended_in_time(pid, timeout):
    """False once the child ``pid`` has ended, or True when ``timeout`` seconds (None: no limit) passed first and it was
    killed (SIGKILL: a crash between any two of its requests, as ``subprocess.run``'s timeout does it)."""
    if timeout is None:
        return False
    handle = os.pidfd_open(pid)
    try:
        ended, _w, _x = select.select([handle], [], [], timeout)
    finally:
        os.close(handle)
    if ended:
        return False
    os.kill(pid, signal.SIGKILL)
    return True


if __name__ == "__main__":
    serve()
