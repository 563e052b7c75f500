#!/usr/bin/env bash
# Issue 25: the bitsliced CTR defaults at their SASS roof; ARIA-128 at 3.0 Tbps and 85% (branches ariaroof, ariaroof2).
# The mid-session round of this script (bench/results/ariaroof2.md, H200, 1 GiB CTR keystream) measured one 256-thread
# CTA an SM faster than two of 128 for both ciphers, and ARIA's warps kept in step (a barrier of the two warps of a
# scheduler at each iteration of its 54 KB round loop) at 3,334 Gbps = 94.1% of its roof (2,933 at t128); AES's
# 25 KB loop is best free-running.  The default is now bs_rk-const_sync-auto_t256 (generator/ptx/lockstep.py: the
# barriers where the code between them is large); the explicit bs_rk-const_t128 builds the former default.
# On the GPU machine, from the repository root, in one call (the libraries built there on 16 cores, or carried):
#   1. builds the defaults and former defaults (t128) of AES-128 and ARIA-128, PIPO-64 `bs_t64` (the GPU tests),
#      ARIA-128 at t256 free and with each sync (trip, round, pair), AES-128 at t256 free and sync-pair, and
#      aria128f at t128 and t256 sync-pair (the spec `bench/gpu/aria_frames.py --spec` writes: ARIA one round a
#      loop iteration, the same cipher);
#   2. one process an arm (clockwatch.py) makes its library (codegen) and then, in turn under one lock: the
#      digests of 256 MiB of keystream + 37 bytes and a 32 MiB XOR across a 32-bit counter wrap (ctr_same.py;
#      equal per cipher across its arms, aria128f's with aria128's) and 1 GiB device-resident CTR
#      keystream timed (ptx flavour, SM clock sampled); the table goes to summary.md at once; then the defaults
#      against the C library (bs_check.py: CTR 4 MiB + 37 bytes across a 32-bit counter wrap, ECB both ways);
#   3. Nsight Compute while under 330 s (one 64 MiB launch each; warp states, scheduler and instruction stats, and
#      the i-cache counters this ncu lists): the two defaults, aria128f, ARIA t128; then the GPU CTR tests.
# ARIAROOF_QUICK=1: only default vs former default (t128) for AES-128, ARIA-128, SM4, PRESENT-80 and nearinv_u32_be
#   (tests/conformance/sbox_inv.cs; also at t256 free), checked and timed as in 2 -- no ncu, no tests (~2 min with
#   the libraries carried).
# Results: $OUT/ariaroof/ (logs, clock-*/clockwatch.json, ncu-*.txt, summary.md; the summary on stdout).
# To carry prebuilt libraries:  CIPHERSPEC_CACHE=$PWD/.cs-cache [ARIAROOF_QUICK=1] ARIAROOF_PREBUILD_ONLY=1 bash bench/gpu/ariaroof.sh
#     run(command="ARIAROOF_QUICK=1 bash bench/gpu/ariaroof.sh", carry=[".cs-cache"])
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
. bench/gpu/arms.sh
if [ -z "${ARIAROOF_PREBUILD_ONLY:-}" ]; then cs_gpu_start; else OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"; fi
R="$OUT/ariaroof"; mkdir -p "$R"
python3 bench/gpu/aria_frames.py --spec "$R/aria_frames.cs"  # (aria128f: ARIA written one round a loop iteration)
export CIPHERSPEC_BENCH_SPECS=examples/ciphers/sm4.cs:examples/ciphers/present.cs:tests/conformance/sbox_inv.cs:$R/aria_frames.cs
rc=0
t0=$(date +%s)
A=aria128:bs_rk-const; E=aes128:bs_rk-const; D=bs_rk-const_sync-auto_t256  # (D: the bitsliced default since ariaroof2)
MAIN=aes128:$D,aria128:$D            # the defaults (checked against the C library and against these names)
FORMER=${E}_t128,${A}_t128           # the defaults before (t128, free-running): the A/B baseline
ARIA=${A}_t256,${A}_t256_sync-trip,${A}_t256_sync-round,${A}_t256_sync-pair
AES=${E}_t256,${E}_t256_sync-pair
FRAMES=aria128f:bs_rk-const_t128,aria128f:bs_rk-const_t256_sync-pair  # (ARIA written one round a loop iteration)
if [ -n "${ARIAROOF_QUICK:-}" ]; then  # default vs former for the five bitsliced defaults only (no ncu, no tests)
  MAIN=$MAIN,sm4:$D,present80:bs_rk-shared_sync-auto_t256,nearinv_u32_be:$D
  FORMER=$FORMER,sm4:bs_rk-const_t128,present80:bs_rk-shared_t128,nearinv_u32_be:bs_rk-const_t128,nearinv_u32_be:bs_rk-const_t256
  ARIA=""; AES=""; FRAMES=""
fi
JOBS=$(echo "$MAIN,$FORMER,pipo64_128:bs_t64,$ARIA,$AES,$FRAMES" | tr -s , | sed 's/,$//')
cs_defaults_are "$MAIN" || { echo "the defaults are not the schedules this script names: update MAIN"; rc=1; }
echo "== build: $JOBS"
python3 bench/gpu/build_jobs.py "$JOBS" "$(nproc)" > "$R/build.log" 2>&1 || rc=1
tail -n 1 "$R/build.log"
echo "build: $(( $(date +%s) - t0 )) s"
if [ -n "${ARIAROOF_PREBUILD_ONLY:-}" ]; then  # (and the C libraries bs_check.py compares with)
  cs_c_libraries "$MAIN" || rc=1
  exit $rc
fi
echo "== per arm 256 MiB digests and 1 GiB CTR keystream (ptx, SM clock sampled), then the defaults vs the C library"
# One process an arm: the library loads' codegen (the slow part) runs at once; the GPU work takes turns under one
# lock: each arm's 256 MiB digests (equal per cipher across schedules) and its timing.
aria_group() { local g=${1%f}; echo "$g"; }  # (aria128f's outputs must equal aria128's)
cs_time_arms "$R" aria_group ${MAIN//,/ } ${FORMER//,/ } ${ARIA//,/ } ${FRAMES//,/ } ${AES//,/ } ${A}_t128 || rc=1
echo "timing done: $(( $(date +%s) - t0 )) s"
python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 | tee "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "checks done: $(( $(date +%s) - t0 )) s"
[ -n "${ARIAROOF_QUICK:-}" ] && { echo "ariaroof: rc=$rc, $(( $(date +%s) - t0 )) s" | tee -a "$R/summary.md"; exit $rc; }
left() { [ $(( $(date +%s) - t0 )) -lt "$1" ]; }  # still under $1 seconds
if command -v ncu >/dev/null; then
  echo "== ncu warp states (one 64 MiB launch each, while under 330 s)"
  cs_ncu_init "$R"
  for arm in aria-default:aria128:$D ariaf-t128:aria128f:bs_rk-const_t128 aes-default:aes128:$D \
             ariaf-pair:aria128f:bs_rk-const_t256_sync-pair aria-t128:aria128:bs_rk-const_t128; do
    IFS=: read -r tag n s <<< "$arm"
    if left 330; then cs_prof "$R" "$tag" "$n" "$s"; else echo "(ncu $tag skipped: past 330 s)"; fi
  done
fi
if [ $(( $(date +%s) - t0 )) -lt 330 ]; then  # (the defaults' kernels are main's: these passed last round)
  T=tests/differential/test_cuda_gpu.py
  python3 -m pytest -q -n 3 -p no:cacheprovider "$T::test_ctr_carries_and_lengths[aes128-default]" \
    "$T::test_ctr_carries_and_lengths[aria128-default]" "$T::test_ctr_carries_and_lengths[pipo64_128-bs_t64]" \
    > "$R/tests.log" 2>&1 || rc=1
  tail -n 2 "$R/tests.log"
fi
echo "ariaroof: rc=$rc, $(( $(date +%s) - t0 )) s" | tee -a "$R/summary.md"
exit $rc
