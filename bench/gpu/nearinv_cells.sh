#!/usr/bin/env bash
# Branch nearinv's change on the other cells it touches: roundloop.py compares a commutative op's arguments by kind,
# so every 2-round conformance spec's bitsliced CTR core with S-boxes now runs as a loop of 2 (nearinv_u32_be's, and
# 10 more whose defaults were memory-bound on the former kernels).  This times, on one GPU, each of
# those defaults built now and built as before (CIPHERSPEC_PTX_ROUNDS=v1, abswitch.former_rounds; its own library
# cache: same names, other sources): bench.py rows (1 GiB CTR keystream and XOR, both flavours, verified against the
# interpreter, % of the kernel's own roof = min(SASS pipe roof, measured memory roof)), then their GPU conformance
# tests.  From the repository root on the GPU machine; ~4 min with the libraries built there.
# Results: $OUT/nearinv-cells/{now,former}/ (results.json, bench.md) and tests.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
cs_gpu_start
R="$OUT/nearinv-cells"; mkdir -p "$R"
SPECS=$(python3 bench/gpu/ct_any.py specs | paste -sd:)
export CIPHERSPEC_BENCH_SPECS=$SPECS
rc=0
t0=$(date +%s)
D=bs_rk-const_sync-auto_t256
CELLS="nearinv_u32_be bytesub_u16_le bytesub_u32_le bytesub_u32_be invmix_u32_le invsub_u32_be invsub_u8"
CELLS="$CELLS sbox4_u8 sbox4_u16 sbox4_u32 sbox8_u8"
CELLD=$(for c in $CELLS; do printf "%s:$D," "$c"; done | sed 's/,$//')
for arm in now former; do
  if [ $arm = former ]; then export CIPHERSPEC_PTX_ROUNDS=v1 CIPHERSPEC_CACHE=$CIPHERSPEC_CACHE-former; fi
  echo "== $arm: bench.py over $CELLD"
  python3 bench/gpu/bench.py --out "$R/$arm" --schedules "$CELLD" --reps 4 --batches 3 --workers "$(nproc)" \
    --stage2 0 --tune 0 > "$R/$arm.log" 2>&1 || rc=1
  python3 bench/gpu/ct_any.py report "$R/$arm" | tee "$R/$arm/bench.md"
  echo "$arm: $(( $(date +%s) - t0 )) s"
done
unset CIPHERSPEC_PTX_ROUNDS
export CIPHERSPEC_CACHE=${CIPHERSPEC_CACHE%-former}
T=tests/differential/test_conformance_matrix_gpu.py
python3 -m pytest -q -p no:cacheprovider $(for c in $CELLS; do printf "$T::test_on_the_gpu[%s] " "$c"; done) \
  > "$R/tests.log" 2>&1 || rc=1
tail -n 2 "$R/tests.log"
echo "nearinv-cells: rc=$rc, $(( $(date +%s) - t0 )) s"
exit $rc
