#!/usr/bin/env bash
# `make test`: everything that must pass before a merge, with the time each step took at the end.
#  1. pytest: unit, contract (local Engine), integration (real ansible-playbook) and e2e (real traffic
#     through the local Engine's HAProxy) tests, in parallel (pytest-xdist; each worker starts its own
#     local Engine);
#  alongside it, at lower CPU priority, four lanes:
#  2. ansible-lint on the role and playbooks; the generated reference in
#     docs/reference is up to date (else: make docs); the Galaxy tarball: built, checked for caches and
#     dev-only files, accepted by galaxy-importer;
#  3. the integration smoke tests (pytest -m smoke) on the oldest supported ansible-core (.venv-2.16);
#  4. ansible-test sanity (with shellcheck; its changelog test lints the fragments) on the pinned newest ansible-core;
#  5. ansible-test sanity on ansible-core 2.16 (the tests whose results can differ there; see below), once the
#     2.19 run has ended.
# Why alongside: pytest leaves about a third of two cores idle (its tests wait on subprocesses and
# on the local Engine), and the lanes begin with downloads (their virtual environments); niced, they
# take what pytest leaves and pytest keeps the CPU it needs. The lanes' output goes to
# .build/test-logs and is shown once everything is done.
# `--only unit|contract|integration|e2e` runs one pytest suite and nothing else.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
# Python may cache the bytecode of what it compiles: an environment that sets PYTHONDONTWRITEBYTECODE (some CI
# images and sandboxes do) makes every process compile the collection, the tests and the local Engine from source
# again, on each module run, Engine start and pytest worker (8 % of the CPU of a module-heavy part of the suite,
# measured). The caches land in __pycache__ folders that git, the sanity copies and the Galaxy build leave out.
unset PYTHONDONTWRITEBYTECODE
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)
# Three workers on two cores: a worker spends a good part of its time waiting for ansible-playbook
# and module subprocesses, so a third one fills what two leave idle (two used ~64% of both cores).
workers=${PYTEST_WORKERS:-3}

if [ "${1:-}" = "--only" ]; then
  [ "${2:-}" != "e2e" ] || scripts/apt-deps.sh haproxy knot
  exec python -m pytest -q -n "$workers" --dist worksteal "tests/$2"
fi

times=()
step() {  # step NAME COMMAND...: runs COMMAND, remembers how long it took; returns its status
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  times+=("$(printf '%-34s %4ds' "$name" $((SECONDS - start)))")
  return "$rc"
}

setup() {  # .venv (make test no longer runs `make venv` first) while the Debian packages install: both
  # mostly wait on downloads, and on a fresh machine each takes a good part of a minute
  local apt rc=0
  scripts/apt-deps.sh shellcheck haproxy knot & apt=$!
  scripts/venv.sh || rc=$?
  wait "$apt" || rc=$?
  return "$rc"
}
step "setup: .venv, Debian packages" setup
# The lanes need no Engine of their own and barely share anything with pytest (each sanity run works
# on its own copy in .build). Each lane logs to .build/test-logs.
logs=.build/test-logs
rm -rf "$logs" && mkdir -p "$logs"
lane() {  # lane NAME STEP...: each STEP "title|command" in order, stopping at the first failure
  local name=$1 item title start rc=0
  shift
  for item in "$@"; do
    title=${item%%|*} start=$SECONDS
    nice -n 10 bash -c "${item#*|}" >> "$logs/$name.log" 2>&1 || rc=$?
    printf '%-34s %4ds\n' "$title" $((SECONDS - start)) >> "$logs/$name.times"
    [ "$rc" -eq 0 ] || break
  done
  echo "$rc" > "$logs/$name.rc"
}
venv216="scripts/venv.sh .venv-2.16 requirements-ansible-2.16.txt"
lanes_start=$SECONDS
lane checks \
  "galaxy build + galaxy-importer|scripts/galaxy.sh" \
  "ansible-lint|scripts/lint.sh" \
  "docs/reference|scripts/docs.sh --check" &
# A lane of its own, not after the checks: its playbook runs mostly wait (on the local Engine, on
# subprocesses: 27 s of CPU in 167 s measured under load), so they overlap the rest instead of
# lengthening the checks' chain.
lane smoke-2.16 \
  "setup: .venv-2.16|flock .build/venv-2.16.lock $venv216" \
  "smoke tests (ansible-core 2.16)|echo '== pytest -m smoke on ansible-core 2.16' && .venv-2.16/bin/python -m pytest -q -p no:cacheprovider -m smoke tests/integration" &
lane sanity-2.19 "sanity (ansible-core 2.19)|scripts/sanity.sh" &
# On 2.16 every test whose result can depend on the ansible-core version (validate-modules, ansible-doc,
# import, runtime-metadata, action-plugin-docs, ignores, ...) and the cheap ones whose rules differ (pep8
# flags E701/E704 there, shellcheck SC2028), but not:
#  - pylint, the costliest test (a virtual environment of its own and minutes of CPU): it judges the code,
#    not how an ansible-core runs it. 2.16's configuration enables only these that 2.19's turns off as
#    unreliable: bad-super-call (false positives) and deprecated-argument/-attribute/-class/-decorator (the
#    standard library's deprecations, which vary with the Python version; 3.11 in both); the rest of the
#    difference is pylint 3.0 against 3.3, which has 3.0's checkers;
#  - changelog: it lints changelogs/ (antsibull-changelog lint), which no ansible-core runs; 2.19's does that.
# After the 2.19 run, not beside it: side by side the two sanity runs ended three minutes before pytest (fresh
# clone, stop 38: 2.19 at 448 s, 2.16 at 260 s, pytest at 626 s), and pytest then ran alone with a quarter of the
# two cores idle (its tests wait on the local Engine and on subprocesses); one after the other, 2.16's fills that.
lane sanity-2.16 \
  "setup: .venv-2.16|flock .build/venv-2.16.lock $venv216" \
  "waiting for sanity on 2.19|while [ ! -e $logs/sanity-2.19.rc ]; do sleep 2; done" \
  "sanity (ansible-core 2.16)|scripts/sanity.sh --venv .venv-2.16 --skip-test pylint --skip-test changelog" &
echo "== pytest: unit, contract, integration and e2e tests ($workers workers; the other checks run alongside)"
pytest_rc=0
step "pytest (ansible-core 2.19)" python -m pytest -q -n "$workers" --dist worksteal --durations=15 || pytest_rc=$?
wait   # for the lanes, also when pytest failed: their results are worth seeing
failed=()
[ "$pytest_rc" -eq 0 ] || failed+=("pytest")
for name in checks smoke-2.16 sanity-2.19 sanity-2.16; do
  cat "$logs/$name.log"
  cat "$logs/$name.times" >> "$logs/all.times"
  [ "$(cat "$logs/$name.rc")" = 0 ] || failed+=("$name")
done
times+=("$(printf '%-34s %4ds' "the four lanes, alongside pytest" $((SECONDS - lanes_start)))")

echo "== time per step"
printf '%s\n' "${times[@]:0:2}"
sed 's/^/  /' "$logs/all.times"
printf '%s\n' "${times[@]:2}"
printf '%-34s %4ds\n' "total" "$SECONDS"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]} (logs above, and in $logs)" >&2
  exit 1
fi
