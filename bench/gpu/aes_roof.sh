#!/usr/bin/env bash
# AES-128's constant-time CUDA default (bs_rk-const_t128) at its roof (issue 25), on the GPU machine, from the
# repository root, in one call (< 4 min with the caches carried): the current lowering (113-gate S-box circuit,
# round keys moved in front of MixColumns by generator/ptx/keypush.py, three-input XOR networks) beside the
# former one (CIPHERSPEC_PTX_BS=v1: depth-16 circuit, keys where the spec adds them), same run, same card.
# Checks both against the C library (bs_check.py: CTR across a counter wrap, ECB both ways), runs the GPU
# differential tests of the AES defaults, times 1 GiB device-resident CTR (bench/gpu/bench.py: keystream and
# XOR, windows checked against the interpreter) and prints per kernel: SASS instructions and ALU-pipe
# instructions per block, Gbps, the SASS roof and % of it.  Results under $OUT: summary.md, new/ and v1/
# (bench.py's results.json), check-c.log, tests-aes.log, build-*.log.
# nvcc takes minutes per bitsliced library: prebuild on the CPU machine and carry both caches:
#     CIPHERSPEC_CACHE=$PWD/.cs-cache AES_PREBUILD_ONLY=1 bash bench/gpu/aes_roof.sh
#     run(command="bash bench/gpu/aes_roof.sh", carry=[".cs-cache", ".cs-cache-v1"])
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
[ -z "${AES_PREBUILD_ONLY:-}" ] && nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
rc=0
t0=$(date +%s)
MAIN=${AES_SCHEDS:-aes128:bs_rk-const_t128}
V1_CACHE=${CIPHERSPEC_CACHE%-v1}-v1  # its own cache: the same schedule names, other sources
W=$(( $(nproc) / 2 )); [ "$W" -lt 1 ] && W=1
build() { python3 bench/gpu/build_jobs.py "$1" "$W"; }  # the libraries, in parallel, into the content-keyed cache
echo "== build (current and former lowering side by side)"
build "$MAIN" > "$OUT/build-new.log" 2>&1 &
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_BS=v1 build "$MAIN" > "$OUT/build-v1.log" 2>&1 &
wait
tail -1 "$OUT/build-new.log" "$OUT/build-v1.log"
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "${AES_PREBUILD_ONLY:-}" ] && exit 0
echo "== GPU vs the C library (CTR with a counter wrap, ECB both ways)"
python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 | tee "$OUT/check-c.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_BS=v1 python3 bench/gpu/bs_check.py ${MAIN//,/ } 2>&1 \
  | sed 's/^/v1: /' | tee -a "$OUT/check-c.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== differential GPU tests (vs the interpreter): the AES defaults"
python3 -m pytest tests/differential/test_cuda_gpu.py -q -n 8 -p no:cacheprovider -k "aes and default" 2>&1 \
  | tee "$OUT/tests-aes.log" | tail -4
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== benchmark (1 GiB CTR in device memory; bench.py checks windows against the interpreter)"
python3 bench/gpu/bench.py --out "$OUT/new" --ciphers aes128 --schedules "$MAIN" --reps 4 --batches 3 \
  --workers "$W" --stage2 0 --tune 0 2>&1 | tee "$OUT/bench-new.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
CIPHERSPEC_CACHE=$V1_CACHE CIPHERSPEC_PTX_BS=v1 python3 bench/gpu/bench.py --out "$OUT/v1" --ciphers aes128 \
  --schedules "$MAIN" --reps 4 --batches 3 --workers "$W" --stage2 0 --tune 0 2>&1 | tee "$OUT/bench-v1.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import json, sys
sys.path.insert(0, "bench/gpu")
import sass
from pathlib import Path
out = Path(sys.argv[1])
print("| lowering | schedule | ks Gbps | xor Gbps | SASS instr/block | ALU instr/block | roof Gbps (pipe) | % roof | verified |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
for tag, what in (("new", "current"), ("v1", "former (CIPHERSPEC_PTX_BS=v1)")):
    f = out / tag / "results.json"
    if not f.is_file():
        print(f"| {what} | (no results.json) | | | | | | | |")
        continue
    for r in json.loads(f.read_text())["rows"]:
        ks, xo = r["ks_ptx"], r["xor_ptx"]
        blocks = 32 * r["ilp"]
        per = sum(ks["mix"].values()) / blocks if ks["mix"] else float("nan")
        alu = sum(v for k, v in ks["mix"].items() if k in sass.ALU) / blocks if ks["mix"] else float("nan")
        print(f"| {what} | `{r['schedule']}` | {ks['gbps']:,.0f} | {xo['gbps']:,.0f} | {per:.1f} | {alu:.1f} | "
              f"{ks['roof_gbps']:,.0f} ({ks['pipe']}) | {ks['pct_roof'] or 0:.1f}% | {ks['verified'] and xo['verified']} |")
PY
echo "aes_roof: rc=$rc, $(( $(date +%s) - t0 )) s"
exit $rc
