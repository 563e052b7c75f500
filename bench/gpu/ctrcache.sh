#!/usr/bin/env bash
# Bitsliced CTR with the segment-uniform planes computed on the host (generator/ptx/bs_ctr.py; issue 25), on the GPU
# machine, from the repository root, in one call (< 5 min with the caches carried): builds the constant-time
# defaults of AES-128, ARIA-128, SM4 and PRESENT-80 (examples/) twice -- as generated now (the CTR kernels call
# cs_main, reading the host-computed planes from the segment parameter) and as before (CIPHERSPEC_PTX_CTR=v1: the
# plain encrypt core, the A/B baseline) -- checks the new arm against the C library (CTR across a 32-bit counter wrap
# with a partial last block, ECB both ways), runs the GPU tests of the CTR kernels (counters wrapping inside a call,
# partial blocks; AES, ARIA, PIPO) and of GCM's long kernel (which shares the core; AES, with inc32 wrapping
# mid-message), and times 1 GiB device-resident CTR through bench/gpu/bench.py, the arms interleaved on the same
# card: now, v1, now (the last only while the script is under 235 s, so that it ends within ~5 min; an arm takes
# about a minute).  Each arm's keystream Gbps are printed as it ends.
# Results: $OUT/ctrcache.tgz (build, check, test and bench logs, each arm's results.json, summary.md) and a short
# summary on stdout.
# nvcc takes minutes per bitsliced library: prebuild on the CPU machine and carry both caches:
#     CIPHERSPEC_CACHE=$PWD/.cs-cache CTRCACHE_PREBUILD_ONLY=1 bash bench/gpu/ctrcache.sh
#     run(command="bash bench/gpu/ctrcache.sh", carry=[".cs-cache", ".cs-cache-v1"])
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
SPECS=examples/ciphers/sm4.cs:examples/ciphers/present.cs
export CIPHERSPEC_REQUIRE_GPU=1 CIPHERSPEC_BENCH_SPECS=$SPECS
R="$OUT/ctrcache"; mkdir -p "$R"
[ -z "${CTRCACHE_PREBUILD_ONLY:-}" ] && nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$R/device.txt"
rc=0
t0=$(date +%s)
MAIN=$(python3 - <<'PY'
import sys
sys.path.insert(0, "bench/gpu")
from bench import registry
from generator.ptx.build import schedule_for
reg = registry()  # the build defaults: bs_rk-const_t128 (AES, ARIA, SM4), bs_rk-shared_t128 (PRESENT-80)
print(",".join(f"{n}:" + schedule_for(reg.module(n), None).name(reg.module(n)).split("_cuda_ctr_", 1)[1]
               for n in ("aes128", "aria128", "sm4", "present80")))
PY
)
echo "schedules: $MAIN"
V1_CACHE=$CIPHERSPEC_CACHE-v1  # its own cache: the same schedule names, other sources
W=$(( $(nproc) / 2 )); [ "$W" -lt 1 ] && W=1
echo "== build (now, and the v1 CTR core side by side)"
python3 bench/gpu/build_jobs.py "$MAIN" "$W" > "$R/build-now.log" 2>&1 &
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_CTR=v1 python3 bench/gpu/build_jobs.py "$MAIN" "$W" > "$R/build-v1.log" 2>&1 &
wait
tail -n 2 "$R/build-now.log" "$R/build-v1.log"
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "${CTRCACHE_PREBUILD_ONLY:-}" ] && exit 0
echo "== GPU vs the C library (CTR 4 MiB + 37 bytes across a 32-bit wrap, ECB both ways; v1 is main's code)"
python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 | tee "$R/check-c.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== GPU tests (vs the interpreter / the C library): CTR carries, wraps and lengths; GCM long messages"
T=tests/differential
python3 -m pytest -q -n 8 -p no:cacheprovider \
  "$T/test_cuda_gpu.py::test_ctr_carries_and_lengths[aes128-default]" \
  "$T/test_cuda_gpu.py::test_ctr_carries_and_lengths[aria128-default]" \
  "$T/test_cuda_gpu.py::test_ctr_carries_and_lengths[pipo64_128-bs_t64]" \
  "$T/test_cuda_gcm_gpu.py::test_gcm_long_message[aes128-default]" \
  "$T/test_cuda_gcm_gpu.py::test_gcm_inc32_wraps_mid_message" -k "not lea128" 2>&1 | tee "$R/tests.log" | tail -4
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "tests done: $(( $(date +%s) - t0 )) s"
echo "== benchmark (1 GiB CTR in device memory; bench.py checks windows against the interpreter): now, v1, now"
bench() {  # arm-directory [env...]
  local dir=$1; shift
  env "$@" python3 bench/gpu/bench.py --out "$R/$dir" --spec examples/ciphers/sm4.cs --spec examples/ciphers/present.cs \
    --ciphers aes128,aria128,sm4,present80 --schedules "$MAIN" --reps 3 --batches 2 --workers "$W" --stage2 0 --tune 0 \
    > "$R/bench-$dir.log" 2>&1 || { echo "bench $dir failed"; tail -5 "$R/bench-$dir.log"; rc=1; }
  grep " ks ptx " "$R/bench-$dir.log" | sed "s/^/$dir: /"
  echo "$dir done: $(( $(date +%s) - t0 )) s"
}
bench now1
bench v1 CIPHERSPEC_CACHE="$V1_CACHE" CIPHERSPEC_PTX_CTR=v1
arms="now1 v1"
if [ $(( $(date +%s) - t0 )) -lt 235 ]; then bench now2; arms="$arms now2"; else echo "(no second now arm: past 235 s)"; fi
python3 bench/gpu/ab_summary.py "$R" $arms | tee "$R/summary.md"
echo "ctrcache: rc=$rc, $(( $(date +%s) - t0 )) s" | tee -a "$R/summary.md"
tar czf "$OUT/ctrcache.tgz" -C "$OUT" ctrcache && rm -rf "$R"
exit $rc
