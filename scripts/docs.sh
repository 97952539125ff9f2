#!/usr/bin/env bash
# `make docs`: regenerates the module, plugin and role reference in docs/reference from the documentation in
# the plugins and roles (antsibull-docs), and renders the pictures docs/images/*.dot to SVG (graphviz dot).
# `scripts/docs.sh --check` (part of make test) regenerates the reference elsewhere and fails when
# docs/reference (or the generated doc fragment) differs: after changing any DOCUMENTATION, argument_specs or adding a plugin, run `make docs`
# and commit docs/reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH; ANSIBLE_COLLECTIONS_PATH=$(scripts/collection-path.sh)
export ANSIBLE_HOME="$root/.build/ansible-home"

generate() {  # generate DIR: the reference as antsibull-docs writes it (reStructuredText, one page per plugin)
  mkdir -p "$1" && chmod 755 "$1"
  antsibull-docs collection --use-current --squash-hierarchy --output-format simplified-rst \
    --no-add-antsibull-docs-version --fail-on-error --dest-dir "$1" anxcloud.lbaas > "$1.log" 2>&1 || {
    cat "$1.log" >&2; echo "antsibull-docs failed: fix the documentation it names" >&2; exit 1; }
  rm -f "$1.log"
}

if [ "${1:-}" = "--check" ]; then
  echo "== plugins/doc_fragments/lbaas_object.py is what scripts/lbaas_object_fragment.py writes"
  mkdir -p .build
  python scripts/lbaas_object_fragment.py .build/lbaas_object.py
  cmp -s .build/lbaas_object.py plugins/doc_fragments/lbaas_object.py || {
    echo "plugins/doc_fragments/lbaas_object.py is stale: run \`make docs\` and commit it" >&2; exit 1; }
  echo "== docs/reference is what antsibull-docs makes of the current plugin docs"
  fresh=$root/.build/docs-check
  rm -rf "$fresh"
  generate "$fresh"
  if ! diff -r -q -x README.md "$fresh" docs/reference > "$fresh.diff"; then
    sed -e "s|$fresh|(generated)|g" "$fresh.diff" >&2
    echo "docs/reference is stale: run \`make docs\` and commit docs/reference" >&2
    exit 1
  fi
  exit 0
fi

echo "== plugins/doc_fragments/lbaas_object.py (scripts/lbaas_object_fragment.py)"
python scripts/lbaas_object_fragment.py
echo "== docs/reference (antsibull-docs)"
find docs/reference -name '*.rst' -delete 2>/dev/null || true
generate docs/reference
echo "== docs/images/*.dot -> SVG (graphviz)"
scripts/apt-deps.sh graphviz
for dot in docs/images/*.dot; do
  dot -Tsvg "$dot" -o "${dot%.dot}.svg"
done
