#!/usr/bin/env bash
# One device session in two bounded calls on one GPU (each < 10 min), from the repository root, the lead's
# way of checking and timing a merged tree.  The libraries go to .cs-cache in the checkout (ignored by git), so
# a second call on the still-warm machine finds them:
#   run(command="bash bench/gpu/session.sh check")   builds every library both phases use (current lowering and
#       the former one, CIPHERSPEC_PTX_BS=v1, in .cs-cache-v1), GPU tests against the C library / interpreter
#       (GCM long and batch, AES/ARIA defaults, CTR_DRBG, every example and conformance default), the example
#       KAT files, compute-sanitizer memcheck (GCM on the tensor cores, PRESENT-80's and sbox4_u64's defaults),
#       GCM vs CTR (long message, 16 KiB records), CTR_DRBG bulk on one GPU
#   run(command="bash bench/gpu/session.sh bench")   1 GiB CTR keystream of every default and the A/B arms
#       (ctas3, the former lowering, PRESENT-80's former rk-const default and table layout) with the SASS roof,
#       then one Nsight Compute profile of each constant-time default's keystream kernel
# Results under $OUT; the tables are printed last.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-session}; mkdir -p "$OUT"
export CIPHERSPEC_CACHE=${CIPHERSPEC_CACHE:-$PWD/.cs-cache}
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
specs_path=$(python3 bench/gpu/ct_any.py specs | tr '\n' ':'); export CIPHERSPEC_BENCH_SPECS=${specs_path%:}
specs=$(python3 bench/gpu/ct_any.py specs | sed 's/^/--spec /' | tr '\n' ' ')
V1="env CIPHERSPEC_CACHE=$PWD/.cs-cache-v1 CIPHERSPEC_PTX_BS=v1"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
git log --oneline -1 2>/dev/null | tee -a "$OUT/device.txt"
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
ok() { [ "$1" = 0 ] || rc=1; }
W=$(nproc)

# the A/B arms (bench): ctas3, PRESENT-80's former default and its table layout
ARMS="aes128:bs_rk-const_t128_ctas3,aria128:bs_rk-const_t128_ctas3,present80:bs_rk-const_t128,present80:rk-const_t256_tab-shared32"
DEFAULTS=$(python3 bench/gpu/ct_any.py defaults)  # every example's and conformance cell's default
SHIPPED="aes128:bs_rk-const_t128,aria128:bs_rk-const_t128,lea128:ilp2_rk-const_t256"

case "${1:-check}" in
check)
  stage "build: the shipped AES/ARIA/LEA defaults, every example/conformance default, the arms, the former lowering"
  ( timeout 330 python3 bench/gpu/build_jobs.py "$SHIPPED,$DEFAULTS,$ARMS" "$W" > "$OUT/build.log" 2>&1;
    echo "rc $?" >> "$OUT/build.log" ) &
  ( timeout 330 $V1 python3 bench/gpu/build_jobs.py "aes128:bs_rk-const_t128,aria128:bs_rk-const_t128" 2 \
      > "$OUT/build-v1.log" 2>&1; echo "rc $?" >> "$OUT/build-v1.log" ) &
  wait
  tail -n 2 "$OUT/build.log" "$OUT/build-v1.log"
  grep -q "failures: none" "$OUT/build.log" || rc=1

  stage "GPU tests: GCM (long, batch on the tensor cores), AES/ARIA defaults, CTR_DRBG (== the C DRBG)"
  timeout 170 python3 -m pytest tests/differential/test_cuda_gcm_gpu.py tests/differential/test_cuda_gpu.py \
    tests/differential/test_cuda_drbg_gpu.py -q -n 8 -p no:cacheprovider \
    -k "(gcm and (default or wraps or errors or tensor or long_records or many_keys)) or ((aes128 or aria128) and default and not gcm) or (drbg and (lea128 or aes128 or aria128 or pipelined))" \
    2>&1 | tee "$OUT/tests.log" | tail -3
  ok "${PIPESTATUS[0]}"
  stage "GPU tests: every example and conformance default (vs the interpreter), the example KAT files"
  timeout 150 python3 -m pytest $(python3 bench/gpu/ct_any.py nodeids) -q -n 8 -p no:cacheprovider 2>&1 \
    | tee "$OUT/tests-ct-any.log" | tail -3
  ok "${PIPESTATUS[0]}"
  for spec in examples/ciphers/*.cs; do
    timeout 60 python3 -m driver kat "${spec%.cs}.txt" --spec "$spec" --target cuda > "$OUT/kat-$(basename "${spec%.cs}").log" 2>&1
    ok $?; tail -1 "$OUT/kat-$(basename "${spec%.cs}").log"
  done

  stage "compute-sanitizer memcheck: GCM on the tensor cores, PRESENT-80's and sbox4_u64's defaults"
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 python3 bench/gpu/gcm_sanitize.py lea128: \
    > "$OUT/sanitize-gcm.log" 2>&1; ok $?
  for n in present80 sbox4_u64; do
    timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 python3 bench/gpu/ct_any.py memcheck $n \
      > "$OUT/sanitize-$n.log" 2>&1; ok $?
  done
  grep -H "ERROR SUMMARY" "$OUT"/sanitize-*.log

  stage "GCM vs CTR (1 GiB: one message; 65536 records of 16 KiB, host and device descriptors)"
  timeout 120 python3 bench/gpu/gcm_bench.py --out "$OUT" --ciphers aes128,aria128,lea128 --batches 3 2>&1 \
    | tee "$OUT/gcm.log" | tail -6
  ok "${PIPESTATUS[0]}"

  stage "CTR_DRBG bulk, one GPU, 1 GiB (host chain, from a plan, serial, pipelined; SHA-256 == the C DRBG)"
  timeout 120 python3 bench/gpu/drbg_multi.py --out "$OUT/drbg" --mib 1024 --reps 3 > "$OUT/drbg.log" 2>&1; ok $?
  sed -n '/^| cipher/,$p' "$OUT/drbg.log" | head -12
  ;;
bench)
  stage "CTR keystream, 1 GiB in device memory: every constant-time default and the arms (windows checked)"
  BENCHED=${SESSION_BENCH:-$SHIPPED,$(echo "$DEFAULTS" | tr ',' '\n' | grep -E "^(present80|sm4|speck128_128|sbox4_u64|bytesub_u64_le|arx64_lut_u64):" | paste -sd,),$ARMS}
  timeout 330 python3 bench/gpu/bench.py --out "$OUT/ctr" $specs --ciphers aes128,aria128 \
    --schedules "$BENCHED" \
    --reps 3 --batches 2 --workers "$W" --stage2 0 --tune 0 2>&1 | tee "$OUT/ctr.log" | tail -3
  ok "${PIPESTATUS[0]}"
  python3 bench/gpu/ct_any.py report "$OUT/ctr" > "$OUT/ctr-report.md" 2>&1
  stage "the former bitsliced lowering (CIPHERSPEC_PTX_BS=v1), AES-128 and ARIA-128, same card"
  timeout 120 $V1 python3 bench/gpu/bench.py --out "$OUT/ctr-v1" --ciphers aes128,aria128 \
    --schedules "aes128:bs_rk-const_t128,aria128:bs_rk-const_t128" --reps 3 --batches 2 --workers 2 --stage2 0 --tune 0 \
    2>&1 | tee "$OUT/ctr-v1.log" | tail -3
  ok "${PIPESTATUS[0]}"
  python3 bench/gpu/ct_any.py report "$OUT/ctr-v1" > "$OUT/ctr-v1-report.md" 2>&1
  stage "GCM batch with the former lowering (AES-128; what the key-plane layout costs the records' CTR pass)"
  timeout 100 $V1 python3 bench/gpu/gcm_bench.py --out "$OUT/gcm-v1" --ciphers aes128 --batches 3 2>&1 \
    | tee "$OUT/gcm-v1.log" | tail -3
  stage "Nsight Compute: the constant-time defaults' keystream kernels"
  timeout 150 python3 bench/gpu/profile.py --defaults aes128,aria128,present80,sm4 "$OUT" 2>&1 | tee "$OUT/ncu.log" | tail -40
  cat "$OUT/ctr-report.md" "$OUT/ctr-v1-report.md"
  ;;
*)
  echo "usage: bash bench/gpu/session.sh check|bench"; exit 2 ;;
esac
stage "done rc=$rc"
exit $rc
