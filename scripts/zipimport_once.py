# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each module of an AnsiballZ zip compiled once, for the project's own virtual environments only.

1. CPython's pending fix for gh-141276 (pull request 153799).

Ansible runs every module from a zip (AnsiballZ) that holds source files only, and Python's zipimport compiles
each module it imports from there twice: ``find_spec`` asks ``get_filename``, which compiles the source just to
learn the file's path, then ``exec_module`` compiles it again. For a module of this collection that is about a
fifth of a task's CPU time (ansible-core's module_utils and ours, compiled twice on every task), and the test
suite runs some 1500 tasks. This answers ``get_filename`` from the archive's table of contents when the entry
found first is a source file, as the pull request does; anything else (bytecode in the archive, a layout this
Python does not have) goes to the original method.

2. A bytecode cache for zip imports, on only where ``ANXLB_ZIPIMPORT_CACHE`` names a directory (tests/conftest.py
sets it for the tests' runs, never for the demo or ``make bench``). Python caches the bytecode of files on disk
in __pycache__ but never of files in a zip, so each of the tests' module runs compiles ansible-core's
module_utils and ours again from the same source: 12 % of pytest's CPU time (1171 -> 1028 s, measured). The code
object of a source is kept under a hash of the source, the Python's magic number and the optimisation level;
its file name is set to the importing path on load (``_imp._fix_co_filename``, as importlib does for a
.pyc). A missing or unreadable entry is compiled as before and written; a source that does not compile
raises as before and is not cached.

What gets imported and run is unchanged by either.

scripts/venv.sh installs it into .venv and .venv-2.16 with a .pth file (it runs in every process of those
environments, the Python of the tests' module runs included). Collections installed elsewhere never see it.
"""
import os
import zipimport


def _patch():
    original = zipimport.zipimporter.get_filename
    search = getattr(zipimport, "_zip_searchorder", None)
    module_path = getattr(zipimport, "_get_module_path", None)
    if search is None or module_path is None:
        return   # another zipimport than the one this was written for: leave it alone

    def get_filename(self, fullname):
        files = getattr(self, "_files", None)
        if isinstance(files, dict):
            path = module_path(self, fullname)
            for suffix, isbytecode, _ispackage in search:
                entry = files.get(path + suffix)
                if entry is not None:
                    if not isbytecode:
                        return entry[0]
                    break   # bytecode is validated (and may fall back to source) by the original only
        return original(self, fullname)

    get_filename.__doc__ = original.__doc__
    zipimport.zipimporter.get_filename = get_filename


def _cache(directory):
    original = getattr(zipimport, "_compile_source", None)
    if original is None:
        return   # another zipimport than the one this was written for

    def _compile_source(pathname, source):
        import _imp
        import hashlib
        import marshal
        import sys
        import types
        from importlib.util import MAGIC_NUMBER
        salt = MAGIC_NUMBER + b"%d\0" % sys.flags.optimize
        entry = os.path.join(directory, hashlib.sha256(salt + source).hexdigest())
        try:
            with open(entry, "rb") as f:
                code = marshal.load(f)
        except (OSError, EOFError, ValueError, TypeError):
            code = None
        if not isinstance(code, types.CodeType):
            code = original(pathname, source)
            try:
                os.makedirs(directory, exist_ok=True)
                partial = "%s.%d" % (entry, os.getpid())
                with open(partial, "wb") as f:
                    marshal.dump(code, f)
                os.replace(partial, entry)   # whole or not at all, for the processes reading it meanwhile
            except OSError:
                pass
            return code
        _imp._fix_co_filename(code, pathname)
        return code

    zipimport._compile_source = _compile_source


_patch()
if os.environ.get("ANXLB_ZIPIMPORT_CACHE"):
    _cache(os.environ["ANXLB_ZIPIMPORT_CACHE"])
