#!/usr/bin/env bash
# Issue 25's roof row: nearinv_u32_be (tests/conformance/sbox_inv.cs: 2 rounds of a random 8-bit S-box on big-endian
# u32 words, bitsliced) at 76.9% of its ALU roof on the H200 (t128, straight-line core); SM4's t256 default untimed.
# Branch nearinv: roundloop.py compares a commutative op's arguments by kind, so nearinv's two rounds (round 0's
# `x ^ k`, round 1's `k ^ x`) re-roll: its CTR core runs one round an iteration, twice (bench/results/nearinv.md).
# On the GPU machine, from the repository root, in one call (libraries built there, in parallel):
#   1. builds the arms below (nearinv: the new default = a round loop at t256, free-running since its body is under
#      lockstep.BODY_OPS; the loop at t128 and with the scheduler-pair barrier; the straight-line core (`unroll`) at
#      t128 = the measured 76.9% kernel, at t256 free and with the trip barrier = the former t256 default's kernel;
#      SM4: its default (t256) and t128), and the C libraries for the check;
#   2. one process an arm (clockwatch.py): the 256 MiB keystream + 32 MiB XOR digests (equal per cipher across its
#      arms) and 1 GiB device-resident CTR keystream timed in turn, SM clock sampled -> summary.md; then the defaults
#      against the C library (bs_check.py: CTR across a 32-bit counter wrap, ECB both ways);
#   3. ncu on nearinv's new default and its former t256 default (one 64 MiB launch each): issue slots, stall
#      reasons per issue, the i-cache counters this ncu lists, registers, occupancy;
#   4. bench.py rows (1 GiB keystream/XOR, both flavours, verified against the interpreter, % of the kernel's own
#      roof = min(SASS pipe roof, measured memory roof)): nearinv's and SM4's defaults, then the 11 other conformance
#      defaults whose CTR core the same change re-rolls (CELLS; found here by comparing roundloop.find with and
#      without it over every bitsliced spec: all 2-round cells; AES, ARIA, SM4, PRESENT-80, PIPO, HIGHT unchanged);
#   5. the GPU conformance tests of nearinv, SM4 and CELLS, while time is left.  Bound: 240 s (stages check the clock).
# bench/gpu/nearinv_cells.sh: CELLS' defaults against their former kernels (CIPHERSPEC_PTX_ROUNDS=v1), same run.
# Results: $OUT/nearinv/ (summary.md, same.log, check-c.log, ncu-*.txt, bench/, tests.log; the summary on stdout).
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
cs_gpu_start
R="$OUT/nearinv"; mkdir -p "$R"
SPECS=$(python3 bench/gpu/ct_any.py specs | paste -sd:)  # (the examples and the conformance specs)
export CIPHERSPEC_BENCH_SPECS=$SPECS
rc=0
t0=$(date +%s)
left() { [ $(( $(date +%s) - t0 )) -lt "$1" ]; }  # still under $1 seconds
N=nearinv_u32_be:bs_rk-const; D=bs_rk-const_sync-auto_t256  # (D: the bitsliced default)
MAIN=nearinv_u32_be:$D,sm4:$D
CELLS="bitlinear_perm bytesub_u16_le bytesub_u32_le bytesub_u32_be invmix_u32_le invsub_u32_be invsub_u8 sbox4_u8 sbox4_u16"
CELLS="$CELLS sbox4_u32 sbox8_u8"
CELLD=$(for c in $CELLS; do printf "%s:$D," "$c"; done | sed 's/,$//')
ARMS="$MAIN,${N}_t128,${N}_t256_sync-pair,${N}_t128_unroll,${N}_t256_unroll,${N}_t256_unroll_sync-trip,sm4:bs_rk-const_t128"
python3 - "$MAIN,$CELLD" <<'PY' || { echo "the defaults are not the schedules this script names: update MAIN"; rc=1; }
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
echo "== build: $ARMS"
python3 bench/gpu/build_jobs.py "$ARMS,$CELLD" "$(nproc)" > "$R/build.log" 2>&1 || rc=1
tail -n 1 "$R/build.log"
python3 - ${MAIN//,/ } <<'PY' >> "$R/build.log" 2>&1 || rc=1
import os, sys
sys.path.insert(0, ".")
from cipherspec.registry import Registry
from driver.targets import make_cipher
reg = Registry(extra=[p for p in os.environ["CIPHERSPEC_BENCH_SPECS"].split(os.pathsep) if p])
for arm in sys.argv[1:]:
    make_cipher(reg, arm.split(":")[0], None, "c")  # (the C library bs_check.py compares with)
PY
echo "build: $(( $(date +%s) - t0 )) s"
echo "== per arm 256 MiB digests and 1 GiB CTR keystream (ptx, SM clock sampled), then the defaults vs the C library"
LOCK="$R/gpu.lock"; : > "$LOCK"
command -v flock >/dev/null || flock() { shift; "$@"; }
n=0; pids=()
for arm in ${ARMS//,/ } nearinv_u32_be:$D; do  # (the default again last: drift)
  python3 bench/gpu/clockwatch.py --lock "$LOCK" --same "$R/same.txt" --out "$R/clock-$n" \
    --reps 100 --batches 2 "$arm" > "$R/clock-$n.log" 2>&1 & pids+=($!); n=$((n + 1))
done
for p in "${pids[@]}"; do wait "$p" || rc=1; done
cat "$R"/clock-*.log > "$R/clockwatch.log"; cat "$R/clockwatch.log"
echo "== 256 MiB keystream + 32 MiB XOR (a 32-bit counter wrap inside), per cipher: distinct digests (1 = all arms equal)"
awk '{ k = $1 SUBSEP $3 " " $4; if (!(k in seen)) { seen[k] = 1; n[$1]++ } a[$1] = a[$1] " " $2 }
     END { for (c in n) print c ": " n[c] (n[c] == 1 ? " (equal)" : " DIFFER") ":" a[c] }' \
  "$R/same.txt" | tee "$R/same.log"
grep -q DIFFER "$R/same.log" && rc=1
{
  echo "| arm | schedule | Gbps | SASS/block | % roof (boost) | SM MHz median (min) |"
  echo "|---|---|---:|---:|---:|---:|"
  python3 - "$R"/clock-*/clockwatch.json <<'PY'
import json, sys
for path in sorted(sys.argv[1:], key=lambda p: int(p.split("/")[-2].replace("clock-", ""))):
    arm = path.split("/")[-2].replace("clock-", "")
    for r in json.load(open(path)):
        print(f"| {arm} | `{r['schedule']}` | {r['gbps']:,.0f} | {r['sass_per_block']:.1f} | {r['pct_roof_boost']:.1f}% | "
              f"{r.get('mhz_median', 0):.0f} ({r.get('mhz_min', 0):.0f}) |")
PY
} | tee "$R/summary.md"
python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 | tee "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "timing and checks: $(( $(date +%s) - t0 )) s"
STALLS="sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active"
STALLS="$STALLS,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$"
ICC=""
if command -v ncu >/dev/null; then  # the i-cache counters this ncu knows (names vary by version)
  timeout 20 ncu --query-metrics > "$R/ncu-query.txt" 2>&1
  ICC=$(grep -oiE "^(sm|smsp)__[a-z0-9_]*(icc|icache|l0i|l1i)[a-z0-9_]*" "$R/ncu-query.txt" | grep -viE "rate|pct|ratio|per_" \
    | sort -u | head -12 | sed 's/$/.sum/' | paste -sd, -)
  echo "i-cache metrics found: ${ICC:-none}"
fi
ncu_run() {  # out file, metrics, CIPHER, SCHEDULE
  timeout 45 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --section LaunchStats --section Occupancy --metrics "$2" --kernel-name "regex:_ctr_ptx$" --launch-count 1 \
    python3 bench/gpu/profile.py --launch "$3" "$4" > "$1" 2>&1
}
prof() {  # file tag, CIPHER, SCHEDULE
  local f="$R/ncu-$1.txt"
  ncu_run "$f" "$STALLS${ICC:+,$ICC}" "$2" "$3"
  if ! grep -q "Warp Cycles Per Issued" "$f" && [ -n "$ICC" ]; then  # ncu refused an i-cache counter: without them
    mv "$f" "$R/ncu-$1-refused.txt"
    ncu_run "$f" "$STALLS" "$2" "$3"
  fi
  grep -E "issue_stalled|issue_active|Issued Warp|Eligible Warps|Active Warps|pipe_alu|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|icc|icache|l0i|l1i" "$f" \
    | awk '$NF+0 >= 0.05 || !/issue_stalled/' | sed "s/^/ncu $1: /"
}
profiles() {  # tags, while under $1 s
  local bound=$1 arm tag n s; shift
  command -v ncu >/dev/null || return 0
  for arm in "$@"; do
    IFS=: read -r tag n s <<< "$arm"
    if left "$bound"; then prof "$tag" "$n" "$s"; else echo "(ncu $tag skipped: past $bound s)"; fi
  done
}
echo "== ncu on nearinv's default (one 64 MiB launch)"
profiles 170 default:nearinv_u32_be:$D
if left 200; then
  echo "== bench.py rows: the defaults of nearinv, SM4 and CELLS (one process; results.json after each row)"
  timeout $(( 228 - $(date +%s) + t0 )) python3 bench/gpu/bench.py --out "$R/bench" --schedules "$MAIN,$CELLD" \
    --reps 4 --batches 3 --workers 4 --stage2 0 --tune 0 > "$R/bench.log" 2>&1 || rc=1
  python3 bench/gpu/ct_any.py report "$R/bench" | tee "$R/bench.md"
fi
echo "== ncu on the former t256 default (straight-line, trip barrier)"
profiles 215 former-t256:nearinv_u32_be:bs_rk-const_t256_unroll_sync-trip
if left 220; then
  T=tests/differential/test_conformance_matrix_gpu.py
  timeout $(( 238 - $(date +%s) + t0 )) python3 -m pytest -q -p no:cacheprovider "$T::test_on_the_gpu[nearinv_u32_be]" \
    "$T::test_on_the_gpu[sm4]" $(for c in $CELLS; do printf "$T::test_on_the_gpu[%s] " "$c"; done) \
    > "$R/tests.log" 2>&1 || rc=1
  tail -n 2 "$R/tests.log"
fi
echo "nearinv: rc=$rc, $(( $(date +%s) - t0 )) s" | tee -a "$R/summary.md"
exit $rc
