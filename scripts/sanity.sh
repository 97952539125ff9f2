#!/usr/bin/env bash
# Runs `ansible-test sanity` on a copy of the working tree placed where ansible-test wants it
# (.build/sanity-<ansible-core version>/ansible_collections/anxcloud/lbaas).
#   scripts/sanity.sh [--venv DIR] [ansible-test arguments]   (default venv: .venv, the pinned newest ansible-core)
# Needs the shellcheck program, or ansible-test skips the shell scripts silently (scripts/test.sh installs it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
venv=.venv
if [ "${1:-}" = "--venv" ]; then venv=$2; shift 2; fi
export PATH="$root/$venv/bin:$PATH"
command -v shellcheck > /dev/null || { echo "shellcheck is missing: scripts/apt-deps.sh shellcheck" >&2; exit 1; }

# ansible-test bootstraps pip in its per-test virtual environments with a script it downloads from a
# host this machine cannot reach; it looks in its cache first, so put our stand-in there (and refresh an
# older copy of it; a real script found there stays). Copied and renamed: two sanity runs may do this at once.
src=$(python -c 'import ansible_test, os; print(os.path.dirname(ansible_test.__file__))')
pip_version=$(sed -n "s/.*pip='\([0-9.]*\)'.*/\1/p" "$src/_internal/python_requirements.py" | head -n1)
cache="$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
stand_in=scripts/ansible-test-get-pip.py
if [ ! -f "$cache" ] || { grep -q '^# Stand-in for the pip bootstrap script' "$cache" && ! cmp -s "$stand_in" "$cache"; }; then
  mkdir -p "$(dirname "$cache")"
  cp "$stand_in" "$cache.$$" && mv -f "$cache.$$" "$cache"
fi

core=$(python -c 'import ansible.release as r; print(r.__version__)')
dest=.build/sanity-$core/ansible_collections/anxcloud/lbaas
scripts/snapshot.sh "$dest"

cd "$dest"
# ansible-test lists files with git; inside this (ignored) folder it would see the outer checkout's
# index and skip everything, so the copy gets a repository of its own.
git init -q . && git add -A
echo "== ansible-test sanity (ansible-core $core)"
ansible-test sanity --local --python 3.11 --color no "$@"
