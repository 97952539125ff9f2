#!/usr/bin/env bash
# `make lint`: ansible-lint (production profile, strict) on the role and the playbooks, offline and
# non-interactive. Scope and rules: .ansible-lint. Extra arguments go to ansible-lint.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
# The collection resolves from this checkout (anxcloud.lbaas -> the repository root), never from Galaxy.
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)
# ansible-lint keeps its caches in ANSIBLE_HOME (default ~/.ansible); keep them in the ignored .build/.
export ANSIBLE_HOME="$root/.build/ansible-home" XDG_CACHE_HOME="$root/.build/cache"
color=()
[ -t 1 ] || color=(--nocolor)
echo "== ansible-lint (production profile, offline): roles/ and playbooks/"
# No file arguments: ansible-lint lists the checkout's files with git and keeps what .ansible-lint does not
# exclude (roles/ and playbooks/), so it classifies them as a project (playbooks/ is not mistaken for a role).
ansible-lint --offline --strict --profile production "${color[@]}" "$@" < /dev/null
