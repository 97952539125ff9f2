#!/usr/bin/env bash
# `make demo`: HAProxy from Debian if missing, then scripts/demo.py: the local Engine with HAProxy,
# three backend web servers, and the service playbook's story with real traffic on loopback.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/apt-deps.sh haproxy knot
export PATH="$root/.venv/bin:$PATH:/usr/sbin"
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)
export ANSIBLE_NOCOLOR=${ANSIBLE_NOCOLOR:-1} ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0
export ANSIBLE_PYTHON_INTERPRETER="$root/.venv/bin/python"
exec python scripts/demo.py
