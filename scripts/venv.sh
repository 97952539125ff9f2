#!/usr/bin/env bash
# Creates a virtual environment and installs a requirements file into it; makes it anew only when the
# requirements change.   scripts/venv.sh [DIR [REQUIREMENTS]]   (default: .venv requirements-dev.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
UV_VERSION=0.13.9
venv=${1:-.venv}
requirements=${2:-requirements-dev.txt}
stamp=$venv/.requirements.sha256
want=$(cat requirements.txt "$requirements" | sha256sum | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
echo "== setting up $venv from $requirements (${PYTHON})"
# Made anew, not installed over: what an earlier install left there (packages dropped from the requirements,
# files put into site-packages by older versions of this script) must not stay in what the tests run.
if [ -e "$venv" ] || [ -L "$venv" ]; then
  rm -rf "$venv"
fi
# uv makes the environment and installs the requirements in a fraction of pip's CPU time (in native
# code, in parallel). It compiles the bytecode at install time as pip does. Measured (stop 36, one fresh-clone
# `make test` each): leaving it to the first imports took the set-up from 25 s to 12 s but the whole run from
# 10:30 (1183 CPU-s) to 10:58 (1234 CPU-s): the processes that start together (pytest's workers, their local
# Engines, ansible-playbook, the lanes' tools) compile the same modules side by side.
# A uv on PATH is used as it is (scripts/test.sh has .venv/bin there, so .venv-2.16 reuses .venv's);
# else the new environment gets a pinned one from PyPI (below). pip stays the fallback, without
# uv or when uv fails (uv reads no pip.conf: an index or certificate set up only for pip is one reason).
export UV_LINK_MODE=copy UV_SYSTEM_CERTS=${UV_SYSTEM_CERTS:-1}
pip=("$venv/bin/python" -m pip --disable-pip-version-check)
uv=$(command -v uv || true)
python=$(command -v "$PYTHON") || { echo "$PYTHON not found (set PYTHON to a Python 3.11)" >&2; exit 1; }
if [ -n "$uv" ] && "$uv" venv --quiet --allow-existing --seed --python "$python" "$venv"; then
  :
elif "$PYTHON" -m venv --without-pip "$venv" &&
    "$PYTHON" -m pip --python "$venv/bin/python" install --quiet --disable-pip-version-check "uv==$UV_VERSION"; then
  # no uv on PATH: the pinned one, put into the new environment by the Python's own pip (--python, pip >= 22.3),
  # so that the environment needs no pip before uv installs one (ensurepip compiles all of pip: 7 CPU-s)
  uv=$venv/bin/uv
else
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  uv=
  ! "${pip[@]}" install --quiet "uv==$UV_VERSION" || uv=$venv/bin/uv
fi
if [ -z "$uv" ] || ! "$uv" pip install --quiet --compile-bytecode --python "$venv/bin/python" --upgrade-package pip pip -r "$requirements"; then
  [ -z "$uv" ] || echo "uv failed; installing with pip" >&2
  "$venv/bin/python" -m pip --version > /dev/null 2>&1 || "$venv/bin/python" -m ensurepip --upgrade > /dev/null
  "${pip[@]}" install --quiet --upgrade pip
  "${pip[@]}" install --quiet -r "$requirements"
fi
echo "$want" > "$stamp"
