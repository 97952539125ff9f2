#!/usr/bin/env bash
# `make test`: every test suite. pytest runs unit, contract (local Engine), integration (real
# ansible-playbook against the local Engine) and e2e (real traffic through the local Engine's
# HAProxy; Debian's haproxy is installed first when missing) tests; then ansible-lint on the role
# and playbooks, then ansible-test sanity.
# `--only unit|contract|integration|e2e` runs one pytest suite and skips sanity.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)
if [ "${1:-}" != "--only" ] || [ "${2:-}" = "e2e" ]; then
  scripts/apt-deps.sh haproxy
fi

if [ "${1:-}" = "--only" ]; then
  exec python -m pytest -q "tests/$2"
fi

echo "== pytest: unit, contract and integration tests"
python -m pytest -q
scripts/lint.sh
scripts/sanity.sh
