#!/usr/bin/env bash
# Installs Debian packages the demo and the tests need (e.g. `scripts/apt-deps.sh haproxy`).
# A no-op when every one is installed already; otherwise one `apt-get update` and one install,
# non-interactive (CI runs as root with no stdin). Not root and no sudo: says what to run, exits 1.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 PACKAGE..." >&2; exit 2; }
missing=()
for package in "$@"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "== installing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "$0: need root to install ${missing[*]}; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq < /dev/null
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" < /dev/null > /dev/null
