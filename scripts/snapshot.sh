#!/usr/bin/env bash
# Copies the tracked and new (not ignored) files of the working tree, as they are now, into DIR (made
# empty first): what a clean checkout with the current edits would hold, without caches or build output.
#   scripts/snapshot.sh DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dest=$1
cd "$(dirname "$0")/.."
rm -rf "$dest" && mkdir -p "$dest"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -xf - -C "$dest"
