"""scripts/zipimport_once.py, as scripts/venv.sh installs it into the project's environments: a module imported
from a zip is compiled once, get_filename answers what the original answers, and with ANXLB_ZIPIMPORT_CACHE
other processes load the bytecode instead of compiling it again."""
import importlib.util
import os
import subprocess
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


def test_a_module_from_a_zip_is_compiled_once(tmp_path):
    path = payload(tmp_path, "one.zip")
    out, compiled, _filename = run_from(path, None)   # no bytecode cache: each module compiled once, not twice
    assert (out, compiled) == ("5", [os.path.join(path, f) for f in ("pkg/__init__.py", "pkg/mod.py", "plain.py")])


def run_from(path, cache, code="import pkg.mod, plain; print(pkg.mod.Y + plain.Z)"):
    """A new process of this environment importing from the zip ``path``, with the bytecode cache in ``cache``
    (None: without one);
    returns what it printed and the files it compiled from the zip (names passed to compile())."""
    probe = ("import builtins, sys\n"
             "seen = []\n"
             "original = builtins.compile\n"
             "def counting(source, filename, *a, **k):\n"
             "    seen.append(filename)\n"
             "    return original(source, filename, *a, **k)\n"
             "builtins.compile = counting\n"
             "sys.path.insert(0, %r)\n"
             "%s\n"
             "import pkg.mod\n"
             "sys.stderr.write(repr([f for f in seen if f.startswith(%r)]))\n"
             "sys.stderr.write('\\n' + pkg.mod.where.__code__.co_filename)\n") % (path, code, path)
    env = dict(os.environ, ANXLB_ZIPIMPORT_CACHE=str(cache or ""))
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    compiled, filename = done.stderr.splitlines()
    return done.stdout.strip(), eval(compiled), filename   # noqa: S307  (our own repr of a list of str)


def payload(tmp_path, name, mod="import pkg\nY = pkg.X + 1\ndef where():\n    pass\n"):
    path = str(tmp_path / name)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("pkg/__init__.py", "X = 1\n")
        z.writestr("pkg/mod.py", mod)
        z.writestr("plain.py", "Z = 3\n")
    return path


def test_a_second_process_loads_the_bytecode_and_names_its_own_zip(tmp_path):
    cache = tmp_path / "cache"
    first, second = payload(tmp_path, "one.zip"), payload(tmp_path, "two.zip")
    files = ("pkg/__init__.py", "pkg/mod.py", "plain.py")
    assert run_from(first, cache)[:2] == ("5", [os.path.join(first, f) for f in files])
    assert len(os.listdir(cache)) == 3
    out, compiled, filename = run_from(second, cache)
    assert (out, compiled) == ("5", [])   # nothing compiled: all three from the cache
    assert filename == os.path.join(second, "pkg", "mod.py")   # tracebacks name the zip that was imported


def test_changed_source_is_compiled_again_and_a_broken_entry_is_replaced(tmp_path):
    cache = tmp_path / "cache"
    run_from(payload(tmp_path, "one.zip"), cache)
    changed = payload(tmp_path, "two.zip", mod="import pkg\nY = pkg.X + 10\ndef where():\n    pass\n")
    out, compiled, _filename = run_from(changed, cache)
    assert out == "14" and compiled == [os.path.join(changed, "pkg", "mod.py")]
    for entry in os.listdir(cache):
        (cache / entry).write_bytes(b"not bytecode")
    out, compiled, _filename = run_from(changed, cache)
    assert out == "14" and len(compiled) == 3   # unreadable entries: compiled as without a cache, and rewritten
    assert run_from(changed, cache)[:2] == ("14", [])


def test_source_that_does_not_compile_fails_as_before_and_is_not_kept(tmp_path):
    cache = tmp_path / "cache"
    broken = payload(tmp_path, "one.zip", mod="def (:\n")
    with pytest.raises(subprocess.CalledProcessError) as failed:
        run_from(broken, cache, code="import pkg")
    assert "SyntaxError" in failed.value.stderr
    assert len(os.listdir(cache)) == 1   # pkg/__init__.py only


def test_without_the_variable_nothing_is_cached(tmp_path, monkeypatch):
    monkeypatch.delenv("ANXLB_ZIPIMPORT_CACHE", raising=False)
    done = subprocess.run([sys.executable, "-c", "import zipimport; print(zipimport._compile_source.__module__)"],
                          capture_output=True, text=True, check=True, env=dict(os.environ))
    assert done.stdout.strip() == "zipimport"
