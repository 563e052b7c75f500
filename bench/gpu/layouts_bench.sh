#!/usr/bin/env bash
# On the GPU machine: the lane layouts' benchmark only (no checks: run.sh layouts does those), stage 2
# (thread counts of the winning layouts) included, then one ncu profile of each winner; everything under
# $OUT/layouts.tgz (the device returns a few files only).   bash bench/gpu/layouts_bench.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-gpu}; R=$OUT/layouts; mkdir -p "$R"
. bench/gpu/device_env.sh
rc=0
python3 bench/gpu/prebuild.py --layouts 2>&1 | tail -2 || rc=1
python3 bench/gpu/bench.py --out "$R" --layouts --ciphers ${LAYOUT_CIPHERS:-hight,pipo64_128,aes128} \
  --reps 3 --batches 2 --workers 16 --stage2 1 2>&1 | tee "$R/bench.log" | tail -40
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
python3 bench/gpu/profile.py "$R/tuned.json" "$R" 2>&1 | tail -60
tar czf "$OUT/layouts.tgz" -C "$OUT" layouts && rm -rf "$R"
exit $rc
