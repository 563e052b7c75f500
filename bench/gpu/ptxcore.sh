#!/usr/bin/env bash
# Issue 25's build time, seventh pass (branch ptxcore): the device A/B of CIPHERSPEC_PTX_CORE, from the repository
# root, one call, bound 240 s.  With CIPHERSPEC_PTX_CORE=1 generator/ptx/asmblock.py also prints the lane transform
# out of the planes (cs_lanes_out) and the bitsliced CTR core (cs_main) as asm blocks, and lets a block hold up to
# 256 operands (was 96): nvcc's optimizer walks fewer statements and C values (AES-128: cicc 11-17% less CPU, paired
# runs on the 2-core build machine).  The PTX instructions are the same; ptxas places some differently: 7 of
# AES-128's 27 kernels compile to other SASS -- the CTR kernels +8/+16 instructions (+2/+12 a grid-stride trip,
# sass_trips.py's modelled cycles the same, stack 24 -> 40 bytes in one), ECB decrypt +8.  Two device rounds on an
# H200 measured AES-128's CTR keystream 0.9-1.0% slower with them, so they are off by default
# (bench/results/cuda-build-time.md, seventh pass).  Arms in ONE tree, each its own build cache: "on" =
# CIPHERSPEC_PTX_CORE=1, "off" = 0 (the default: the sixth pass's sources, byte for byte).  For the defaults of
# AES-128, ARIA-128, SM4 and PRESENT-80:
#   1. one clockwatch.py process an arm and cipher (8, started together: they build at once, then time in turn under
#      a lock): 256 MiB keystream + 32 MiB XOR digests (must be equal across the arms), then 1 GiB device-resident
#      CTR keystream timed twice per process (the arms interleave) -> summary.md;
#   2. the "on" defaults against the C library (bs_check.py: CTR across a 32-bit counter wrap, ECB both ways);
#   3. ECB encrypt/decrypt 64 MiB of AES-128 and ARIA-128 under ncu (gpu__time_duration), arms on / off, and the
#      outputs' SHA-256 (must be equal): bench/gpu/ptxcore_ab.py;
#   4. registers/stack per kernel of both arms (cuobjdump -res-usage);
#   5. the GPU tests of AES-128's and ARIA-128's defaults, while time is left (stages 3 and 5 check the clock).
# Results: $OUT/ptxcore/ (summary.md, same.log, ncu-*.csv, res-usage.txt, check-c.log, tests.log).
#     run(command="bash bench/gpu/ptxcore.sh")
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
. bench/gpu/arms.sh
cs_gpu_start
R=$OUT/ptxcore; mkdir -p "$R"; mv "$OUT/device.txt" "$R/"
SPECS=$(python3 bench/gpu/ct_any.py specs | paste -sd:)  # (SM4 and PRESENT-80 are example specs)
export CIPHERSPEC_BENCH_SPECS=$SPECS
rc=0; t0=$(date +%s)
left() { [ $(( $(date +%s) - t0 )) -lt "$1" ]; }  # still under $1 seconds
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)" | tee -a "$R/summary.md"; }
D=bs_rk-const_sync-auto_t256
MAIN="aes128:$D,aria128:$D,sm4:$D,present80:bs_rk-shared_sync-auto_t256"
ON=$CIPHERSPEC_CACHE-on OFF=$CIPHERSPEC_CACHE-off  # the arms' libraries have the same names: one cache each
mkdir -p "$ON" "$OFF"; cp -r "$CIPHERSPEC_CACHE"/. "$ON"/ 2>/dev/null; cp -r "$CIPHERSPEC_CACHE"/. "$OFF"/ 2>/dev/null
arm() {  # ARM CMD...: CMD with that arm's switch and cache
  local a=$1; shift
  if [ "$a" = off ]; then CIPHERSPEC_PTX_CORE=0 CIPHERSPEC_CACHE="$OFF" "$@"; else CIPHERSPEC_PTX_CORE=1 CIPHERSPEC_CACHE="$ON" "$@"; fi
}
cs_defaults_are "$MAIN" || { echo "the defaults are not the schedules this script names: update MAIN" | tee -a "$R/summary.md"; rc=1; }

stage "build (in the clockwatch processes, 8 at once) and 1 GiB CTR keystream per arm, twice each"
LOCK="$R/gpu.lock"; : > "$LOCK"; pids=()
for a in on off; do
  for c in ${MAIN//,/ }; do
    arm $a timeout 200 python3 bench/gpu/clockwatch.py --lock "$LOCK" --same "$R/same.txt" --same-group "${c%%:*}" \
      --out "$R/clock-$a-${c%%:*}" --reps 120 --batches 2 "$c" "$c" > "$R/clock-$a-${c%%:*}.log" 2>&1 & pids+=($!)
  done
done
arm on cs_c_libraries "$MAIN" > "$R/check-c.log" 2>&1 & pids+=($!)  # (what bs_check.py compares with)
for p in "${pids[@]}"; do wait "$p" || rc=1; done
cat "$R"/clock-*.log > "$R/clockwatch.log"
awk '{ k = $1 SUBSEP $3 " " $4; if (!(k in seen)) { seen[k] = 1; n[$1]++ } }
     END { for (c in n) print c ": " n[c] (n[c] == 1 ? " (equal)" : " DIFFER") }' "$R/same.txt" | tee "$R/same.log"
grep -q DIFFER "$R/same.log" && rc=1
{
  echo "| cipher | arm | Gbps (each timing) | SASS/block | SM MHz median |"
  echo "|---|---|---|---:|---:|"
  python3 - "$R"/clock-*/clockwatch.json <<'PY'
import json, sys
for path in sorted(sys.argv[1:]):
    _, a, c = path.split("/")[-2].split("-", 2)
    rows = json.load(open(path))
    g = " / ".join(f"{r['gbps']:,.0f}" for r in rows)
    print(f"| {c} | {a} | {g} | {rows[0]['sass_per_block']:.1f} | {rows[0].get('mhz_median', 0):.0f} |")
PY
} | tee -a "$R/summary.md"

if left 200; then
  stage "the on defaults against the C library (bs_check.py)"
  arm on timeout $(( 225 - $(date +%s) + t0 )) python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 | tee -a "$R/check-c.log" | tail -4
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
if command -v ncu >/dev/null && left 150; then
  stage "ECB 64 MiB of AES-128 and ARIA-128 under ncu (gpu__time_duration), arms on / off"
  for a in on off; do  # (the first round: ~12 s a cipher under ncu)
    arm $a timeout 40 ncu --metrics gpu__time_duration.sum --csv --kernel-name "regex:ecb_(enc|dec)_ptx" \
      python3 bench/gpu/ptxcore_ab.py run aes128 aria128 > "$R/ncu-$a.csv" 2>&1 \
      || { echo "ncu $a failed (see ncu-$a.csv)" | tee -a "$R/summary.md"; rc=1; }
    { echo "-- outputs, $a:"; grep -E "^[a-z0-9]+ ecb_" "$R/ncu-$a.csv"; } | tee -a "$R/summary.md"
  done
  python3 bench/gpu/ptxcore_ab.py summary "$R/ncu-on.csv" "$R/ncu-off.csv" 2>&1 | tee -a "$R/summary.md"
fi

stage "registers and stack per kernel (cuobjdump -res-usage), on then off"
cs_res_usage "$ON"/nvcc/*_cuda_*.so "$OFF"/nvcc/*_cuda_*.so > "$R/res-usage.txt" 2>&1

if left 222; then
  stage "GPU tests of AES-128's and ARIA-128's defaults (on)"
  arm on timeout $(( 238 - $(date +%s) + t0 )) python3 -m pytest tests/differential/test_cuda_gpu.py \
    -k "aes128-default or aria128-default" -q -p no:cacheprovider 2>&1 | tail -n 3 | tee "$R/tests.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
stage "done (rc $rc)"
exit $rc
