#!/usr/bin/env bash
# `make test`: everything that must pass before a merge, with the time each step took at the end.
#  1. pytest: unit, contract (local Engine), integration (real ansible-playbook) and e2e (real traffic
#     through the local Engine's HAProxy) tests, in parallel (pytest-xdist; each worker starts its own
#     local Engine);
#  2. the integration smoke tests (pytest -m smoke) on the oldest supported ansible-core (.venv-2.16);
#  3. ansible-lint on the role and playbooks; the changelog fragments; the generated reference in docs/reference
#     is up to date (else: make docs);
#  4. the Galaxy tarball: built, checked for caches and dev-only files, accepted by galaxy-importer;
#  5. ansible-test sanity (with shellcheck) on the pinned newest ansible-core and on 2.16.
# `--only unit|contract|integration|e2e` runs one pytest suite and nothing else.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)
# Two cores: two workers; more only adds ansible-playbook start-ups competing for the same CPU.
workers=${PYTEST_WORKERS:-2}

if [ "${1:-}" = "--only" ]; then
  [ "${2:-}" != "e2e" ] || scripts/apt-deps.sh haproxy
  exec python -m pytest -q -n "$workers" "tests/$2"
fi

times=()
step() {  # step NAME COMMAND...: runs COMMAND, remembers how long it took
  local name=$1 start=$SECONDS
  shift
  "$@"
  times+=("$(printf '%-34s %4ds' "$name" $((SECONDS - start)))")
}

step "setup: Debian packages, .venv-2.16" bash -c \
  'scripts/apt-deps.sh shellcheck haproxy && scripts/venv.sh .venv-2.16 requirements-ansible-2.16.txt'
echo "== pytest: unit, contract, integration and e2e tests ($workers workers)"
step "pytest (ansible-core 2.19)" python -m pytest -q -n "$workers" --durations=15
echo "== pytest -m smoke on ansible-core 2.16"
step "smoke tests (ansible-core 2.16)" .venv-2.16/bin/python -m pytest -q -n "$workers" -p no:cacheprovider -m smoke tests/integration
step "ansible-lint" scripts/lint.sh
step "changelog, docs/reference" bash -c 'echo "== antsibull-changelog lint" && antsibull-changelog lint && scripts/docs.sh --check'
step "galaxy build + galaxy-importer" scripts/galaxy.sh
step "sanity (ansible-core 2.19)" scripts/sanity.sh
step "sanity (ansible-core 2.16)" scripts/sanity.sh --venv .venv-2.16

echo "== time per step"
printf '%s\n' "${times[@]}"
printf '%-34s %4ds\n' "total" "$SECONDS"
