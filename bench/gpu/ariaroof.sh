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
echo "== build: $JOBS"
python3 bench/gpu/build_jobs.py "$JOBS" "$(nproc)" > "$R/build.log" 2>&1 || rc=1
tail -n 1 "$R/build.log"
echo "build: $(( $(date +%s) - t0 )) s"
if [ -n "${ARIAROOF_PREBUILD_ONLY:-}" ]; then  # (and the C libraries bs_check.py compares with)
  python3 - ${MAIN//,/ } <<'PY' || rc=1
import os, sys
sys.path.insert(0, ".")
from cipherspec.registry import Registry
from driver.targets import make_cipher
reg = Registry(extra=[p for p in os.environ["CIPHERSPEC_BENCH_SPECS"].split(os.pathsep) if p])
for arm in sys.argv[1:]:
    make_cipher(reg, arm.split(":")[0], None, "c")
PY
  exit $rc
fi
echo "== per arm 256 MiB digests and 1 GiB CTR keystream (ptx, SM clock sampled), then the defaults vs the C library"
# One process an arm: the library loads' codegen (the slow part) runs at once; the GPU work takes turns under one
# lock: each arm's 256 MiB digests (equal per cipher across schedules) and its timing.
LOCK="$R/gpu.lock"; : > "$LOCK"
command -v flock >/dev/null || flock() { shift; "$@"; }  # (no util-linux: unlocked)
n=0; pids=()
for arm in ${MAIN//,/ } ${FORMER//,/ } ${ARIA//,/ } ${FRAMES//,/ } ${AES//,/ } ${A}_t128; do
  g=${arm%%:*}; g=${g%f}  # (aria128f's outputs must equal aria128's)
  python3 bench/gpu/clockwatch.py --lock "$LOCK" --same "$R/same.txt" --same-group "$g" --out "$R/clock-$n" \
    --reps 120 --batches 2 "$arm" > "$R/clock-$n.log" 2>&1 & pids+=($!); n=$((n + 1))
done
for p in "${pids[@]}"; do wait "$p" || rc=1; done
cat "$R"/clock-*.log >> "$R/clockwatch.log"; cat "$R/clockwatch.log"
echo "== 256 MiB keystream + 32 MiB XOR (a 32-bit counter wrap inside), per cipher: distinct digests (1 = all arms equal)"
awk '{ k = $1 SUBSEP $3 " " $4; if (!(k in seen)) { seen[k] = 1; n[$1]++ } a[$1] = a[$1] " " $2 }
     END { for (c in n) print c ": " n[c] (n[c] == 1 ? " (equal)" : " DIFFER") ":" a[c] }' \
  "$R/same.txt" | tee "$R/same.log"
grep -q DIFFER "$R/same.log" && rc=1
echo "timing done: $(( $(date +%s) - t0 )) s"
{
  echo "| arm | schedule | Gbps | SASS/block | % roof (boost) | SM MHz median (min) |"
  echo "|---|---|---:|---:|---:|---:|"
  python3 - "$R"/clock-*/clockwatch.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    arm = path.split("/")[-2].replace("clock-", "")  # (the arm's number in the order started)
    for r in json.load(open(path)):
        print(f"| {arm} | `{r['schedule']}` | {r['gbps']:,.0f} | {r['sass_per_block']:.1f} | {r['pct_roof_boost']:.1f}% | "
              f"{r.get('mhz_median', 0):.0f} ({r.get('mhz_min', 0):.0f}) |")
PY
} | tee "$R/summary.md"
python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 | tee "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "checks done: $(( $(date +%s) - t0 )) s"
[ -n "${ARIAROOF_QUICK:-}" ] && { echo "ariaroof: rc=$rc, $(( $(date +%s) - t0 )) s" | tee -a "$R/summary.md"; exit $rc; }
STALLS="sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$"
ICC=""
if command -v ncu >/dev/null; then  # the i-cache counters this ncu knows (names vary by version): added to each profile
  timeout 30 ncu --query-metrics > "$R/ncu-query.txt" 2>&1
  ICC=$(grep -oiE "^(sm|smsp)__[a-z0-9_]*(icc|icache|l0i|l1i)[a-z0-9_]*" "$R/ncu-query.txt" | grep -viE "rate|pct|ratio|per_" \
    | sort -u | head -12 | sed 's/$/.sum/' | paste -sd, -)
  echo "i-cache metrics found: ${ICC:-none}"
fi
ncu_run() {  # out file, metrics, CIPHER, SCHEDULE
  timeout 60 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --section LaunchStats --metrics "$2" --kernel-name "regex:_ctr_ptx$" --launch-count 1 \
    python3 bench/gpu/profile.py --launch "$3" "$4" > "$1" 2>&1
}
prof() {  # file tag, CIPHER, SCHEDULE
  local f="$R/ncu-$1.txt"
  ncu_run "$f" "$STALLS${ICC:+,$ICC}" "$2" "$3"
  if ! grep -q "Warp Cycles Per Issued" "$f" && [ -n "$ICC" ]; then  # ncu refused an i-cache counter: without them
    mv "$f" "$R/ncu-$1-refused.txt"
    ncu_run "$f" "$STALLS" "$2" "$3"
  fi
  grep -E "issue_stalled|Issued Warp|Eligible Warps|Active Warps|pipe_alu|Warp Cycles Per Issued|icc|icache|l0i|l1i" "$f" \
    | awk '$NF+0 >= 0.05 || !/issue_stalled/' | sed "s/^/ncu $1: /"
}
left() { [ $(( $(date +%s) - t0 )) -lt "$1" ]; }  # still under $1 seconds
if command -v ncu >/dev/null; then
  echo "== ncu warp states (one 64 MiB launch each, while under 330 s)"
  for arm in aria-default:aria128:$D ariaf-t128:aria128f:bs_rk-const_t128 aes-default:aes128:$D \
             ariaf-pair:aria128f:bs_rk-const_t256_sync-pair aria-t128:aria128:bs_rk-const_t128; do
    IFS=: read -r tag n s <<< "$arm"
    if left 330; then prof "$tag" "$n" "$s"; else echo "(ncu $tag skipped: past 330 s)"; fi
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
