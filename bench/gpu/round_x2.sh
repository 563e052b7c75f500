#!/usr/bin/env bash
# The lead's check of a merged tree on two GPUs in ONE bounded call (< 10 min), from the repository root:
#   GPU 0: bench/gpu/ariaroof.sh -- the bitsliced CTR defaults against the C library, their GPU CTR tests, the
#          1 GiB keystream A/B of the lockstep schedules (sync-*, generator/ptx/lockstep.py), ncu on ARIA/AES;
#   GPU 1, at the same time: the GPU GCM tests (long, batch, records), the AES/ARIA/LEA default CTR tests, the
#          one-GPU CTR_DRBG tests (== the C DRBG), then GCM vs CTR with the A/B arms (bench/gpu/gcm_bench.py --ab);
#   then both GPUs: bench/gpu/drbg_multi.sh (whole-wave A/B, 1 vs 2 GPUs, every row == the C DRBG).
# Build the libraries on the CPU machine first and carry them (the device's build time is device time):
#   bash bench/gpu/round_x2.sh prebuild && tar cJf .cs-cache.tar.xz .cs-cache
#   run(command="bash bench/gpu/round_x2.sh", kind="nvidia-h200-x2")     (untracked .whl/, .vectors/, the tarball)
# Results under $OUT/{ariaroof,gpu1,drbg}; the summaries are printed last.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ -f .cs-cache.tar.xz ] && [ ! -d .cs-cache ] && tar xJf .cs-cache.tar.xz
export CIPHERSPEC_CACHE=$PWD/.cs-cache
if [ "${1:-}" = prebuild ]; then
  ARIAROOF_PREBUILD_ONLY=1 OUT=/tmp/round-x2-prebuild bash bench/gpu/ariaroof.sh || exit 1
  OUT=/tmp/round-x2-prebuild bash bench/gpu/drbg_multi.sh prebuild
  exit $?
fi
OUT=${OUT:-/tmp/cipherspec-round-x2}; mkdir -p "$OUT/gpu1"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
t0=$(date +%s); rc=0

( CUDA_VISIBLE_DEVICES=0 OUT=$OUT timeout 330 bash bench/gpu/ariaroof.sh > "$OUT/ariaroof.log" 2>&1
  echo "ariaroof rc $?" >> "$OUT/ariaroof.log" ) & a=$!

gpu1() {
  local G=$OUT/gpu1
  export CUDA_VISIBLE_DEVICES=1
  timeout 200 python3 -m pytest tests/differential/test_cuda_gcm_gpu.py tests/differential/test_cuda_gpu.py \
    tests/differential/test_cuda_drbg_gpu.py -q -n 6 -p no:cacheprovider \
    -k "gcm or ((aes128 or aria128 or lea128) and default) or (drbg and (lea128 or aes128 or aria128))" \
    > "$G/tests.log" 2>&1 || echo "gpu1 tests failed" >> "$G/tests.log"
  timeout 110 python3 bench/gpu/gcm_bench.py --out "$G" --ciphers aes128,aria128,lea128 --batches 3 --ab \
    > "$G/gcm.log" 2>&1 || echo "gcm_bench failed" >> "$G/gcm.log"
}
gpu1 & g=$!
wait $a; wait $g
echo "== both GPUs' parallel part done: $(( $(date +%s) - t0 )) s"
tail -n 3 "$OUT/gpu1/tests.log"
grep -q "failed" "$OUT/gpu1/tests.log" && rc=1
grep -q "ariaroof rc 0" "$OUT/ariaroof.log" || rc=1

OUT=$OUT/drbg timeout 175 bash bench/gpu/drbg_multi.sh > "$OUT/drbg.log" 2>&1 || rc=1

echo "== summaries ($(( $(date +%s) - t0 )) s)"
grep -E "^ncu|equal to|passed|failed|error" "$OUT/ariaroof.log" | head -20
cat "$OUT/ariaroof/summary.md" 2>/dev/null
sed -n '/^| cipher/,$p' "$OUT/gpu1/gcm.log" | head -30
grep -E "^\| (wave|ctas) |passed|failed" "$OUT/drbg.log"
sed -n '/^| cipher/,$p' "$OUT/drbg/bench.log" 2>/dev/null | head -12
echo "round_x2: rc=$rc, $(( $(date +%s) - t0 )) s"
exit $rc
