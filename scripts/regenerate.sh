#!/usr/bin/env bash
# Regenerates generated/ (the committed, reproducible compiler output) into OUT (default: generated).
#   bash scripts/regenerate.sh [OUT]       (scripts/check_generated.sh diffs OUT against generated/)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-generated}"
mkdir -p "$out"
bash scripts/regenerate_neon.sh "$out"   # generated/neon: NEON .S + headers, default schedules
bash scripts/regenerate_c.sh "$out"      # generated/c: C headers + sources, default schedules
bash scripts/regenerate_openssl.sh "$out" # generated/openssl-provider: the provider's glue + openssl.cnf
