#!/usr/bin/env bash
# One device call for a session's GPU changes, most important first, every stage bounded and logged under $OUT
# (a run cut short still returns what it wrote):
#   1. parallel nvcc builds: AES/ARIA/LEA defaults (GCM included), AES/ARIA `ctas3`, the example specs' defaults
#   2. GPU tests: GCM vs the C library (tensor-core GHASH route incl. an inc32 wrap), AES/ARIA bitsliced
#      defaults vs the interpreter, the example specs' constant-time defaults (KAT files, differential), the
#      DRBG bulk output vs the C DRBG; compute-sanitizer memcheck on GCM (tensor-core route)
#   3. benchmarks: GCM vs CTR (bench/gpu/gcm_bench.py), CTR Tbps of the defaults and `ctas3` (bench.py),
#      CTR_DRBG bulk (bench/gpu/drbg_multi.py)
#        bash bench/gpu/session.sh            (from the repository root on the GPU machine)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-session}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
EX=$(ls examples/ciphers/*.cs | tr '\n' ':'); export CIPHERSPEC_BENCH_SPECS=${EX%:}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }

stage "build"
timeout 200 python3 - <<'PY' 2>&1 | tee "$OUT/build.log" | tail -3 || rc=1
import os, sys
sys.path.insert(0, "bench/gpu")
from bench import build_all
jobs = [("aes128", None), ("aria128", None), ("lea128", None), ("aes128", "bs_rk-const_t128_ctas3"),
        ("aria128", "bs_rk-const_t128_ctas3"), ("present80", None), ("sm4", None), ("speck128_128", None),
        ("sm4", "rk-const_t256_tab-shared32"), ("present80", "rk-const_t256_tab-shared32")]
res = build_all(jobs, os.cpu_count() or 8)
print("failures:", {k: v for k, v in res.items() if v != "ok"} or "none")
PY

stage "GPU tests"
timeout 150 python3 -m pytest tests/differential/test_cuda_gcm_gpu.py tests/differential/test_cuda_gpu.py \
  tests/differential/test_cuda_drbg_gpu.py -q -n 8 -p no:cacheprovider \
  -k "(gcm and (default or wraps or errors)) or ((aes128 or aria128) and default and not gcm) or (drbg and (lea128 or aes128 or aria128))" \
  2>&1 | tee "$OUT/tests.log" | tail -4
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
for ex in present:present80 sm4:sm4 speck:speck128_128; do
  timeout 60 python3 -m driver kat "examples/ciphers/${ex%%:*}.txt" --spec "examples/ciphers/${ex%%:*}.cs" --target cuda \
    > "$OUT/kat-${ex#*:}.log" 2>&1 || rc=1
  tail -1 "$OUT/kat-${ex#*:}.log"
done
timeout 120 python3 -m pytest $(python3 bench/gpu/ct_any.py nodeids | grep -E "present|sm4|speck" | head -12) -q -n 8 \
  -p no:cacheprovider 2>&1 | tee "$OUT/tests-ct.log" | tail -2
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 python3 bench/gpu/gcm_sanitize.py lea128: \
  > "$OUT/sanitize-gcm.log" 2>&1 || rc=1
grep -E "ERROR SUMMARY" "$OUT/sanitize-gcm.log"

stage "GCM vs CTR"
timeout 120 python3 bench/gpu/gcm_bench.py --out "$OUT" --ciphers aes128,aria128,lea128 2>&1 | tee "$OUT/gcm.log" | tail -6

stage "CTR Tbps: defaults and ctas3"
timeout 150 python3 bench/gpu/bench.py --out "$OUT/ctr" --spec examples/ciphers/present.cs --spec examples/ciphers/sm4.cs \
  --spec examples/ciphers/speck.cs --ciphers aes128,aria128,present80,sm4,speck128_128 \
  --schedules "aes128:bs_rk-const_t128,aria128:bs_rk-const_t128,aes128:bs_rk-const_t128_ctas3,aria128:bs_rk-const_t128_ctas3,present80:bs_rk-const_t128,sm4:bs_rk-const_t128,speck128_128:rk-const_t256,sm4:rk-const_t256_tab-shared32,present80:rk-const_t256_tab-shared32" \
  --reps 3 --batches 2 --workers 8 --stage2 0 --tune 0 2>&1 | tee "$OUT/ctr.log" | tail -14

stage "CTR_DRBG bulk, one GPU"
timeout 100 python3 bench/gpu/drbg_multi.py --out "$OUT/drbg" ${DRBG_MULTI_ARGS:---mib 1024 --reps 3} > "$OUT/drbg.log" 2>&1 || rc=1
sed -n '/^| cipher/,$p' "$OUT/drbg.log" | head -30
stage "done rc=$rc"
exit $rc
