#!/usr/bin/env bash
# `make demo`: start the local Engine (seeded with load balancers and IP prefixes), run the demo
# playbooks against it with readable headings, then stop what was started.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)
export ANSIBLE_NOCOLOR=${ANSIBLE_NOCOLOR:-1} ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0
export ANSIBLE_PYTHON_INTERPRETER="$root/.venv/bin/python"

work=$(mktemp -d)
engine_pid=
cleanup() {
  if [ -n "$engine_pid" ]; then kill "$engine_pid" 2>/dev/null || true; wait "$engine_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

export ANEXIA_TOKEN="demo-token-$RANDOM$RANDOM"
python tests/engine/run --listen 127.0.0.1:0 --token "$ANEXIA_TOKEN" --seed tests/engine/seeds/default.yml \
  --deploy-delay 1 --state "$work/engine.db" > "$work/engine.out" 2> "$work/engine.err" &
engine_pid=$!
for _ in $(seq 1 150); do
  url=$(sed -n 's/^local engine listening on \(http:[^ ]*\).*/\1/p' "$work/engine.out" 2>/dev/null | head -n1)
  [ -n "$url" ] && break
  kill -0 "$engine_pid" 2>/dev/null || { cat "$work/engine.err" >&2; exit 1; }
  sleep 0.1
done
[ -n "${url:-}" ] || { echo "the local Engine did not start" >&2; exit 1; }
export ANEXIA_API_URL="$url"

heading() { printf '\n==================== %s ====================\n' "$*"; }
play() { ansible-playbook -i localhost, -c local "$@"; }

heading "Local Engine at $ANEXIA_API_URL"
svc() { play playbooks/service_loadbalancer.yml -e lbaas_vars_file="$root/playbooks/vars/$1.yml" "${@:2}"; }

heading "1. The plan: service demo-web on lb1, its address from the pool anxlb-pool=demo (--check --diff, nothing is written)"
svc service_example --check --diff
heading "2. Apply it"
svc service_example --diff
heading "3. Run it again: nothing changes"
svc service_example
heading "4. Remove node2 and port admin: only their objects go"
svc service_example_smaller --diff
heading "5. What lb1 and the pool look like now"
play playbooks/demo/show_loadbalancer.yml
heading "6. Remove the service: its objects go, then its address returns to the pool"
svc service_example_absent --diff
play playbooks/demo/show_loadbalancer.yml
heading "Done; stopping the local Engine"
