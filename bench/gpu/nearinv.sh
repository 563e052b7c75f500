#!/usr/bin/env bash
# Issue 25's roof row: nearinv_u32_be (tests/conformance/sbox_inv.cs: 2 rounds of a random 8-bit S-box on big-endian
# u32 words, bitsliced) at 76.9% of its ALU roof on the H200 (t128, straight-line core); SM4's t256 default untimed.
# Branch nearinv: roundloop.py compares a commutative op's arguments by kind where the rounds as written differ, so
# nearinv's two rounds (round 0's `x ^ k`, round 1's `k ^ x`) re-roll: its CTR core runs one round an iteration,
# twice.  The mid-session round (bench/results/nearinv.md) measured the new default at 17,223 / 17,250 Gbps = 90.4 /
# 90.5% of its roof (the former t256 default 76.4%, every straight-line arm 76-78%, the same loop at t128 78.5%).
# On the GPU machine, from the repository root, in one call (libraries built there, in parallel):
#   1. builds nearinv's default (the loop at t256, free-running: its body is under lockstep.BODY_OPS) and the same loop
#      at t128, SM4's default (t256) and t128, the CELLS' defaults (4.) and the C libraries for the check;
#      NEARINV_ALL=1 adds the mid-session round's other arms: the loop with the scheduler-pair barrier and the
#      straight-line core (`unroll`: t128 = the measured 76.9% kernel, t256 free, t256 with the trip barrier = the
#      former default's kernel), ~140 s more of building on the device;
#   2. one process an arm (clockwatch.py): the 256 MiB keystream + 32 MiB XOR digests (equal per cipher across its
#      arms) and 1 GiB device-resident CTR keystream timed in turn, SM clock sampled -> summary.md; then the defaults
#      against the C library (bs_check.py: CTR across a 32-bit counter wrap, ECB both ways);
#   3. ncu on nearinv's default and the same loop at t128 (one 64 MiB launch each): issue slots, stall reasons per
#      issue, the i-cache counters this ncu lists, registers, occupancy (NEARINV_ALL: also the former default);
#   4. bench.py rows (1 GiB keystream/XOR, both flavours, verified against the interpreter, % of the kernel's own
#      roof = min(SASS pipe roof, measured memory roof)): nearinv's and SM4's defaults, then the 10 other conformance
#      defaults whose CTR core the same change re-rolls (CELLS, the 2-round cells with S-boxes, all memory-bound
#      before; found by comparing the loops with and without it over every bitsliced spec: AES, ARIA, SM4,
#      PRESENT-80, PIPO, HIGHT and bitlinear's CTR cores unchanged);
#   5. the GPU conformance tests of nearinv, SM4 and CELLS, while time is left.  Bound: 240 s (stages check the clock).
# bench/gpu/nearinv_cells.sh: CELLS' defaults against their former kernels (CIPHERSPEC_PTX_ROUNDS=v1), same run.
# Results: $OUT/nearinv/ (summary.md, same.log, check-c.log, ncu-*.txt, bench/, tests.log; the summary on stdout).
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
. bench/gpu/arms.sh
cs_gpu_start
R="$OUT/nearinv"; mkdir -p "$R"
SPECS=$(python3 bench/gpu/ct_any.py specs | paste -sd:)  # (the examples and the conformance specs)
export CIPHERSPEC_BENCH_SPECS=$SPECS
rc=0
t0=$(date +%s)
left() { [ $(( $(date +%s) - t0 )) -lt "$1" ]; }  # still under $1 seconds
N=nearinv_u32_be:bs_rk-const; D=bs_rk-const_sync-auto_t256  # (D: the bitsliced default)
MAIN=nearinv_u32_be:$D,sm4:$D
CELLS="bytesub_u16_le bytesub_u32_le bytesub_u32_be invmix_u32_le invsub_u32_be invsub_u8 sbox4_u8 sbox4_u16"
CELLS="$CELLS sbox4_u32 sbox8_u8"
CELLD=$(for c in $CELLS; do printf "%s:$D," "$c"; done | sed 's/,$//')
ARMS="$MAIN,${N}_t128,sm4:bs_rk-const_t128"  # (the same loop at t128: 78.5% in the mid-session round; ncu on both)
if [ -n "${NEARINV_ALL:-}" ]; then  # the mid-session round's arms: the straight-line cores take ~140 s to build
  ARMS="$ARMS,${N}_t256_sync-pair,${N}_t128_unroll,${N}_t256_unroll,${N}_t256_unroll_sync-trip"
fi
cs_defaults_are "$MAIN,$CELLD" || { echo "the defaults are not the schedules this script names: update MAIN"; rc=1; }
echo "== build: $ARMS"
python3 bench/gpu/build_jobs.py "$ARMS,$CELLD" "$(nproc)" > "$R/build.log" 2>&1 || rc=1
tail -n 1 "$R/build.log"
cs_c_libraries "$MAIN" >> "$R/build.log" 2>&1 || rc=1  # (the C libraries bs_check.py compares with)
echo "build: $(( $(date +%s) - t0 )) s"
echo "== per arm 256 MiB digests and 1 GiB CTR keystream (ptx, SM clock sampled), then the defaults vs the C library"
cs_time_arms "$R" cs_group_self ${ARMS//,/ } nearinv_u32_be:$D || rc=1  # (the default again last: drift)
python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 | tee "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "timing and checks: $(( $(date +%s) - t0 )) s"
cs_ncu_init "$R"
profiles() {  # tags, while under $1 s
  local bound=$1 arm tag n s; shift
  command -v ncu >/dev/null || return 0
  for arm in "$@"; do
    IFS=: read -r tag n s <<< "$arm"
    if left "$bound"; then cs_prof "$R" "$tag" "$n" "$s"; else echo "(ncu $tag skipped: past $bound s)"; fi
  done
}
echo "== ncu on nearinv's default and the same loop at t128 (one 64 MiB launch each)"
profiles 150 default:nearinv_u32_be:$D loop-t128:nearinv_u32_be:${N#*:}_t128
if left 200; then
  echo "== bench.py rows: the defaults of nearinv, SM4 and CELLS (one process; results.json after each row)"
  timeout $(( 228 - $(date +%s) + t0 )) python3 bench/gpu/bench.py --out "$R/bench" --schedules "$MAIN,$CELLD" \
    --reps 4 --batches 3 --workers 4 --stage2 0 --tune 0 > "$R/bench.log" 2>&1 || rc=1
  python3 bench/gpu/ct_any.py report "$R/bench" | tee "$R/bench.md"
fi
if [ -n "${NEARINV_ALL:-}" ]; then
  echo "== ncu on the former t256 default (straight-line, trip barrier)"
  profiles 215 former-t256:nearinv_u32_be:bs_rk-const_t256_unroll_sync-trip
fi
if left 220; then
  T=tests/differential/test_conformance_matrix_gpu.py
  timeout $(( 238 - $(date +%s) + t0 )) python3 -m pytest -q -p no:cacheprovider "$T::test_on_the_gpu[nearinv_u32_be]" \
    "$T::test_on_the_gpu[sm4]" $(for c in $CELLS; do printf "$T::test_on_the_gpu[%s] " "$c"; done) \
    > "$R/tests.log" 2>&1 || rc=1
  tail -n 2 "$R/tests.log"
fi
echo "nearinv: rc=$rc, $(( $(date +%s) - t0 )) s" | tee -a "$R/summary.md"
exit $rc
