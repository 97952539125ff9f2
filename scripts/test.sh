#!/usr/bin/env bash
# `make test`: every test suite. pytest runs unit, contract (local Engine) and integration
# (real ansible-playbook against the local Engine) tests; then ansible-lint on the role and
# playbooks, then ansible-test sanity.
# `--only unit|contract|integration` runs one pytest suite and skips sanity.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)

if [ "${1:-}" = "--only" ]; then
  exec python -m pytest -q "tests/$2"
fi

echo "== pytest: unit, contract and integration tests"
python -m pytest -q
scripts/lint.sh
scripts/sanity.sh
