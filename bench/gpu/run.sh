#!/usr/bin/env bash
# On the GPU machine: build, differential tests, KATs, compute-sanitizer (memcheck + racecheck on every
# placement), then the benchmark/autotuner.  Results and logs go to $OUT.
#   bash bench/gpu/run.sh [check|bench|all|layouts]
# layouts: the lane layouts only (issue 11): their differential tests, KATs, sanitizers, then the benchmark of
#   each cipher's lane layouts beside its current default (bench.py --layouts); prebuild their libraries on the
#   CPU machine first (bench/gpu/prebuild.py --layouts with CIPHERSPEC_CACHE=$PWD/.cs-cache) and carry .cs-cache
set -uo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1   # on the GPU machine a GPU test that skips is a failure
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
nvcc --version | tail -1 | tee -a "$OUT/device.txt"
rc=0
if [ "$what" = check ] || [ "$what" = all ]; then
  t0=$(date +%s)
  python3 bench/gpu/prebuild.py 2>&1 | tail -3 || rc=1
  echo "== differential tests"
  python3 -m pytest tests/differential/test_cuda_gpu.py tests/differential/test_cuda_wordshapes_gpu.py \
    tests/differential/test_cuda_cli_gpu.py -q -n 16 -p no:cacheprovider 2>&1 | tee "$OUT/tests.log" | tail -15
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  echo "== KAT files, --target cuda"
  python3 -m driver kat .vectors/aes.txt .vectors/aria.txt .vectors/cham.txt .vectors/hight.txt .vectors/lea.txt \
    .vectors/pipo.txt --target cuda 2>&1 | tee "$OUT/kat.log" | tail -8
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer $tool"
    compute-sanitizer --tool $tool --error-exitcode 3 python3 bench/gpu/sanitize.py > "$OUT/sanitize-$tool.log" 2>&1
    s=$?; echo "$tool exit $s"; grep -E "ERROR SUMMARY|sanitize |RACECHECK SUMMARY|Error" "$OUT/sanitize-$tool.log" | tail -20
    [ $s = 0 ] || rc=1
  done
  echo "check stage: $(( $(date +%s) - t0 )) s, rc=$rc"
fi
if [ "$what" = layouts ]; then
  t0=$(date +%s)
  python3 bench/gpu/prebuild.py --layouts 2>&1 | tail -3 || rc=1
  echo "== differential tests, lane layouts"
  python3 -m pytest tests/differential/test_cuda_gpu.py -q -n 8 -p no:cacheprovider -k "swar or bs_ or tt" 2>&1 \
    | tee "$OUT/tests-layouts.log" | tail -15
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  echo "== KAT files, --target cuda, lane layouts"
  for cs in "hight swar" "pipo bs_t64" "aes tt"; do  # (every variant in the file: prebuild.py --layouts builds them)
    set -- $cs
    python3 -m driver kat ".vectors/$1.txt" --target cuda --schedule "$2" > "$OUT/kat-layouts-$1.log" 2>&1 || rc=1
    tail -3 "$OUT/kat-layouts-$1.log"
  done
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer $tool, lane layouts"
    compute-sanitizer --tool $tool --error-exitcode 3 python3 bench/gpu/sanitize.py layouts > "$OUT/sanitize-layouts-$tool.log" 2>&1
    s=$?; echo "$tool exit $s"; grep -E "ERROR SUMMARY|sanitize |RACECHECK SUMMARY|Error" "$OUT/sanitize-layouts-$tool.log" | tail -8
    [ $s = 0 ] || rc=1
  done
  echo "check stage: $(( $(date +%s) - t0 )) s, rc=$rc"
  echo "== benchmark, lane layouts beside each default"
  python3 bench/gpu/bench.py --out "$OUT" --layouts --ciphers ${LAYOUT_CIPHERS:-hight,pipo64_128,aes128} \
    --reps 2 --batches 2 --workers 16 --stage2 "${LAYOUT_STAGE2:-0}" 2>&1 | tee "$OUT/bench.log" | tail -40
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  if command -v ncu >/dev/null && [ -f "$OUT/tuned.json" ]; then  # one profile of each winning kernel
    python3 bench/gpu/profile.py "$OUT/tuned.json" "$OUT" 2>&1 | tail -20
  fi
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  echo "== benchmark"
  python3 bench/gpu/bench.py --out "$OUT" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log" | tail -80
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
exit $rc
