#!/usr/bin/env bash
# The asm blocks on the GPU (issue 25's build time), from the repository root, one call, < 4 minutes.
# generator/ptx/asmblock.py prints each cipher core's straight-line runs of inline-PTX statements as asm blocks:
# nvcc's optimizer walks a few hundred statements instead of ~16,000 (AES-128's cicc about -16%, nearinv -70%).
# The PTX instructions are the same, but nvcc places the C code around them a little differently, so a few of
# AES's kernels compile to other SASS (bench/results/cuda-build-time.md, sixth pass: which ones at the t256
# default).  A/B in ONE tree: CIPHERSPEC_PTX_ASMBLOCK=1 prints the blocks ("on"), =0 the statements one by one
# ("off": the sources byte-identical to main's before the blocks); each arm its own build cache.  For AES-128's
# default, in this order (the A/B first, so a cut at the bound loses the tests, not the figures):
#   1. both arms' libraries (both flavours, as the runtime loads them) and the C library, built side by side;
#   2. kernel times under ncu (gpu__time_duration), arms on / off / on: ECB decrypt 256 MiB, the fused GCM batch
#      kernel (8 records of 2 MiB), the multi-key CTR of a 64 MiB DRBG bulk call, CTR 64 MiB (the control: same
#      SASS), 3 calls each; the outputs' SHA-256 per arm (must be equal); bench/gpu/asmblock_ab.py;
#   3. per-kernel registers/stack of both arms' libraries (cuobjdump -res-usage);
#   4. the GPU tests of ECB/CTR, GCM and CTR_DRBG / multi-key with the blocks on, against the C library.
# Everything lands in $OUT/buildtime3/ (summary lines in $OUT/buildtime3/summary.txt).
#     run(command="bash bench/gpu/buildtime3.sh")
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
cs_gpu_start
R=$OUT/buildtime3; mkdir -p "$R"; mv "$OUT/device.txt" "$R/"
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)" | tee -a "$R/summary.txt"; }
ON=$CIPHERSPEC_CACHE-on OFF=$CIPHERSPEC_CACHE-off  # the arms' libraries have the same names: one cache each
arm() {  # ARM CMD...: CMD with that arm's switch and cache
  local a=$1; shift
  if [ "$a" = off ]; then CIPHERSPEC_PTX_ASMBLOCK=0 CIPHERSPEC_CACHE="$OFF" "$@"; else CIPHERSPEC_PTX_ASMBLOCK=1 CIPHERSPEC_CACHE="$ON" "$@"; fi
}
mkdir -p "$ON" "$OFF"; cp -r "$CIPHERSPEC_CACHE"/. "$ON"/ 2>/dev/null; cp -r "$CIPHERSPEC_CACHE"/. "$OFF"/ 2>/dev/null

stage "build AES-128's default (both flavours) and its C library, arms on and off side by side"
build() {
  timeout 170 python3 - <<'PY'
from cipherspec.registry import Registry
from generator.c import BACKEND as C_BACKEND
from generator.ptx import BACKEND as CUDA_BACKEND
reg = Registry()
C_BACKEND.load(reg, "aes128", None, None)
print("built", CUDA_BACKEND.load(reg, "aes128", None, None).schedule_name)
PY
}
arm on build > "$R/build-on.log" 2>&1 & arm off build > "$R/build-off.log" 2>&1 & wait
tail -n 1 "$R/build-on.log" "$R/build-off.log" | tee -a "$R/summary.txt"

if command -v ncu >/dev/null; then
  stage "kernel times under ncu (gpu__time_duration), arms on / off / on"
  for a in on off on2; do
    arm "${a%2}" timeout 50 ncu --metrics gpu__time_duration.sum --csv --kernel-name "regex:ecb_dec|gcm_batch|ctr_multi|ctr_ptx" \
      python3 bench/gpu/asmblock_ab.py run > "$R/ncu-$a.csv" 2>&1 || { echo "ncu $a failed (see ncu-$a.csv)" | tee -a "$R/summary.txt"; rc=1; }
    { echo "-- outputs, $a:"; grep -E "^(ecb|gcm|drbg|ctr) " "$R/ncu-$a.csv"; } | tee -a "$R/summary.txt"
  done
  { python3 bench/gpu/asmblock_ab.py summary "$R/ncu-on.csv" "$R/ncu-off.csv"
    echo "-- the second on arm against off:"; python3 bench/gpu/asmblock_ab.py summary "$R/ncu-on2.csv" "$R/ncu-off.csv"; } \
    2>&1 | tee -a "$R/summary.txt"
else
  echo "no ncu: no kernel times" | tee -a "$R/summary.txt"
fi

stage "registers and stack per kernel (cuobjdump -res-usage), on then off"
cs_res_usage "$ON"/nvcc/aes128_cuda_*.so "$OFF"/nvcc/aes128_cuda_*.so > "$R/res-usage.txt" 2>&1

left=$(( 230 - ($(date +%s) - t0) )); [ "$left" -lt 20 ] && left=20
stage "GPU tests: ECB, CTR, GCM, CTR_DRBG / multi-key of AES-128's default (blocks on; ${left} s left)"
arm on timeout $left python3 -m pytest tests/differential/test_cuda_gpu.py tests/differential/test_cuda_gcm_gpu.py \
  tests/differential/test_cuda_drbg_gpu.py -k "aes128-default or (aes128 and (tensor_cores_mixed or drbg or multi))" \
  -q -p no:cacheprovider -n 4 2>&1 | tee "$R/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
tail -n 1 "$R/tests.log" >> "$R/summary.txt"

stage "done (rc $rc)"
cp "$0" "$R/" 2>/dev/null
exit $rc
