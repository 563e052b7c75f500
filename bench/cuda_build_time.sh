#!/usr/bin/env bash
# CPU and wall time of `cipherspec build --target cuda` from an empty cache: --all, then every example spec and
# every conformance spec (all of a spec's ciphers in one build), one build at a time; optionally the same builds
# by another checkout (BASE=path, e.g. an export of main) first, for a before/after table.
#   bash bench/cuda_build_time.sh                       -> $OUT/cuda-build-time.jsonl (OUT default: /tmp)
#   BASE=/tmp/main-export SPECS="examples/ciphers/sm4.cs" ALL=0 bash bench/cuda_build_time.sh
# Each line: what, cpu_s (user+sys of the whole process tree), wall_s, load1 at start/end (bench/cuda/build_time.py).
# The SASS check (same kernels before/after) is bench/cuda/sass_same.py on two builds' .so files.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp}
mkdir -p "$OUT"
log="$OUT/cuda-build-time.jsonl"
ALL=${ALL:-1}
SPECS=${SPECS:-"$(ls examples/ciphers/*.cs tests/conformance/*.cs)"}
for repo in ${BASE:-} .; do
  [ "$ALL" = 1 ] && python3 bench/cuda/build_time.py --repo "$repo" --all --json "$log"
  for s in $SPECS; do python3 bench/cuda/build_time.py --repo "$repo" --spec "$s" --json "$log"; done
done
echo "results: $log"
