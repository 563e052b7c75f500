#!/usr/bin/env bash
# NOTE: main reverted the one-CTR-kernel change after this script measured it slower (LEA-128 XOR CTR -24%,
# bench/results/cuda-build-time.md); the script stays as a CTR A/B of this tree against CUDAMERGE_BASE_REV.
# The cudamerge branch on the GPU (issue 25's build time), from the repository root, one call, < 4 minutes with the
# cache carried.  That branch compiles each library's CTR kernel once per flavour: the XOR-or-keystream choice and
# the call's partial last block are uniform run-time tests of one kernel (P_ctr_ptx), not the template pair
# P_ctr_ptx<true>/<false> plus a one-thread P_ctr_tail_ptx kernel, each with its own inlined copy of the core
# (generator/ptx/templates/lanes.cu.j2, kernel.cu.j2, host.cu.j2).  Its round loop is the same 1,571 SASS
# instructions as before (AES-128), its grid-stride trip the XOR kernel's plus the keystream store loop.
# This runs, for AES-128's constant-time default (bs_rk-const_t128) and LEA-128's (a scalar layout, kernel.cu.j2):
#   1. the GPU tests of ECB and CTR (carries, lengths, partial blocks, both flavours) and GCM (whose long-message, H
#      and J0 paths call the CTR entry) of both, CTR_DRBG of AES-128, against the interpreter and the C library;
#   2. bench/gpu/bench.py's 1 GiB device-resident CTR (keystream and XOR, both flavours) of both, A/B on this card:
#      this tree ("now") and main before the branch ("base": .cudamerge-base, an export of CUDAMERGE_BASE_REV made
#      on the CPU machine), in the order now, base, now;
#   3. both libraries' per-kernel registers/stack (cuobjdump -res-usage).
# Everything lands in ONE file, $OUT/cudamerge.tgz (summary.md inside: ab_summary.py's table per run).
# Without a prebuilt cache it builds both AES-128 libraries (both flavours) and LEA-128 on the device first (about a
# minute on 16 cores).  Optionally, on the CPU machine first (a few minutes of nvcc; the carry is at most 64 MiB):
#     CIPHERSPEC_CACHE=$PWD/.cs-cache CUDAMERGE_PREBUILD_ONLY=1 bash bench/gpu/cudamerge.sh
#     run(command="bash bench/gpu/cudamerge.sh", carry=[".cudamerge-base"] + [".cs-cache", ".cs-cache-base"] if prebuilt)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BASE=$ROOT/.cudamerge-base
BASE_REV=${CUDAMERGE_BASE_REV:-ae5986d}  # main when cudamerge merged it (ctrcache, drbgfix, gcmks in)
if [ ! -d "$BASE" ]; then
  mkdir -p "$BASE"
  git archive "$BASE_REV" cipherspec generator runtime toolchain bench/gpu driver examples | tar x -C "$BASE" \
    || { echo "cannot export $BASE_REV into $BASE (no git here? carry .cudamerge-base)"; exit 1; }
fi
. bench/gpu/device_env.sh
JOBS=aes128:bs_rk-const_t128,lea128:ilp2_rk-const_t256  # the defaults: a lane layout (lanes.cu.j2), a scalar one (kernel.cu.j2)
W=$(( $(nproc) / 2 )); [ "$W" -lt 1 ] && W=1
SITE=""; [ -d .whl ] && SITE=/tmp/site  # the carried wheels (device_env.sh)
BASE_CACHE=$CIPHERSPEC_CACHE-base  # its own cache: the same schedule names (source files), other sources
base_py() {  # python3 in the base tree, with its cache; at most $TMO seconds (default 600)
  (cd "$BASE" && CIPHERSPEC_CACHE="$BASE_CACHE" PYTHONPATH="$BASE${SITE:+:$SITE}" timeout "${TMO:-600}" python3 "$@")
}
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }

if [ -n "${CUDAMERGE_PREBUILD_ONLY:-}" ]; then
  stage "prebuild (both flavours, as the tests and bench.py load them) into $CIPHERSPEC_CACHE and $BASE_CACHE"
  python3 bench/gpu/build_jobs.py "$JOBS" 1 & base_py bench/gpu/build_jobs.py "${JOBS%%,*}" 1 & wait
  rm -rf "$CIPHERSPEC_CACHE/cuda-src" "$BASE_CACHE/cuda-src"  # (regenerated there; the carry is at most 64 MiB)
  du -sh "$CIPHERSPEC_CACHE" "$BASE_CACHE" "$BASE"
  exit 0
fi
cs_gpu_start
R=$OUT/cudamerge; mkdir -p "$R"; mv "$OUT/device.txt" "$R/"

stage "build (cache hits when carried)"
python3 bench/gpu/build_jobs.py "$JOBS" "$W" > "$R/build-now.log" 2>&1 &
base_py bench/gpu/build_jobs.py "${JOBS%%,*}" "$W" > "$R/build-base.log" 2>&1 &  # (the A/B is AES-128's)
wait
tail -n 1 "$R/build-now.log" "$R/build-base.log"

stage "GPU tests: ECB, CTR, GCM of the AES-128 and LEA-128 defaults, CTR_DRBG of AES-128 (this tree)"
timeout 150 python3 -m pytest tests/differential/test_cuda_gpu.py tests/differential/test_cuda_gcm_gpu.py \
  tests/differential/test_cuda_drbg_gpu.py -k "aes128-default or lea128-default or (aes128 and (tensor_cores_mixed or drbg))" \
  -q -p no:cacheprovider -n 4 2>&1 \
  | tee "$R/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

stage "benchmark: 1 GiB CTR in device memory (AES-128, LEA-128 defaults), now / base / now"
bench() {  # ARM RUN: bench.py in this tree (now) or the base tree
  local args=(bench/gpu/bench.py --out "$R/$1$2" --ciphers aes128,lea128 --schedules "$JOBS" --reps 4 --batches 3
    --workers 2 --stage2 0 --tune 0)
  if [ "$1" = now ]; then timeout 80 python3 "${args[@]}"; else TMO=80 base_py "${args[@]}"; fi > "$R/bench-$1$2.log" 2>&1 || rc=1
}
bench now 1; bench base 1; bench now 2
python3 bench/gpu/ab_summary.py "$R" now1 base1 now2 | tee "$R/summary.md"

stage "registers and stack per kernel (cuobjdump -res-usage)"
cs_res_usage "$CIPHERSPEC_CACHE"/nvcc/aes128_cuda_ctr_bs_rk-const_t128.*.so "$BASE_CACHE"/nvcc/aes128_cuda_ctr_bs_rk-const_t128.*.so \
  > "$R/res-usage.txt" 2>&1

stage "done (rc $rc)"
cp "$0" "$R/" 2>/dev/null
tar czf "$OUT/cudamerge.tgz" -C "$OUT" cudamerge && rm -rf "$R"
exit $rc
