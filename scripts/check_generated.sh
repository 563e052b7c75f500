#!/usr/bin/env bash
# generated/ is committed build output: regenerate it and fail on any difference.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -x scripts/regenerate.sh ]; then
  bash scripts/regenerate.sh "$tmp/generated"
  if ! diff -r generated "$tmp/generated" >"$tmp/diff"; then
    head -50 "$tmp/diff"; echo "generated/ is stale: run 'bash scripts/regenerate.sh' and commit"; exit 1
  fi
  echo "generated/: reproducible"
fi
