#!/usr/bin/env bash
# Installs the named Debian packages when any is missing; does nothing (and needs no root) when all are
# installed. Non-interactive, for CI (root, no stdin) and developers (sudo when not root).
#   scripts/apt-deps.sh shellcheck graphviz
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 PACKAGE..." >&2; exit 2; }
missing=()
for pkg in "$@"; do
  dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo > /dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo -n)
fi
export DEBIAN_FRONTEND=noninteractive
echo "== apt-get install ${missing[*]}"
# A fresh machine has no package lists; an old list may name versions the mirror no longer has.
"${sudo[@]}" apt-get update -qq < /dev/null
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" < /dev/null > /dev/null
