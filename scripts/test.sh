#!/usr/bin/env bash
# `make test`: everything that must pass before a merge, with the time each step took at the end.
#  1. pytest: unit, contract (local Engine), integration (real ansible-playbook) and e2e (real traffic
#     through the local Engine's HAProxy) tests, in parallel (pytest-xdist; each worker starts its own
#     local Engine);
#  then three lanes at once:
#  2. the integration smoke tests (pytest -m smoke) on the oldest supported ansible-core (.venv-2.16);
#     ansible-lint on the role and playbooks; the changelog fragments; the generated reference in
#     docs/reference is up to date (else: make docs); the Galaxy tarball: built, checked for caches and
#     dev-only files, accepted by galaxy-importer;
#  3. ansible-test sanity (with shellcheck) on the pinned newest ansible-core;
#  4. ansible-test sanity on ansible-core 2.16.
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
# What follows needs no Engine of its own and barely shares anything: three lanes at once keep both
# cores busy (the sanity runs spend much of their time installing their environments). Each lane
# logs to .build/test-logs; the logs are shown in order once all lanes are done.
logs=.build/test-logs
rm -rf "$logs" && mkdir -p "$logs"
lane() {  # lane NAME STEP...: each STEP "title|command" in order, stopping at the first failure
  local name=$1 item title start rc=0
  shift
  for item in "$@"; do
    title=${item%%|*} start=$SECONDS
    bash -c "${item#*|}" >> "$logs/$name.log" 2>&1 || rc=$?
    printf '%-34s %4ds\n' "$title" $((SECONDS - start)) >> "$logs/$name.times"
    [ "$rc" -eq 0 ] || break
  done
  echo "$rc" > "$logs/$name.rc"
}
lane checks \
  "smoke tests (ansible-core 2.16)|echo '== pytest -m smoke on ansible-core 2.16' && .venv-2.16/bin/python -m pytest -q -p no:cacheprovider -m smoke tests/integration" \
  "ansible-lint|scripts/lint.sh" \
  "changelog, docs/reference|echo '== antsibull-changelog lint' && antsibull-changelog lint && scripts/docs.sh --check" \
  "galaxy build + galaxy-importer|scripts/galaxy.sh" &
lane sanity-2.19 "sanity (ansible-core 2.19)|scripts/sanity.sh" &
lane sanity-2.16 "sanity (ansible-core 2.16)|scripts/sanity.sh --venv .venv-2.16" &
start=$SECONDS
wait
failed=()
for name in checks sanity-2.19 sanity-2.16; do
  cat "$logs/$name.log"
  cat "$logs/$name.times" >> "$logs/all.times"
  [ "$(cat "$logs/$name.rc")" = 0 ] || failed+=("$name")
done
times+=("$(printf '%-34s %4ds' "the three lanes above, at once" $((SECONDS - start)))")

echo "== time per step"
printf '%s\n' "${times[@]:0:2}"
sed 's/^/  /' "$logs/all.times"
printf '%s\n' "${times[@]:2}"
printf '%-34s %4ds\n' "total" "$SECONDS"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]} (logs above, and in $logs)" >&2
  exit 1
fi
