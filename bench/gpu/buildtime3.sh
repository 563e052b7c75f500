#!/usr/bin/env bash
# The buildtime3 branch on the GPU (issue 25's build time), from the repository root, one call, < 4 minutes.
# That branch prints each cipher core's straight-line runs of inline-PTX statements as asm blocks
# (generator/ptx/asmblock.py): nvcc's optimizer walks a few hundred statements instead of ~16,000 (AES-128's cicc
# about -16%).  The PTX instructions are the same, but nvcc places the C code around them a little differently,
# so some kernels' SASS changed (AES-128's default, shipped build, bench/cuda/sass_trips.py, 9 round trips):
#   ecb_dec  23,929 -> 23,392 instructions a grid-stride trip (-2.2%), but now 8 bytes of spills (1 STL, 2 LDL a trip)
#   gcm_batch 50,577 -> 50,623 (+0.09%);  ctr_multi 22,377 -> 22,376;  CTR, ECB encrypt, GCM long/keystream: identical
# A/B in ONE tree: the blocks are off by default (no device A/B yet; the sources are then byte-identical to main's
# before the branch), CIPHERSPEC_PTX_ASMBLOCK=1 turns them on: "now" is the blocks, "off" the base.  This runs, for AES-128's default (bs_rk-const_t128):
#   1. the GPU tests of ECB/CTR, GCM and CTR_DRBG/multi-key (blocks on) against the C library;
#   2. gcm_bench.py (GCM long message and 16 KiB-record batch, CTR beside them), arms now / off / now;
#   3. kernel times under ncu (ECB decrypt 256 MiB, multi-key CTR, GCM batch) for both arms, if ncu is there;
#   4. per-kernel registers/stack of both arms' libraries (cuobjdump -res-usage).
# Everything lands in $OUT/buildtime3/ (summary lines in $OUT/buildtime3/summary.txt).
#     run(command="bash bench/gpu/buildtime3.sh")
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
cs_gpu_start
R=$OUT/buildtime3; mkdir -p "$R"; mv "$OUT/device.txt" "$R/"
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)" | tee -a "$R/summary.txt"; }
OFF=$CIPHERSPEC_CACHE-off  # the arms' libraries have the same names: one cache each

stage "build AES-128's default, blocks on and off (both flavours, as the tests and benchmarks load it)"
build() {  # ARM
  local env=(CIPHERSPEC_PTX_ASMBLOCK=1); [ "$1" = off ] && env=(CIPHERSPEC_PTX_ASMBLOCK=0 CIPHERSPEC_CACHE="$OFF")
  env "${env[@]}" timeout 200 python3 - <<'PY'
import sys
sys.path[0:0] = ["bench/gpu"]
from bench import build_all
res = build_all([("aes128", None)], 8)
print("prebuild:", {k: v for k, v in res.items() if v != "ok"} or "all built")
PY
}
build now > "$R/build-now.log" 2>&1 & build off > "$R/build-off.log" 2>&1 & wait
tail -n 1 "$R/build-now.log" "$R/build-off.log" | tee -a "$R/summary.txt"

stage "GPU tests: ECB, CTR, GCM, CTR_DRBG / multi-key of AES-128's default (blocks on)"
CIPHERSPEC_PTX_ASMBLOCK=1 timeout 150 python3 -m pytest tests/differential/test_cuda_gpu.py tests/differential/test_cuda_gcm_gpu.py \
  tests/differential/test_cuda_drbg_gpu.py -k "aes128-default or (aes128 and (tensor_cores_mixed or drbg or multi))" \
  -q -p no:cacheprovider -n 4 2>&1 | tee "$R/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
tail -n 1 "$R/tests.log" >> "$R/summary.txt"

stage "GCM (long, 16 KiB records) and CTR, AES-128, arms now / off / now"
gcm() {  # ARM RUN
  local env=(CIPHERSPEC_PTX_ASMBLOCK=1); [ "$1" = off ] && env=(CIPHERSPEC_PTX_ASMBLOCK=0 CIPHERSPEC_CACHE="$OFF")
  env "${env[@]}" timeout 60 python3 bench/gpu/gcm_bench.py --out "$R/gcm-$1$2" --ciphers aes128 --batches 3 \
    > "$R/gcm-$1$2.log" 2>&1 || rc=1
  echo "-- $1$2" >> "$R/summary.txt"; tail -n 8 "$R/gcm-$1$2.log" >> "$R/summary.txt"
}
gcm now 1; gcm off 1; gcm now 2

if command -v ncu >/dev/null; then
  stage "kernel times under ncu (gpu__time_duration): ECB decrypt 256 MiB x3, multi-key CTR, GCM batch"
  cat > "$R/kernels.py" <<'PY'
import numpy as np
from cipherspec.registry import Registry
from generator.ptx.build import schedule_for
from generator.ptx.source import generate
from runtime.cuda_target import CudaCipher
m = Registry().module("aes128")
sched = schedule_for(m, None)
c = CudaCipher(m, sched, generate(m, sched))
rk = c.expand_key(bytes(range(16)))
data = np.random.default_rng(1).integers(0, 256, 256 << 20, dtype=np.uint8).tobytes()
for _ in range(3):
    c.device_ecb(rk, data, decrypt=True)
PY
  for arm in now off; do
    env=(CIPHERSPEC_PTX_ASMBLOCK=1); [ "$arm" = off ] && env=(CIPHERSPEC_PTX_ASMBLOCK=0 CIPHERSPEC_CACHE="$OFF")
    env "${env[@]}" timeout 40 ncu --metrics gpu__time_duration.sum --print-units base --csv --kernel-name "regex:ecb_dec" \
      python3 "$R/kernels.py" > "$R/ncu-ecb-$arm.csv" 2>&1 || echo "ncu ecb $arm failed (see the csv)" >> "$R/summary.txt"
    grep -h '"gpu__time_duration.sum"' "$R/ncu-ecb-$arm.csv" | awk -F'","' -v a="$arm" '{gsub(/[",]/, "", $NF); s+=$NF; n++} END {if (n) printf "ecb_dec %s: %d launches, %.3f ms each\n", a, n, s/n/1e6}' | tee -a "$R/summary.txt"
  done
fi

stage "registers and stack per kernel (cuobjdump -res-usage), now then off"
cs_res_usage "$CIPHERSPEC_CACHE"/nvcc/aes128_cuda_ctr_bs_rk-const_t128.*.so "$OFF"/nvcc/aes128_cuda_ctr_bs_rk-const_t128.*.so \
  > "$R/res-usage.txt" 2>&1

stage "done (rc $rc)"
cp "$0" "$R/" 2>/dev/null
exit $rc
