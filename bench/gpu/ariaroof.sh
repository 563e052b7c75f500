#!/usr/bin/env bash
# Issue 25: the bitsliced CTR defaults (AES-128, ARIA-128, SM4, PRESENT-80) at their SASS roof (branch ariaroof).
# The mid-session round of this script (bench/results/ariaroof.md) found the clocks at 1,980 MHz, the round keys in
# shared memory slower, and ~0.5 warp-cycles of long-scoreboard stall per issued instruction: the keystream's
# 16-byte stores, 512 bytes apart across a warp, whose source registers the next trip waits to reuse.  The kernel
# now gives lane L of a warp blocks L, 32 + L, ... of the warp's 1,024 (each store instruction writes 512
# consecutive bytes); CIPHERSPEC_PTX_STORE=v1 (abswitch.py) builds the former order, the A/B baseline.
# On the GPU machine, from the repository root, in one call (~5-6 min building here):
#   1. builds the four defaults (AES-128, ARIA-128; SM4 and PRESENT-80 from examples/) and PIPO-64 `bs_t64` now,
#      the four defaults again with CIPHERSPEC_PTX_STORE=v1 (own cache), and ARIA at 256 threads a CTA with and
#      without CIPHERSPEC_PTX_LOCKSTEP=1 (the CTA's 8 warps open each trip at a barrier: two warps a scheduler walk
#      the same code together; ARIA's no-instruction stall was 0.46 a issue against AES's 0.16);
#   2. checks the new kernels against the C library (bs_check.py: CTR 4 MiB + 37 bytes across a 32-bit counter
#      wrap, ECB both ways) while the GPU CTR tests run (counters near 2^32/2^64/2^128, lengths; AES, ARIA, PIPO);
#   3. times 1 GiB device-resident CTR keystream (ptx flavour) per arm with the SM clock sampled (clockwatch.py):
#      now, v1, now again (AES, ARIA);
#   4. profiles ARIA-128's new kernel with Nsight Compute (stall reasons per issued instruction), one 64 MiB launch;
#   5. times the lockstep pair while the script is under 330 s.
# Results: $OUT/ariaroof/ (logs, clock*/clockwatch.json, ncu-*.txt, summary.md; the summary on stdout).
# To carry prebuilt caches:  CIPHERSPEC_CACHE=$PWD/.cs-cache ARIAROOF_PREBUILD_ONLY=1 bash bench/gpu/ariaroof.sh
#     run(command="bash bench/gpu/ariaroof.sh", carry=[".cs-cache", ".cs-cache-v1", ".cs-cache-lockstep"])
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
LOCK=aria128:bs_rk-const_t256
V1_CACHE=$CIPHERSPEC_CACHE-v1 LOCK_CACHE=$CIPHERSPEC_CACHE-lockstep  # (the same schedule names, other sources)
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
echo "== build: now $MAIN,pipo64_128:bs_t64,$LOCK; v1 $MAIN; lockstep $LOCK"
python3 bench/gpu/build_jobs.py "$MAIN,pipo64_128:bs_t64,$LOCK" "$W" > "$R/build.log" 2>&1 & b1=$!
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_STORE=v1 python3 bench/gpu/build_jobs.py "$MAIN" "$W" > "$R/build-v1.log" 2>&1 & b2=$!
CIPHERSPEC_CACHE=$LOCK_CACHE CIPHERSPEC_PTX_LOCKSTEP=1 python3 bench/gpu/build_jobs.py "$LOCK" "$W" > "$R/build-lockstep.log" 2>&1 & b3=$!
wait $b1 || rc=1; wait $b2 || rc=1; wait $b3 || rc=1
tail -qn 1 "$R/build.log" "$R/build-v1.log" "$R/build-lockstep.log"
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "${ARIAROOF_PREBUILD_ONLY:-}" ] && exit $rc
echo "== the new kernels vs the C library, and the GPU CTR tests beside them"
T=tests/differential/test_cuda_gpu.py
python3 -m pytest -q -n 3 -p no:cacheprovider "$T::test_ctr_carries_and_lengths[aes128-default]" \
  "$T::test_ctr_carries_and_lengths[aria128-default]" "$T::test_ctr_carries_and_lengths[pipo64_128-bs_t64]" \
  > "$R/tests.log" 2>&1 & tp=$!
python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 | tee "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$LOCK_CACHE CIPHERSPEC_PTX_LOCKSTEP=1 python3 bench/gpu/bs_check.py $LOCK 2>&1 | sed "s/^/lockstep: /" \
  | tee -a "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
wait $tp || rc=1
tail -n 2 "$R/tests.log"
echo "checks done: $(( $(date +%s) - t0 )) s"
cw() {  # out-dir label, then CIPHER:SCHEDULE ...; the environment as given
  local dir=$1; shift
  python3 bench/gpu/clockwatch.py --out "$R/$dir" --reps 120 --batches 2 "$@" 2>&1 | sed "s/^/$dir: /" \
    | tee -a "$R/clockwatch.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
}
echo "== 1 GiB CTR keystream (ptx), SM clock sampled: now, v1 (the former block order), now again"
cw clock-now ${MAIN//,/ }
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_STORE=v1 cw clock-v1 ${MAIN//,/ }
cw clock-now2 aria128:bs_rk-const_t128 aes128:bs_rk-const_t128
echo "timing done: $(( $(date +%s) - t0 )) s"
if command -v ncu >/dev/null; then
  echo "== ncu warp states: ARIA-128's new CTR kernel (one 64 MiB launch)"
  timeout 60 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section SourceCounters --metrics "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$" \
    --kernel-name "regex:_ctr_ptx$" --launch-count 1 python3 bench/gpu/profile.py --launch aria128 bs_rk-const_t128 \
    > "$R/ncu-aria128.txt" 2>&1
  grep -E "issue_stalled|Issued Warp|Eligible Warps|Achieved Active|pipe_alu|excessive" "$R/ncu-aria128.txt" \
    | awk '$NF+0 >= 0.05 || !/issue_stalled/' | sed "s/^/ncu: /"
fi
if [ $(( $(date +%s) - t0 )) -lt 330 ]; then
  echo "== lockstep: ARIA at 256 threads, without and with the trip barrier"
  cw clock-t256 $LOCK
  CIPHERSPEC_CACHE=$LOCK_CACHE CIPHERSPEC_PTX_LOCKSTEP=1 cw clock-lockstep $LOCK
else
  echo "(lockstep arms skipped: past 330 s)"
fi
{
  echo "| arm | schedule | Gbps | SASS/block | % roof (boost) | SM MHz median (min) |"
  echo "|---|---|---:|---:|---:|---:|"
  python3 - "$R"/clock-*/clockwatch.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    arm = path.split("/")[-2].replace("clock-", "")
    for r in json.load(open(path)):
        print(f"| {arm} | `{r['schedule']}` | {r['gbps']:,.0f} | {r['sass_per_block']:.1f} | {r['pct_roof_boost']:.1f}% | "
              f"{r.get('mhz_median', 0):.0f} ({r.get('mhz_min', 0):.0f}) |")
PY
  echo "ariaroof: rc=$rc, $(( $(date +%s) - t0 )) s"
} | tee "$R/summary.md"
exit $rc
