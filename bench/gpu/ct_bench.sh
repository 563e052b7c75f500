#!/usr/bin/env bash
# The constant-time CUDA defaults of AES and ARIA (the bitsliced layout with round loops), on the GPU machine,
# in one call: differential tests (every AES/ARIA default, the bs schedules of the GPU suite), the KAT files,
# compute-sanitizer memcheck on the bs kernels, then the benchmark of the bs schedules beside the former
# table defaults (AES tt, ARIA tab-shared16; CT_SCHEDS=cipher:schedule,... replaces the list).  Results in $OUT
# (and $OUT/ct.tar.gz).
#
# Prebuild on the CPU machine (nvcc takes ~1 min per bitsliced library there; the device then compiles
# nothing) and carry the cache:
#     CIPHERSPEC_CACHE=$PWD/.cs-cache python3 bench/gpu/prebuild.py --ct
#     run(command="bash bench/gpu/ct_bench.sh", carry=[".cs-cache", ".whl"?])
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
rc=0
t0=$(date +%s)
python3 bench/gpu/prebuild.py --ct 2>&1 | tail -3 || rc=1   # (cache hits when prebuilt)
echo "== differential tests: AES/ARIA defaults and bs schedules"
python3 -m pytest tests/differential/test_cuda_gpu.py -q -n 8 -p no:cacheprovider \
  -k "(aes or aria) and (default or bs_)" 2>&1 | tee "$OUT/tests-ct.log" | tail -15
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== KAT files, --target cuda (the defaults: bs)"
python3 -m driver kat .vectors/aes.txt .vectors/aria.txt --target cuda 2>&1 | tee "$OUT/kat-ct.log" | tail -4
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== compute-sanitizer memcheck, lane layouts (incl. aes128/aria128 bs_t128)"
compute-sanitizer --tool memcheck --error-exitcode 3 python3 bench/gpu/sanitize.py layouts > "$OUT/sanitize-ct-memcheck.log" 2>&1
s=$?; echo "memcheck exit $s"; grep -E "ERROR SUMMARY|sanitize |Error" "$OUT/sanitize-ct-memcheck.log" | tail -10
[ $s = 0 ] || rc=1
echo "check stage: $(( $(date +%s) - t0 )) s, rc=$rc"
echo "== benchmark: bs beside the former table defaults (CTR keystream, 1 GiB, verified windows)"
SCHEDS=${CT_SCHEDS:-$(python3 -c "import sys; sys.path.insert(0, 'bench/gpu'); from prebuild import CT_BENCH, CT_TABLES; print(','.join(CT_BENCH + CT_TABLES))")}
python3 bench/gpu/bench.py --out "$OUT" --schedules "$SCHEDS" --reps 4 --batches 3 --workers 16 --stage2 0 2>&1 \
  | tee "$OUT/bench-ct.log" | tail -20
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
if command -v ncu >/dev/null && [ -f "$OUT/tuned.json" ]; then  # one profile of each pick (issue slots, pipes)
  python3 bench/gpu/profile.py "$OUT/tuned.json" "$OUT" 2>&1 | tail -20
fi
tar -czf "$OUT/ct.tar.gz" -C "$OUT" $(cd "$OUT" && ls | grep -v '\.tar\.gz$')
echo "ct_bench: rc=$rc, $(( $(date +%s) - t0 )) s"
exit $rc
