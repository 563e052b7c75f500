#!/usr/bin/env bash
# S-boxes affine-equivalent to GF(2^8) inversion in the bitsliced CUDA cores (issue 25), on the GPU machine, from
# the repository root, in one call (< 4 min with the caches carried): builds the constant-time defaults of
# AES-128, ARIA-128 and SM4 (bs_rk-const_t128) twice -- as generated now (each such S-box through the
# decomposition, circuit and linear form with the fewest LOP3: generator/ptx/sbox_choice.py, sbox_equiv.py,
# generator/common/slp.py) and as before (CIPHERSPEC_PTX_SBOX=v1: Paar's networks, two_sided's own decomposition,
# the A/B baseline in the same run) -- checks both against the C library (CTR across a counter wrap, ECB both
# ways), runs the differential GPU tests of the AES/ARIA defaults, and times 1 GiB device-resident CTR through
# bench/gpu/bench.py.  Results under $OUT: now/ and v1/ (bench.py's results.json), check-c.log, tests.log,
# summary.md (Gbps, SASS instructions a block, roof, % of roof, per arm).
# nvcc takes minutes per bitsliced library: prebuild on the CPU machine and carry both caches:
#     CIPHERSPEC_CACHE=$PWD/.cs-cache AFFINV_PREBUILD_ONLY=1 bash bench/gpu/affinv.sh
#     run(command="bash bench/gpu/affinv.sh", carry=[".cs-cache", ".cs-cache-v1"])
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1 CIPHERSPEC_BENCH_SPECS=examples/ciphers/sm4.cs
[ -z "${AFFINV_PREBUILD_ONLY:-}" ] && nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
rc=0
t0=$(date +%s)
MAIN=aes128:bs_rk-const_t128,aria128:bs_rk-const_t128,sm4:bs_rk-const_t128
V1_CACHE=$CIPHERSPEC_CACHE-v1  # its own cache: the same schedule names, other sources
W=$(( $(nproc) / 2 )); [ "$W" -lt 1 ] && W=1
echo "== build (now, and the v1 S-box circuits side by side)"
python3 bench/gpu/build_jobs.py "$MAIN" "$W" > "$OUT/build-now.log" 2>&1 &
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_SBOX=v1 python3 bench/gpu/build_jobs.py "$MAIN" "$W" > "$OUT/build-v1.log" 2>&1 &
wait
tail -n 2 "$OUT/build-now.log" "$OUT/build-v1.log"
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "${AFFINV_PREBUILD_ONLY:-}" ] && exit 0
echo "== GPU vs the C library (CTR with a counter wrap, ECB both ways)"
check() {
  python3 - "${MAIN//,/ }" <<'PY'
import sys
import numpy as np
sys.path.insert(0, "bench/gpu")
import bs_check
from bench import registry
reg, bad = registry(), 0
for job in sys.argv[1].split():
    name, schedule = job.split(":")
    wrong = bs_check.check(reg, name, schedule, np.random.default_rng(25))
    print(f"{name}:{schedule}: {'MISMATCH ' + ','.join(wrong) if wrong else 'ok (ctr, ecb enc/dec)'}")
    bad |= bool(wrong)
sys.exit(1 if bad else 0)
PY
}
check 2>&1 | tee "$OUT/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_SBOX=v1 check 2>&1 | sed 's/^/v1: /' | tee -a "$OUT/check-c.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== differential GPU tests (vs the interpreter): the AES/ARIA defaults"
python3 -m pytest tests/differential/test_cuda_gpu.py -q -n 8 -p no:cacheprovider \
  -k "(aes128 or aria128) and default" 2>&1 | tee "$OUT/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== benchmark (1 GiB CTR in device memory; bench.py checks windows against the interpreter)"
python3 bench/gpu/bench.py --out "$OUT/now" --spec examples/ciphers/sm4.cs --ciphers aes128,aria128,sm4 --schedules "$MAIN" \
  --reps 4 --batches 3 --workers "$W" --stage2 0 --tune 0 2>&1 | tee "$OUT/bench-now.log" | tail -8
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_SBOX=v1 python3 bench/gpu/bench.py --out "$OUT/v1" --spec examples/ciphers/sm4.cs \
  --ciphers aes128,aria128,sm4 --schedules "$MAIN" --reps 4 --batches 3 --workers "$W" --stage2 0 --tune 0 2>&1 \
  | tee "$OUT/bench-v1.log" | tail -8
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
python3 bench/gpu/ab_summary.py "$OUT" now v1 | tee "$OUT/summary.md"
echo "affinv: rc=$rc, $(( $(date +%s) - t0 )) s"
exit $rc
