#!/usr/bin/env bash
# Bitsliced CUDA defaults at their roof (issue 25 item 3), on the GPU machine, from the repository root, in one
# call (< 4 min): builds AES-128 and ARIA-128's constant-time defaults (bs_rk-const_t128) twice -- LOP3 cover
# with shared cones (generator/ptx/lop3map.py, the default now) and the former single-reader tree cover
# (CIPHERSPEC_PTX_LOP3=tree) -- and the same kernels at 3 resident CTAs per SM (ctas3: ptxas caps them at 168
# registers, 12 warps per SM instead of 8, a few spills), plus any BS_EXTRA schedules; checks them against the
# C library (bs_check.py) and runs the differential GPU tests of the defaults; times 1 GiB device-resident CTR through
# bench/gpu/bench.py (Tbps, SASS instr/block and roof per kernel), then one Nsight Compute profile
# (SpeedOfLight, Occupancy: achieved occupancy, issue slots) of each default.  Results under $OUT:
#     shared/ (bench.py's results.json, gpu-report.md), tree/ (the A/B baseline), ncu-*.txt, ncu.json,
#     check-c.log, tests-bs.log, summary.md
# nvcc takes minutes per bitsliced library (ARIA the longest): to spend no device time on it, prebuild on the CPU
# machine and carry both caches:
#     CIPHERSPEC_CACHE=$PWD/.cs-cache BS_PREBUILD_ONLY=1 bash bench/gpu/bs_roof.sh
#     run(command="bash bench/gpu/bs_roof.sh", carry=[".cs-cache", ".cs-cache-tree"])
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
[ -z "${BS_PREBUILD_ONLY:-}" ] && nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
rc=0
t0=$(date +%s)
EXTRA=${BS_EXTRA:-}  # e.g. aes128:bs_t64,aria128:bs_t64 (more schedules: more build time)
MAIN=aes128:bs_rk-const_t128,aria128:bs_rk-const_t128
VARIANTS=${BS_VARIANTS:-aes128:bs_rk-const_t128_ctas3,aria128:bs_rk-const_t128_ctas3}
[ -n "$EXTRA" ] && VARIANTS="$VARIANTS,$EXTRA"
W=$(( $(nproc) / 2 )); [ "$W" -lt 1 ] && W=1
build() { python3 bench/gpu/build_jobs.py "$1" "$W"; }  # the libraries, in parallel, into the content-keyed cache
echo "== build (shared-cone cover and the tree cover side by side)"
TREE_CACHE=$CIPHERSPEC_CACHE-tree  # its own cache: the same schedule names, other sources
build "$MAIN,$VARIANTS" > "$OUT/build-shared.log" 2>&1 &
CIPHERSPEC_CACHE=$TREE_CACHE CIPHERSPEC_PTX_LOP3=tree build "$MAIN" > "$OUT/build-tree.log" 2>&1 &
wait
tail -2 "$OUT/build-shared.log" "$OUT/build-tree.log"
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "${BS_PREBUILD_ONLY:-}" ] && exit 0
echo "== GPU vs the C library (CTR with a counter wrap, ECB both ways)"
python3 bench/gpu/bs_check.py ${MAIN//,/ } ${VARIANTS//,/ } 2>&1 | tee "$OUT/check-c.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$TREE_CACHE CIPHERSPEC_PTX_LOP3=tree python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 \
  | sed 's/^/tree cover: /' | tee -a "$OUT/check-c.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== differential GPU tests (vs the interpreter): the AES/ARIA defaults"
python3 -m pytest tests/differential/test_cuda_gpu.py -q -n 8 -p no:cacheprovider \
  -k "(aes128 or aria128) and default" 2>&1 | tee "$OUT/tests-bs.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== benchmark (1 GiB CTR in device memory; bench.py checks windows against the interpreter)"
python3 bench/gpu/bench.py --out "$OUT/shared" --ciphers aes128,aria128 --schedules "$MAIN,$VARIANTS" \
  --reps 4 --batches 3 --workers "$W" --stage2 0 2>&1 | tee "$OUT/bench-shared.log" | tail -12
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$TREE_CACHE CIPHERSPEC_PTX_LOP3=tree python3 bench/gpu/bench.py --out "$OUT/tree" --ciphers aes128,aria128 --schedules "$MAIN" \
  --reps 4 --batches 3 --workers "$W" --stage2 0 2>&1 | tee "$OUT/bench-tree.log" | tail -8
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "bench: $(( $(date +%s) - t0 )) s"
if command -v ncu >/dev/null; then  # one 64 MiB keystream launch per default: occupancy, issue slots, pipes
  for s in ${MAIN//,/ } ${VARIANTS//,/ }; do
    c=${s%%:*}; p=${s#*:}; tag=$c-${p//[^a-z0-9]/}
    timeout 45 ncu --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis \
      --metrics sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active \
      --kernel-name "regex:_ctr_ptx$" --launch-count 1 python3 bench/gpu/profile.py --launch "$c" "$p" > "$OUT/ncu-$tag.txt" 2>&1
    grep -E "Achieved Occupancy|Theoretical Occupancy|Registers Per|Issue Slots Busy|pipe_alu|issue_active|Executed Ipc Active|Compute \(SM\) Throughput|Block Limit Registers" \
      "$OUT/ncu-$tag.txt" | sed "s/^/$tag: /"
  done
  python3 bench/gpu/profile.py --summary "$OUT" > "$OUT/ncu.json" 2>/dev/null || true
fi
python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
print("| cover | schedule | ks ptx Gbps | xor ptx Gbps | SASS instr/block (top 12 opcodes) | roof Gbps (pipe) | %roof | verified |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for cover in ("shared", "tree"):
    f = out / cover / "results.json"
    if not f.is_file():
        print(f"| {cover} | (no results.json) | | | | | | |")
        continue
    for r in json.loads(f.read_text())["rows"]:
        ks, xo = r["ks_ptx"], r["xor_ptx"]
        per = sum(ks["mix"].values()) / (32 * r["ilp"]) if ks["mix"] else float("nan")
        print(f"| {cover} | `{r['schedule']}` | {ks['gbps']:,.0f} | {xo['gbps']:,.0f} | {per:.1f} | "
              f"{ks['roof_gbps']:,.0f} ({ks['pipe']}) | {ks['pct_roof'] or 0:.1f}% | {ks['verified'] and xo['verified']} |")
PY
echo "bs_roof: rc=$rc, $(( $(date +%s) - t0 )) s"
exit $rc
