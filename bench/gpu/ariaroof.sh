#!/usr/bin/env bash
# Issue 25: why the bitsliced CTR defaults (AES-128, ARIA-128, SM4) reach ~79% of their SASS roof and PRESENT-80 89%,
# and the round keys in shared memory as the A/B (branch ariaroof).  On the GPU machine, from the repository root,
# in one call (~7 min building here, ~5 min with the caches carried):
#   1. builds the four constant-time defaults (AES-128, ARIA-128; SM4 and PRESENT-80 from examples/) and the
#      variants in $VARIANTS (default: AES/ARIA/SM4 with `bs_rk-shared_t128`, the round-key planes staged in shared
#      memory and read by LDS.128 in the round loop instead of LDC.64 from the constant bank; ARIA at 256 threads a
#      CTA), and $LOCK (ARIA at 256 threads) again with CIPHERSPEC_PTX_LOCKSTEP=1: one CTA an SM whose 8 warps
#      open every trip at a barrier, so the two warps of each scheduler walk the same code and key words together
#      (instruction and constant caches shared; abswitch.py);
#   2. checks the variants and the lockstep build against the C library (bs_check.py: CTR across a 32-bit counter
#      wrap with a partial last block, ECB both ways; the defaults are main's kernels, checked in earlier rounds);
#   3. times 1 GiB device-resident CTR keystream (ptx flavour) per arm with the SM clock and board power sampled
#      while it runs (clockwatch.py: % of the roof at the boost clock and at the clock measured): defaults, variants,
#      lockstep, ARIA's default again;
#   4. profiles ARIA-128's default with Nsight Compute at the real clock: warp states (the stall reasons, per issued
#      instruction), scheduler statistics and the stall sampling per instruction (SourceCounters), one 64 MiB launch;
#   5. runs the GPU CTR tests of the AES/ARIA defaults (carries near 2^32/2^64/2^128, lengths);
#   6. the same profile of ARIA's rk-shared variant and AES-128's default, while the script is under 420 s.
# Results: $OUT/ariaroof/ (logs, clock/clockwatch.json and the clock samples, ncu-*.txt, summary.md; the summary on stdout).
# Carry a prebuilt cache (optional):  CIPHERSPEC_CACHE=$PWD/.cs-cache ARIAROOF_PREBUILD_ONLY=1 bash bench/gpu/ariaroof.sh
#     run(command="bash bench/gpu/ariaroof.sh", carry=[".cs-cache", ".cs-cache-lockstep"])
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
SPECS=examples/ciphers/sm4.cs:examples/ciphers/present.cs
export CIPHERSPEC_BENCH_SPECS=$SPECS
if [ -z "${ARIAROOF_PREBUILD_ONLY:-}" ]; then cs_gpu_start; else OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"; fi
R="$OUT/ariaroof"; mkdir -p "$R"
rc=0
t0=$(date +%s)
MAIN=aes128:bs_rk-const_t128,aria128:bs_rk-const_t128,sm4:bs_rk-const_t128,present80:bs_rk-shared_t128
VARIANTS=${VARIANTS:-aes128:bs_rk-shared_t128,aria128:bs_rk-shared_t128,sm4:bs_rk-shared_t128,aria128:bs_rk-const_t256}
LOCK=${LOCK:-aria128:bs_rk-const_t256}  # also built with CIPHERSPEC_PTX_LOCKSTEP=1 (abswitch.py), into its own cache
LOCK_CACHE=$CIPHERSPEC_CACHE-lockstep  # (the same schedule names, other sources)
python3 - "$MAIN" <<'PY' || { echo "the defaults are not the schedules this script names: update MAIN"; rc=1; }
import sys
sys.path.insert(0, "bench/gpu")
from bench import registry
from generator.ptx.build import schedule_for
reg = registry()
for arm in sys.argv[1].split(","):
    n, s = arm.split(":", 1)
    got = schedule_for(reg.module(n), None).name(reg.module(n)).split("_cuda_ctr_", 1)[1]
    assert got == s, (n, got, s)
PY
W=$(nproc)
echo "== build: $MAIN,$VARIANTS; lockstep: $LOCK"
python3 bench/gpu/build_jobs.py "$MAIN,$VARIANTS" "$W" > "$R/build.log" 2>&1 & b1=$!
CIPHERSPEC_CACHE=$LOCK_CACHE CIPHERSPEC_PTX_LOCKSTEP=1 python3 bench/gpu/build_jobs.py "$LOCK" "$W" > "$R/build-lockstep.log" 2>&1 & b2=$!
wait $b1 || rc=1; wait $b2 || rc=1
tail -n 2 "$R/build.log" "$R/build-lockstep.log"
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "${ARIAROOF_PREBUILD_ONLY:-}" ] && exit $rc
echo "== the variants vs the C library (CTR 4 MiB + 37 bytes across a 32-bit wrap, ECB both ways; the defaults are main's)"
python3 bench/gpu/bs_check.py ${VARIANTS//,/ } 2>&1 | tee "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$LOCK_CACHE CIPHERSPEC_PTX_LOCKSTEP=1 python3 bench/gpu/bs_check.py ${LOCK//,/ } 2>&1 | sed "s/^/lockstep: /" \
  | tee -a "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "check done: $(( $(date +%s) - t0 )) s"
echo "== 1 GiB CTR keystream (ptx), SM clock and power sampled: defaults, variants, lockstep, ARIA's default again"
python3 bench/gpu/clockwatch.py --out "$R/clock" --reps 120 --batches 2 ${MAIN//,/ } ${VARIANTS//,/ } \
  2>&1 | tee "$R/clockwatch.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$LOCK_CACHE CIPHERSPEC_PTX_LOCKSTEP=1 python3 bench/gpu/clockwatch.py --out "$R/clock-lockstep" --reps 120 \
  --batches 2 ${LOCK//,/ } 2>&1 | sed "s/^/lockstep: /" | tee -a "$R/clockwatch.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
python3 bench/gpu/clockwatch.py --out "$R/clock-again" --reps 120 --batches 2 aria128:bs_rk-const_t128 2>&1 \
  | sed "s/^/again: /" | tee -a "$R/clockwatch.log"
echo "clockwatch done: $(( $(date +%s) - t0 )) s"
ncu_arm() {  # CIPHER:SCHEDULE -> $R/ncu-<tag>.txt: warp states (stall reasons), scheduler, stall sampling per instruction
  local s=$1 c=${1%%:*} p=${1#*:}; local tag=$c-${p//[^a-z0-9]/}
  command -v ncu >/dev/null || { echo "(no ncu)"; return; }
  echo "== ncu warp states: $s (one 64 MiB launch)"
  ncu_one() {
    timeout 60 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section Occupancy \
      --section LaunchStats --section SourceCounters "$@" \
      --kernel-name "regex:_ctr_ptx$" --launch-count 1 python3 bench/gpu/profile.py --launch "$c" "$p" > "$R/ncu-$tag.txt" 2>&1
  }
  ncu_one --metrics "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$"
  grep -q "==ERROR==" "$R/ncu-$tag.txt" && { mv "$R/ncu-$tag.txt" "$R/ncu-$tag-metrics-error.txt"; ncu_one --page raw; }
  grep -E "issue_stalled|Warp Cycles|Issued Warp|Eligible|Active Warps|Achieved Occupancy|pipe_alu|cycles_elapsed" \
    "$R/ncu-$tag.txt" | awk '$NF+0 >= 0.05 || !/issue_stalled/' | head -40 | sed "s/^/$tag: /"
}
ncu_arm aria128:bs_rk-const_t128
echo "== GPU tests: CTR carries, wraps and lengths (AES/ARIA defaults)"
T=tests/differential/test_cuda_gpu.py
python3 -m pytest -q -n 2 -p no:cacheprovider "$T::test_ctr_carries_and_lengths[aes128-default]" \
  "$T::test_ctr_carries_and_lengths[aria128-default]" 2>&1 | tee "$R/tests.log" | tail -3
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "tests done: $(( $(date +%s) - t0 )) s"
for s in aria128:bs_rk-shared_t128 aes128:bs_rk-const_t128; do
  if [ $(( $(date +%s) - t0 )) -lt 420 ]; then ncu_arm $s; else echo "(ncu of $s skipped: past 420 s)"; fi
done
{
  echo "| arm | schedule | Gbps | SASS/block | % roof at boost | SM MHz median (min) | W | reasons | % roof at that clock |"
  echo "|---|---|---:|---:|---:|---:|---:|---|---:|"
  python3 - "$R"/clock*/clockwatch.json <<'PY'
import json, sys
for path in sys.argv[1:]:
  arm = path.split("/")[-2].replace("clock", "").lstrip("-")
  for r in json.load(open(path)):
    print(f"| {arm + ' ' if arm else ''}{r['arm']} | `{r['schedule']}` | {r['gbps']:,.0f} | {r['sass_per_block']:.1f} | {r['pct_roof_boost']:.1f}% | "
          f"{r.get('mhz_median', 0):.0f} ({r.get('mhz_min', 0):.0f}) | {r.get('watts_median', 0):.0f} | {r.get('reasons')} | "
          f"{r['pct_roof_at_clock']:.1f}% |")
PY
  echo "ariaroof: rc=$rc, $(( $(date +%s) - t0 )) s"
} | tee "$R/summary.md"
exit $rc
