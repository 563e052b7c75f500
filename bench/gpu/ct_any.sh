#!/usr/bin/env bash
# Constant-time CUDA defaults for any spec (issue 25), on the GPU machine, in one call (< 4 min on 16 cores):
# builds the example specs (SM4, PRESENT-80, SPECK) and the conformance cells with tables or bit permutations
# for --target cuda with NO --schedule (the build notes: layout, why, estimated cost of the table layout), runs
# their GPU differential tests against the interpreter and the examples' KAT files, compute-sanitizer memcheck
# on two defaults (PRESENT-80's bitsliced one, round keys in shared memory; sbox4_u64's, 64-bit words bitsliced),
# and benchmarks 1 GiB device-resident CTR per default through bench/gpu/bench.py: the examples and the cells
# with lookups on 64-bit words, beside the former defaults and the leaky table layouts (ct_any.py EXTRA;
# targets: PRESENT-80 >= 2.0 Tbps, SM4 >= 2.5 Tbps).  Results in $OUT.
#
# Optional, to skip nvcc on the device: prebuild here with CIPHERSPEC_CACHE=$PWD/.cs-cache python3
# bench/gpu/ct_any.py prebuild, and carry .cs-cache.        run(command="bash bench/gpu/ct_any.sh")
# CT_ANY_ROTATE=1 adds PRESENT-80's default built with CIPHERSPEC_PTX_ROTATE=1 (roundloop.py's A/B switch) in its
# own cache, $CIPHERSPEC_CACHE-rot (prebuild it the same way with both variables set).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
rc=0
t0=$(date +%s)
echo "== prebuild every default in parallel (nvcc; cache hits when carried)"
python3 bench/gpu/ct_any.py prebuild 2>&1 | tee "$OUT/prebuild.log" | tail -3
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== build notes: cipherspec build --target cuda, no --schedule (notes only: the libraries it ships hold one"
echo "   kernel flavour, the prebuilt ones both, so nvcc is left out here rather than run again)"
for ex in present:present80 sm4:sm4 speck:speck128_128; do
  CIPHERSPEC_NVCC=/nonexistent python3 -m driver build --spec "examples/ciphers/${ex%%:*}.cs" --target cuda -o /tmp/ct-any-build "${ex#*:}" \
    > "$OUT/build-notes-${ex#*:}.log" 2>&1 &
done
wait
cat "$OUT"/build-notes-*.log | grep -E "layout|WARN|error" | cut -c1-300
echo "build stage: $(( $(date +%s) - t0 )) s"
echo "== differential tests on the GPU (ECB both ways, CTR) against the interpreter"
python3 -m pytest $(python3 bench/gpu/ct_any.py nodeids) -q -n 8 -p no:cacheprovider -rx 2>&1 \
  | tee "$OUT/tests-ct-any.log" | tail -15
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== KAT files on the defaults"
for spec in examples/ciphers/*.cs; do
  python3 -m driver kat "${spec%.cs}.txt" --spec "$spec" --target cuda 2>&1 | tee -a "$OUT/kat-ct-any.log" | tail -2
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
for n in present80 sbox4_u64; do
  echo "== compute-sanitizer memcheck on $n's default"
  compute-sanitizer --tool memcheck --error-exitcode 3 python3 bench/gpu/ct_any.py memcheck $n \
    > "$OUT/sanitize-ct-any-$n.log" 2>&1
  s=$?; echo "memcheck exit $s"; grep -E "ERROR SUMMARY|workload|Error" "$OUT/sanitize-ct-any-$n.log" | tail -5
  [ $s = 0 ] || rc=1
done
echo "check stage: $(( $(date +%s) - t0 )) s, rc=$rc"
specs=$(python3 bench/gpu/ct_any.py specs | sed 's/^/--spec /' | tr '\n' ' ')
echo "== benchmark: every default, CTR keystream, 1 GiB device-resident, verified windows"
SCHEDS=${CT_ANY_SCHEDS:-$(python3 bench/gpu/ct_any.py schedules)}
python3 bench/gpu/bench.py --out "$OUT" $specs --schedules "$SCHEDS" --reps 4 --batches 3 --workers 16 --stage2 0 --tune 0 2>&1 \
  | tee "$OUT/bench-ct-any.log" | tail -8
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
python3 bench/gpu/ct_any.py report "$OUT" | tee "$OUT/ct-any-report.md"
if [ -n "${CT_ANY_ROTATE:-}" ]; then  # A/B (bench/results/gpu-ct64.md): the round loop turned by the key addition
  echo "== PRESENT-80's default with CIPHERSPEC_PTX_ROTATE=1 (own cache: same name, other code)"
  CIPHERSPEC_CACHE=$CIPHERSPEC_CACHE-rot CIPHERSPEC_PTX_ROTATE=1 python3 bench/gpu/bench.py --out "$OUT/rot" $specs \
    --schedules present80:bs_rk-shared_t128 --reps 4 --batches 3 --workers 16 --stage2 0 --tune 0 2>&1 \
    | tee "$OUT/bench-rot.log" | tail -4
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  python3 bench/gpu/ct_any.py report "$OUT/rot" | tee "$OUT/ct-any-rot-report.md"
fi
echo "total: $(( $(date +%s) - t0 )) s, rc=$rc"
exit $rc
