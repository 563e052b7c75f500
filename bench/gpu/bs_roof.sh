#!/usr/bin/env bash
# Bitsliced CUDA defaults at their roof (issue 25 item 3), on the GPU machine, from the repository root, in one
# call (< 4 min with the caches carried): builds AES-128 and ARIA-128's constant-time defaults (bs_rk-const_t128)
# twice -- as generated now (round loops cut where the fewest planes are live, XOR sharing that LOP3 does not need
# dropped, a linear layer's slices one at a time: generator/ptx/roundloop.py, xor3.py, slices.py) and without those
# steps (CIPHERSPEC_PTX_BS=v1: main's bitsliced cores, the A/B baseline in the same run) -- and the same
# kernels at 3 resident CTAs per SM (ctas3: ptxas caps them at 168 registers, 12 warps per SM instead of 8), plus
# any BS_EXTRA schedules; checks them against the C library
# (bs_check.py) and runs the differential GPU tests of the defaults; times 1 GiB device-resident CTR through
# bench/gpu/bench.py, then one Nsight Compute profile (SpeedOfLight, Occupancy: achieved occupancy, issue slots)
# of each.  The summary prints, per kernel: keystream Gbps, SASS instructions per block, registers (cuobjdump),
# the SASS roof and the % of it.  Results under $OUT:
#     shared/ (bench.py's results.json, gpu-report.md), plain/ (the A/B baseline), ncu-*.txt, ncu.json,
#     check-c.log, tests-bs.log, summary.md
# nvcc takes minutes per bitsliced library (ARIA the longest): to spend no device time on it, prebuild on the CPU
# machine and carry both caches:
#     CIPHERSPEC_CACHE=$PWD/.cs-cache BS_PREBUILD_ONLY=1 bash bench/gpu/bs_roof.sh
#     run(command="bash bench/gpu/bs_roof.sh", carry=[".cs-cache", ".cs-cache-plain"]  (the v1 arm's cache))
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
echo "== build (as generated now, and the plain A/B baseline side by side)"
PLAIN_CACHE=$CIPHERSPEC_CACHE-plain  # its own cache: the same schedule names, other sources
build "$MAIN,$VARIANTS" > "$OUT/build-shared.log" 2>&1 &
CIPHERSPEC_CACHE=$PLAIN_CACHE CIPHERSPEC_PTX_BS=v1 build "$MAIN" > "$OUT/build-plain.log" 2>&1 &
wait
tail -2 "$OUT/build-shared.log" "$OUT/build-plain.log"
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "${BS_PREBUILD_ONLY:-}" ] && exit 0
echo "== GPU vs the C library (CTR with a counter wrap, ECB both ways)"
python3 bench/gpu/bs_check.py ${MAIN//,/ } ${VARIANTS//,/ } 2>&1 | tee "$OUT/check-c.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$PLAIN_CACHE CIPHERSPEC_PTX_BS=v1 python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 \
  | sed 's/^/plain: /' | tee -a "$OUT/check-c.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== differential GPU tests (vs the interpreter): the AES/ARIA defaults"
python3 -m pytest tests/differential/test_cuda_gpu.py -q -n 8 -p no:cacheprovider \
  -k "(aes128 or aria128) and default" 2>&1 | tee "$OUT/tests-bs.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== benchmark (1 GiB CTR in device memory; bench.py checks windows against the interpreter)"
python3 bench/gpu/bench.py --out "$OUT/shared" --ciphers aes128,aria128 --schedules "$MAIN,$VARIANTS" \
  --reps 4 --batches 3 --workers "$W" --stage2 0 2>&1 | tee "$OUT/bench-shared.log" | tail -12
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$PLAIN_CACHE CIPHERSPEC_PTX_BS=v1 python3 bench/gpu/bench.py --out "$OUT/plain" --ciphers aes128,aria128 --schedules "$MAIN" \
  --reps 4 --batches 3 --workers "$W" --stage2 0 2>&1 | tee "$OUT/bench-plain.log" | tail -8
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
CIPHERSPEC_PLAIN_CACHE=$PLAIN_CACHE python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import json, os, re, subprocess, sys
from pathlib import Path
sys.path.insert(0, ".")
from toolchain import nvcc
out = Path(sys.argv[1])
def regs(schedule: str, cache: Path) -> str:  # the CTR keystream kernel's registers and local memory (cuobjdump)
    libs = sorted(cache.glob(f"{schedule}.*.so"), key=lambda p: p.stat().st_mtime)
    if not libs:
        return "?"
    text = subprocess.run(["cuobjdump", "--dump-resource-usage", str(libs[-1])], capture_output=True, text=True).stdout
    m = re.search(r"_ctr_ptx(?:ILb0)?E[^\n]*\n\s*REG:(\d+) STACK:(\d+)[^\n]*LOCAL:(\d+)", text)
    return f"{m.group(1)} (stack {m.group(2)})" if m else "?"
caches = {"shared": nvcc.cache_dir(), "plain": Path(os.environ["CIPHERSPEC_PLAIN_CACHE"]) / "nvcc"}
print("| build | schedule | ks ptx Gbps | xor ptx Gbps | SASS instr/block | registers | roof Gbps (pipe) | %roof | verified |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
for build in ("shared", "plain"):
    f = out / build / "results.json"
    if not f.is_file():
        print(f"| {build} | (no results.json) | | | | | | | |")
        continue
    for r in json.loads(f.read_text())["rows"]:
        ks, xo = r["ks_ptx"], r["xor_ptx"]
        per = sum(ks["mix"].values()) / (32 * r["ilp"]) if ks["mix"] else float("nan")
        print(f"| {'now' if build == 'shared' else 'plain'} | `{r['schedule']}` | {ks['gbps']:,.0f} | {xo['gbps']:,.0f} | "
              f"{per:.1f} | {regs(r['schedule'], caches[build])} | {ks['roof_gbps']:,.0f} ({ks['pipe']}) | "
              f"{ks['pct_roof'] or 0:.1f}% | {ks['verified'] and xo['verified']} |")
PY
echo "bs_roof: rc=$rc, $(( $(date +%s) - t0 )) s"
exit $rc
