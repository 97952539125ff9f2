#!/usr/bin/env bash
# Prints a collections path under which this checkout is importable as anxcloud.lbaas
# (.build/collections/ansible_collections/anxcloud/lbaas -> the repository root).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
link="$root/.build/collections/ansible_collections/anxcloud/lbaas"
mkdir -p "$(dirname "$link")"
[ -L "$link" ] || ln -sfn "$root" "$link"
echo "$root/.build/collections"
