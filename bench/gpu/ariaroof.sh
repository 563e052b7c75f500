#!/usr/bin/env bash
# Issue 25: the bitsliced CTR defaults at their SASS roof; ARIA-128 at 3.0 Tbps and 85% (branch ariaroof2).
# After the coalesced block order ARIA-128 ran 2,932 Gbps = 82.7% of its roof (AES 85.0%, SM4 87.1%, PRESENT 95.1%).
# ncu (before that fix) put 0.46 warp-cycles per issued instruction on "no instruction" for ARIA against 0.16 for
# AES: ARIA's round loop is 3,369 SASS instructions (~54 KB; AES 1,571), and the two warps of a scheduler (one from
# each of the SM's two 128-thread CTAs) run it at different places.  The A/B here: one 256-thread CTA an SM
# (t256, the same 255 registers) with the CTR kernel's warps kept in step (generator/ptx/lockstep.py):
#   sync-trip   every thread runs its CTA's trips, each opened at __syncthreads()
#   sync-round  and __syncthreads() at the top of each round-loop iteration
#   sync-pair   and there bar.sync 1 + warp % 4, 64: only the two warps of a scheduler meet
# On the GPU machine, from the repository root, in one call (~5 min, the libraries built here on 16 cores):
#   1. builds AES-128's and ARIA-128's defaults (t128), PIPO-64 `bs_t64` (the GPU tests), ARIA-128 at t256 free and
#      with each sync, AES-128 at t256 free and sync-pair (one cache: the schedule names differ); ARIAROOF_ALL=1
#      adds SM4's and PRESENT-80's defaults (build, check, time);
#   2. checks every arm against the C library (bs_check.py: CTR 4 MiB + 37 bytes across a 32-bit counter wrap,
#      ECB both ways), every t256 arm against its cipher's default over 256 MiB (ctr_same.py: many grid-stride
#      trips, keystream and XOR), and runs the GPU CTR tests of AES/ARIA/PIPO beside them;
#   3. times 1 GiB device-resident CTR keystream (ptx flavour, SM clock sampled, clockwatch.py): ARIA's default
#      and its four t256 arms, AES's default and its two; the table goes to summary.md at once;
#   4. Nsight Compute while under 270 s (one 64 MiB launch each; warp states, scheduler and instruction stats):
#      ARIA default, ARIA sync-pair, AES default, ARIA t256; then the i-cache metrics this ncu knows
#      (ncu --query-metrics) on ARIA default and sync-pair while under 290 / 310 s.
# Results: $OUT/ariaroof/ (logs, clock-*/clockwatch.json, ncu-*.txt, summary.md; the summary on stdout).
# To carry prebuilt libraries:  CIPHERSPEC_CACHE=$PWD/.cs-cache ARIAROOF_PREBUILD_ONLY=1 bash bench/gpu/ariaroof.sh
#     run(command="bash bench/gpu/ariaroof.sh", carry=[".cs-cache"])
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
SPECS=examples/ciphers/sm4.cs:examples/ciphers/present.cs
export CIPHERSPEC_BENCH_SPECS=$SPECS
if [ -z "${ARIAROOF_PREBUILD_ONLY:-}" ]; then cs_gpu_start; else OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"; fi
R="$OUT/ariaroof"; mkdir -p "$R"
rc=0
t0=$(date +%s)
A=aria128:bs_rk-const; E=aes128:bs_rk-const
MAIN=${E}_t128,${A}_t128
[ -n "${ARIAROOF_ALL:-}" ] && MAIN=$MAIN,sm4:bs_rk-const_t128,present80:bs_rk-shared_t128  # (87.1% / 95.1% last round)
ARIA=${A}_t256,${A}_t256_sync-trip,${A}_t256_sync-round,${A}_t256_sync-pair
AES=${E}_t256,${E}_t256_sync-pair
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
echo "== build: $MAIN,pipo64_128:bs_t64,$ARIA,$AES"
python3 bench/gpu/build_jobs.py "$MAIN,pipo64_128:bs_t64,$ARIA,$AES" "$(nproc)" > "$R/build.log" 2>&1 || rc=1
tail -n 1 "$R/build.log"
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "${ARIAROOF_PREBUILD_ONLY:-}" ] && exit $rc
echo "== every arm vs the C library; the t256 arms vs the default over 256 MiB; the GPU CTR tests beside them"
T=tests/differential/test_cuda_gpu.py
python3 -m pytest -q -n 3 -p no:cacheprovider "$T::test_ctr_carries_and_lengths[aes128-default]" \
  "$T::test_ctr_carries_and_lengths[aria128-default]" "$T::test_ctr_carries_and_lengths[pipo64_128-bs_t64]" \
  > "$R/tests.log" 2>&1 & tp=$!
pids=()
for arms in "${MAIN//,/ }" "${ARIA//,/ }" "${AES//,/ }"; do  # (three processes: the check's codegen is the slow part)
  python3 bench/gpu/bs_check.py $arms > "$R/check-c-$(( ${#pids[@]} )).log" 2>&1 & pids+=($!)
done
python3 bench/gpu/ctr_same.py ${A}_t128 ${ARIA//,/ } > "$R/same-aria.log" 2>&1 & pids+=($!)
python3 bench/gpu/ctr_same.py ${E}_t128 ${AES//,/ } > "$R/same-aes.log" 2>&1 & pids+=($!)
for p in "${pids[@]}"; do wait "$p" || rc=1; done
cat "$R"/check-c-*.log > "$R/check-c.log"; cat "$R/check-c.log"
cat "$R"/same-*.log | sed "s/^/256 MiB: /"
wait $tp || rc=1
tail -n 2 "$R/tests.log"
echo "checks done: $(( $(date +%s) - t0 )) s"
cw() {  # out-dir, then CIPHER:SCHEDULE ...
  local dir=$1; shift
  python3 bench/gpu/clockwatch.py --out "$R/$dir" --reps 120 --batches 2 "$@" 2>&1 | sed "s/^/$dir: /" \
    | tee -a "$R/clockwatch.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
}
echo "== 1 GiB CTR keystream (ptx), SM clock sampled"
cw clock-aria ${A}_t128 ${ARIA//,/ }
cw clock-aes ${E}_t128 ${AES//,/ }
[ -n "${ARIAROOF_ALL:-}" ] && cw clock-other sm4:bs_rk-const_t128 present80:bs_rk-shared_t128
echo "timing done: $(( $(date +%s) - t0 )) s"
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
} | tee "$R/summary.md"
STALLS="sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$"
prof() {  # file tag, CIPHER, SCHEDULE
  timeout 60 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --section LaunchStats --metrics "$STALLS" --kernel-name "regex:_ctr_ptx$" --launch-count 1 \
    python3 bench/gpu/profile.py --launch "$2" "$3" > "$R/ncu-$1.txt" 2>&1
  grep -E "issue_stalled|Issued Warp|Eligible Warps|Active Warps|pipe_alu|Warp Cycles Per Issued" "$R/ncu-$1.txt" \
    | awk '$NF+0 >= 0.05 || !/issue_stalled/' | sed "s/^/ncu $1: /"
}
left() { [ $(( $(date +%s) - t0 )) -lt "$1" ]; }  # still under $1 seconds
if command -v ncu >/dev/null; then
  echo "== ncu warp states (one 64 MiB launch each)"
  for arm in aria-t128:aria128:bs_rk-const_t128 aria-pair:aria128:bs_rk-const_t256_sync-pair \
             aes-t128:aes128:bs_rk-const_t128 aria-t256:aria128:bs_rk-const_t256; do
    IFS=: read -r tag n s <<< "$arm"
    if left 270; then prof "$tag" "$n" "$s"; else echo "(ncu $tag skipped: past 270 s)"; fi
  done
  if left 290; then
    timeout 20 ncu --query-metrics > "$R/ncu-query.txt" 2>&1
    ICC=$(grep -oiE "^(sm|smsp)__[a-z0-9_]*(icc|icache|l0i|l1i|imc)[a-z0-9_]*" "$R/ncu-query.txt" | sort -u | head -12 \
      | sed 's/$/.sum/' | paste -sd, -)
    echo "i-cache metrics found: ${ICC:-none}"
    for arm in aria-t128:aria128:bs_rk-const_t128 aria-pair:aria128:bs_rk-const_t256_sync-pair; do
      IFS=: read -r tag n s <<< "$arm"
      [ -n "$ICC" ] && left 310 || continue
      timeout 40 ncu --clock-control none --metrics "$ICC,smsp__inst_executed.sum" --kernel-name "regex:_ctr_ptx$" \
        --launch-count 1 python3 bench/gpu/profile.py --launch "$n" "$s" > "$R/ncu-icc-$tag.txt" 2>&1
      grep -E "__(icc|icache|l0i|l1i|imc)|inst_executed" "$R/ncu-icc-$tag.txt" | sed "s/^/ncu-icc $tag: /"
    done
  fi
fi
echo "ariaroof: rc=$rc, $(( $(date +%s) - t0 )) s" | tee -a "$R/summary.md"
exit $rc
