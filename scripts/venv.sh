#!/usr/bin/env bash
# Creates a virtual environment and installs a requirements file into it; reinstalls only when the
# requirements change.   scripts/venv.sh [DIR [REQUIREMENTS]]   (default: .venv requirements-dev.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
venv=${1:-.venv}
requirements=${2:-requirements-dev.txt}
stamp=$venv/.requirements.sha256
want=$(cat requirements.txt "$requirements" | sha256sum | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
echo "== setting up $venv from $requirements (${PYTHON})"
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
echo "$want" > "$stamp"
