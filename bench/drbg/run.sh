#!/usr/bin/env bash
# On the GPU machine: CTR_DRBG bulk generation -- build, GPU tests (bulk == CPU bit for bit), compute-sanitizer
# memcheck + racecheck on the multi-key kernel, the default schedules' differential tests, then the MB/s
# benchmark (bench/drbg/bench.py).  Results and logs go to $OUT.      bash bench/drbg/run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-drbg}; mkdir -p "$OUT"
. bench/gpu/device_env.sh   # the carried wheels, a carried or kept build cache, PYTHONPATH
export CIPHERSPEC_REQUIRE_GPU=1   # on the GPU machine a GPU test that skips is a failure
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv; nvcc --version | tail -1;
  grep -m1 "model name" /proc/cpuinfo; cc --version | head -1; } | tee "$OUT/device.txt"
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
stage build
timeout 240 python3 - <<'PY' 2>&1 | tail -3 || rc=1
import os, sys
sys.path.insert(0, "bench/gpu")
from bench import build_all
from generator.c import BACKEND as C_BACKEND
from generator.ptx import BACKEND as CUDA_BACKEND
from cipherspec.registry import Registry
names = ["aes128", "lea128", "hight", "cham128_128", "aria128"]
res = build_all([(n, None) for n in Registry().names()], 16)  # every default: the differential tests run them
print("cuda builds:", res)
for n in names:
    C_BACKEND.load(Registry(), n, None, None)
print("c libraries built")
PY
stage "GPU tests: DRBG bulk == CPU, default schedules vs the interpreter"
timeout 300 python3 -m pytest tests/differential/test_cuda_drbg_gpu.py "tests/differential/test_cuda_gpu.py" -k "drbg or default" \
  -q -n 8 -p no:cacheprovider 2>&1 | tee "$OUT/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
for tool in memcheck racecheck; do
  stage "compute-sanitizer $tool (multi-key kernel)"
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 python3 bench/gpu/sanitize.py drbg > "$OUT/sanitize-$tool.log" 2>&1
  s=$?; echo "$tool exit $s"; grep -E "ERROR SUMMARY|sanitize |RACECHECK SUMMARY|Error" "$OUT/sanitize-$tool.log" | tail -8
  [ $s = 0 ] || rc=1
done
stage "DRBG benchmark"
timeout 300 python3 bench/drbg/bench.py --out "$OUT" ${DRBG_ARGS:-} 2>&1 | tee "$OUT/bench.log" | tail -25
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
stage "done rc=$rc"
exit $rc
