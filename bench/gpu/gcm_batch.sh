#!/usr/bin/env bash
# On the GPU machine: AES-128-GCM at issue 21's GPU rows (one long message >= 0.8x CTR, 16 KiB records >= 0.6x),
# with ARIA-128 and LEA-128 beside it.  Builds the three CUDA libraries (default schedules) in parallel; a ptxas
# report of the GCM kernels (spills, SASS counts) in the background; then bench/gpu/gcm_bench.py --ab --phases
# --check: first every A/B arm's output (an 8 MiB message, 296 records under 16 keys) against the C library,
# then CTR, GCM long, batch and records at 1 GiB, each GCM call also under its CIPHERSPEC_GCM_AB baselines
# (AES-128 all of them: f0 the long message's former first hashing level; o0 its staging before its CTR pass, the former order; p0 its whole key staged, not its
# powers of H alone; c0 the keyed keystream's former launches, a launch a key with its round keys copied into
# constant memory, where the default is one launch for every key with the warp's key copied into shared memory
# and the records in memory order; l1 that launch with the records key by key; g1 with each item's round keys read
# from the key table; q0 the resident keystream kernel; t0 the
# former records' hashing kernel; and AES-128's records under two more key patterns: all key 0, 16 runs of
# neighbours; ARIA-128 and LEA-128 the current kernels and k1, the keyed route where the CTR kernel runs in step:
# ARIA-128's former default), alternating in one process, and where each call's time goes
# (the library's phase marks: CUDA events on the stream around staging, CTR, the hashing levels, the finish);
# then the GPU GCM tests against the C library (batches: mixed lengths, keys, AAD; one key; many keys; key
# patterns; long records; inc32; errors; the former records kernel); then, while time is left, AES-128's GCM
# kernel times under ncu (gcm-kernels.txt).  Logs and results under $OUT; about 3 to 4 minutes (2 minutes of
# nvcc when the libraries are not prebuilt).
#   bash bench/gpu/gcm_batch.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
cs_gpu_start
rc=0 t0=$(date +%s)
echo "== build (aes128, aria128, lea128 defaults)"
timeout 230 python3 - <<'PY' 2>&1 | tail -3
import sys
sys.path[0:0] = ["bench/gpu"]
from bench import build_all
res = build_all([("aes128", None), ("aria128", None), ("lea128", None)], 3)
print("prebuild:", {k: v for k, v in res.items() if v != "ok"} or "all built")
PY
echo "build: $(( $(date +%s) - t0 )) s"
echo "== ptxas report of the GCM kernels (sm_90)"
timeout 120 python3 - > "$OUT/gcm-batch-ptxas.txt" 2>&1 <<'PY' &
import sys, tempfile
from pathlib import Path
sys.path[0:0] = ["tests/support"]
from cipherspec.registry import Registry
from generator.ptx.build import schedule_for
from generator.ptx.source import generate
from toolchain import nvcc
m = Registry().module("aes128")
src = generate(m, schedule_for(m, None))
d = Path(tempfile.mkdtemp())
(d / f"{src.name}.cu").write_text(src.cu)
(d / f"{src.name}.h").write_text(src.h)
rep = nvcc.compile_cubin(d / f"{src.name}.cu", "sm_90")
import re, subprocess
for k, use in rep.kernels.items():
    n = re.search(r"(_gcm_\w+?|_tgb_\w+?|cs_tgh_\w+?)(?:ILi(\d+)ELi(\d+)EE)?E", k)
    if n:
        name = n.group(1).lstrip("_") + (f"<{n.group(2)}, {n.group(3)}>" if n.group(2) else "")
        print(f"{name:24s} regs {use.registers:3d} stack {use.stack} spills {use.spill_stores}/{use.spill_loads}")
cubin = max(nvcc.cache_dir().glob(f"{src.name}.sm_90.*.cubin"), key=lambda f: f.stat().st_mtime, default=None)
if cubin:  # the SASS counts and the estimate they give (bench/gpu/gcm_batch_sass.py), beside the measurement
    print(subprocess.run([sys.executable, "bench/gpu/gcm_batch_sass.py", "--cubin", str(cubin)],
                         capture_output=True, text=True).stdout)
PY
ptxas_pid=$!
echo "== GCM vs CTR (1 GiB; batch = 65536 records of 16 KiB, 16 keys)"
timeout 130 python3 bench/gpu/gcm_bench.py --out "$OUT" --ciphers aes128,aria128,lea128 --batches 3 --ab --phases \
  --ab-full aes128 --check 2>&1 | tee "$OUT/gcm-batch-bench.log" | tail -40
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "== GCM batch tests (GPU vs the C library)"
left=$(( 290 - ($(date +%s) - t0) )); [ "$left" -gt 120 ] && left=120; [ "$left" -lt 30 ] && left=30
timeout $left python3 -m pytest tests/differential/test_cuda_gcm_gpu.py -q -n 4 -p no:cacheprovider \
  -k "aes128-default or aria128-default or lea128-default or tensor_cores or long_records or many_keys or key_patterns or inc32 or errors or former or keyed or ab_arms" 2>&1 \
  | tee "$OUT/gcm-batch-tests.log" | tail -8
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "tests: $(( $(date +%s) - t0 )) s, rc=$rc"
if command -v ncu >/dev/null; then  # why the records' keystream kernel takes longer than CTR's for the same bytes
  # (1 GiB calls: 4 trips a warp in a launch of gcm_ks_seg; the mid-session round's 256 MiB gave it 1.  Each report
  # is kept, $OUT/ncu-*.ncu-rep, for `ncu -i FILE --page details --print-details all` and any metric after the round)
  for k in "gcm_ks_seg" "ctr_ptx<1>"; do
    left=$(( 292 - ($(date +%s) - t0) )); [ "$left" -gt 45 ] && left=45
    [ "$left" -ge 25 ] || break
    f=$(echo "$k" | tr -dc 'a-z_')
    echo "== ncu warp states: $k (one launch, AES-128, 1 GiB calls, ${left} s at most)"
    timeout $left ncu --kernel-name-base demangled --kernel-name "regex:$k" --launch-count 1 --section WarpStateStats \
      --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      --section SpeedOfLight --section InstructionStats -f -o "$OUT/ncu-$f" python3 bench/gpu/gcm_bench.py \
      --out "$OUT/ncu-st" --ciphers aes128 --reps 1 --batches 1 >> "$OUT/ncu-stalls.txt" 2>&1
    [ -f "$OUT/ncu-$f.ncu-rep" ] && timeout 20 ncu -i "$OUT/ncu-$f.ncu-rep" --page details --print-details all \
      >> "$OUT/ncu-stalls.txt" 2>&1
    grep -E "Stall|Issued|Eligible|Occupancy|Duration|Throughput|Registers" "$OUT/ncu-stalls.txt" | tail -30
  done
fi
ncu_times() {  # $1: suffix of the files, then env assignments for the run: AES-128's GCM kernels' times under ncu
  local sfx=$1; shift
  env "$@" timeout 45 ncu --metrics gpu__time_duration.sum --csv --kernel-name "regex:gcm|tgb|tgh|ctr" \
    python3 bench/gpu/gcm_bench.py --out "$OUT/ncu$sfx" --ciphers aes128 --reps 1 --batches 1 > "$OUT/ncu-gcm$sfx.csv" 2>&1
  python3 - "$OUT/ncu-gcm$sfx.csv" <<'PY' | tee "$OUT/gcm-kernels$sfx.txt"
import csv, re, sys
from collections import defaultdict
tot, cnt = defaultdict(float), defaultdict(int)
lines = [ln for ln in open(sys.argv[1], errors="replace") if ln.startswith('"')]
for row in csv.DictReader(lines):
    m = re.search(r"(gcm_[a-z0-9_]+?|tgb_[a-z]+|cs_tgh_[a-z]+|ctr_ptx|ctr_c)(?=\(|<|E|ILb|$)", row.get("Kernel Name", ""))
    if m and row.get("Metric Name") == "gpu__time_duration.sum":
        name = m.group(1)
        tot[name] += float(row["Metric Value"].replace(",", "")) / 1e6  # ns -> ms
        cnt[name] += 1
for name in sorted(tot, key=lambda k: -tot[k]):
    print(f"{name:24s} {cnt[name]:3d} launches  {tot[name]:8.3f} ms in all  {tot[name] / cnt[name]:7.3f} ms each")
PY
}
if command -v ncu >/dev/null && [ $(( $(date +%s) - t0 )) -lt 230 ]; then  # where the time goes (while time is left)
  echo "== AES-128 GCM kernel times (ncu gpu__time_duration: 2 calls each of CTR, long, batch, records)"
  ncu_times "" CIPHERSPEC_GCM_AB=
  if [ $(( $(date +%s) - t0 )) -lt 250 ]; then
    echo "== the same with CIPHERSPEC_GCM_AB=c0 (the keyed route's former launches: a launch a key)"
    ncu_times -c0 CIPHERSPEC_GCM_AB=c0
  fi
fi
wait $ptxas_pid; echo "== ptxas"; cat "$OUT/gcm-batch-ptxas.txt"
echo "total: $(( $(date +%s) - t0 )) s, rc=$rc"
exit $rc
