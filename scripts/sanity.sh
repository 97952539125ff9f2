#!/usr/bin/env bash
# Runs `ansible-test sanity` on a copy of the working tree placed where ansible-test wants it
# (.build/sanity/ansible_collections/anxcloud/lbaas). Extra arguments go to ansible-test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"

# ansible-test bootstraps pip in its per-test virtual environments with a script it downloads from a
# host this machine cannot reach; it looks in its cache first, so put our stand-in there.
src=$(python -c 'import ansible_test, os; print(os.path.dirname(ansible_test.__file__))')
pip_version=$(grep -o "pip='[0-9.]*'" "$src/_internal/python_requirements.py" | head -n1 | tr -d "pip='")
cache="$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
if [ ! -f "$cache" ]; then
  mkdir -p "$(dirname "$cache")"
  cp scripts/ansible-test-get-pip.py "$cache"
fi

dest=.build/sanity/ansible_collections/anxcloud/lbaas
rm -rf "$dest"
mkdir -p "$dest"
# tracked and new (not ignored) files, as they are in the working tree
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -xf - -C "$dest"

cd "$dest"
# ansible-test lists files with git; inside this (ignored) folder it would see the outer checkout's
# index and skip everything, so the copy gets a repository of its own.
git init -q . && git add -A
echo "== ansible-test sanity"
ansible-test sanity --venv --python 3.11 --color no "$@"
