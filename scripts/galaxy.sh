#!/usr/bin/env bash
# Builds the collection tarball as a release would (ansible-galaxy collection build, galaxy.yml's
# build_ignore), checks that it holds no cache or dev-only file, then runs Galaxy's own importer
# (galaxy-importer, offline, no containers: scripts/galaxy-importer.cfg) on it.
# The tarball is left in .build/dist/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
dist=.build/dist
rm -rf "$dist" && mkdir -p "$dist"

echo "== ansible-galaxy collection build"
# From a copy of the tracked and new (not ignored) files, as a release builds from a clean checkout:
# the working tree may be gaining caches meanwhile (make test runs pytest alongside).
src=.build/galaxy-src
scripts/snapshot.sh "$src"
ansible-galaxy collection build --force --output-path "$root/$dist" "$src" > "$dist/build.log"
tarball=$(ls "$dist"/anxcloud-lbaas-*.tar.gz)
python scripts/check-artifact.py "$tarball"

echo "== galaxy-importer on $(basename "$tarball")"
# ansible-lint and ansible-doc inside the importer keep their caches under ANSIBLE_HOME: keep them in .build.
export GALAXY_IMPORTER_CONFIG="$root/scripts/galaxy-importer.cfg"
export ANSIBLE_HOME="$root/.build/ansible-home" XDG_CACHE_HOME="$root/.build/cache"
export ANSIBLE_LOCAL_TEMP="$root/.build/ansible-tmp" GALAXY_IMPORTER_ANSIBLE_LOCAL_TMP="$root/.build/ansible-tmp"
(cd "$dist" && python -m galaxy_importer.main "$(basename "$tarball")" > importer.log 2>&1) || {
  cat "$dist/importer.log"; echo "galaxy-importer refused the tarball (log: $dist/importer.log)" >&2; exit 1; }
# The importer accepts with warnings (lint findings, doc problems); a release should have none.
if grep -E '^(WARNING|ERROR)' "$dist/importer.log"; then
  echo "galaxy-importer warned about the tarball (log: $dist/importer.log)" >&2
  exit 1
fi
tail -n 1 "$dist/importer.log"
