# Copyright: Contributors to the anxcloud.lbaas collection
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPython's pending fix for gh-141276 (pull request 153799), for the project's own virtual environments only.

Ansible runs every module from a zip (AnsiballZ) that holds source files only, and Python's zipimport compiles
each module it imports from there twice: ``find_spec`` asks ``get_filename``, which compiles the source just to
learn the file's path, then ``exec_module`` compiles it again. For a module of this collection that is about a
fifth of a task's CPU time (ansible-core's module_utils and ours, compiled twice on every task), and the test
suite runs some 1500 tasks. This answers ``get_filename`` from the archive's table of contents when the entry
found first is a source file, as the pull request does; anything else (bytecode in the archive, a layout this
Python does not have) goes to the original method. What gets imported and run is unchanged.

scripts/venv.sh installs it into .venv and .venv-2.16 with a .pth file (it runs in every process of those
environments, the Python of the tests' module runs included). Collections installed elsewhere never see it.
"""
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


_patch()
