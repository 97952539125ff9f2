#!/usr/bin/env bash
# ansible-lint (production profile) on the role and the playbooks, offline, with this checkout
# importable as anxcloud.lbaas. Configuration: .ansible-lint.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)
# ansible-lint keeps its caches under the project unless told otherwise; keep them in .build.
export ANSIBLE_HOME="$root/.build/ansible-home" XDG_CACHE_HOME="$root/.build/cache"
echo "== ansible-lint (production profile): roles/ and playbooks/"
"$root/.venv/bin/ansible-lint" --offline --profile production roles/ playbooks/ < /dev/null
