"""scripts/zipimport_once.py, as scripts/venv.sh installs it into the project's environments: a module imported
from a zip is compiled once, and get_filename answers what the original answers."""
import builtins
import importlib.util
import os
import sys
import zipfile
import zipimport

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def archive(tmp_path):
    path = str(tmp_path / "payload.zip")
    compiled = importlib.util.MAGIC_NUMBER + b"\0" * 12   # a header the original would refuse (mtime 0): source wins
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("pkg/__init__.py", "X = 1\n")
        z.writestr("pkg/mod.py", "import pkg\nY = pkg.X + 1\n")
        z.writestr("plain.py", "Z = 3\n")
        z.writestr("both.py", "W = 4\n")
        z.writestr("both.pyc", compiled)
    return path


def test_the_project_environment_has_it():
    assert zipimport.zipimporter.get_filename.__module__ == "_anxlb_zipimport_once", \
        "scripts/venv.sh installs scripts/zipimport_once.py into the environment"


@pytest.mark.parametrize("name", ["pkg", "pkg.mod", "plain", "both"])
def test_get_filename_answers_as_the_original(tmp_path, name):
    path = archive(tmp_path)
    importer = zipimport.zipimporter(os.path.join(path, "pkg") if name == "pkg.mod" else path)
    leaf = name.rsplit(".", 1)[-1]
    assert importer.get_filename(leaf) == zipimport._get_module_code(importer, leaf)[2]


def test_a_missing_module_is_refused_as_before(tmp_path):
    with pytest.raises(zipimport.ZipImportError):
        zipimport.zipimporter(archive(tmp_path)).get_filename("nope")


def test_a_module_from_a_zip_is_compiled_once(tmp_path, monkeypatch):
    path = archive(tmp_path)
    compiled = []

    def counting(source, filename, *args, **kwargs):
        compiled.append(filename)
        return original(source, filename, *args, **kwargs)
    original = builtins.compile
    monkeypatch.setattr(builtins, "compile", counting)
    monkeypatch.syspath_prepend(path)
    for name in ("pkg", "pkg.mod", "plain"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import pkg.mod   # noqa: F401  (the import is the test)
    import plain
    assert plain.Z == 3 and sys.modules["pkg.mod"].Y == 2
    ours = [f for f in compiled if f.startswith(path)]
    assert sorted(ours) == sorted(os.path.join(path, f) for f in ("pkg/__init__.py", "pkg/mod.py", "plain.py")), ours
    for name in ("pkg", "pkg.mod", "plain"):
        sys.modules.pop(name, None)
