#!/usr/bin/env bash
# On the GPU machine: GCM (issue 21) -- builds the GCM test and benchmark libraries in parallel, runs the GPU
# differential tests of GCM against the C library, compute-sanitizer memcheck and racecheck on a small GCM
# workload, then the GCM vs CTR benchmark (bench/gpu/gcm_bench.py).  Logs and results under $OUT.
#   bash bench/gpu/gcm.sh [check|bench|all]
set -uo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
rc=0
t0=$(date +%s)
timeout 240 python3 - <<'PY' 2>&1 | tail -3
import sys
sys.path[0:0] = ["bench/gpu", "tests/differential", "tests/support"]
from bench import build_all
from test_cuda_gcm_gpu import SCHEDULES
res = build_all(list(dict.fromkeys(SCHEDULES)), 16)
print("prebuild:", {k: v for k, v in res.items() if v != "ok"} or "all built")
PY
echo "== ptxas resource report of the GCM kernels (CI's test_cuda_compile check, sm_90)"
(timeout 300 python3 - > "$OUT/gcm-ptxas.txt" 2>&1 <<'PY'

import sys, tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
sys.path[0:0] = ["tests/support"]

def one(job):
    from cipherspec.registry import Registry
    from generator.ptx.build import schedule_for
    from generator.ptx.source import generate
    from toolchain import nvcc
    from tools import clean_enough
    name, text = job
    m = Registry().module(name)
    src = generate(m, schedule_for(m, text))
    d = Path(tempfile.mkdtemp())
    (d / f"{src.name}.cu").write_text(src.cu)
    (d / f"{src.name}.h").write_text(src.h)
    rep = nvcc.compile_cubin(d / f"{src.name}.cu", "sm_90")
    lines = [f"{src.name}: {len(rep.kernels)} kernels"]
    for k, use in rep.kernels.items():
        ok = clean_enough(src.name, use, k)
        if "gcm" in k or not ok:
            lines.append(f"  {'ok ' if ok else 'BAD'} {k[-60:]}: regs {use.registers} stack {use.stack} spills {use.spill_stores}/{use.spill_loads} local {use.local}")
    return "\n".join(lines)

with ProcessPoolExecutor(3) as ex:
    for out in ex.map(one, [("aes128", None), ("aria128", None), ("lea128", None)]):
        print(out, flush=True)
PY
) &
ptxas_pid=$!
echo "build: $(( $(date +%s) - t0 )) s"
if [ "$what" = check ] || [ "$what" = all ]; then
  echo "== GCM differential tests"
  timeout ${GCM_TEST_TIMEOUT:-200} python3 -m pytest tests/differential/test_cuda_gcm_gpu.py -q -n 8 -p no:cacheprovider \
    2>&1 | tee "$OUT/gcm-tests.log" | tail -12
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer $tool"
    jobs=${GCM_SANITIZE:-lea128:}; [ $tool = memcheck ] && jobs=${GCM_MEMCHECK:-lea128:,aes128:}
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 python3 bench/gpu/gcm_sanitize.py \
      $jobs > "$OUT/gcm-sanitize-$tool.log" 2>&1
    s=$?; echo "$tool exit $s"; grep -E "ERROR SUMMARY|sanitize |RACECHECK SUMMARY|Error" "$OUT/gcm-sanitize-$tool.log" | tail -6
    [ $s = 0 ] || rc=1
  done
  echo "check stage: $(( $(date +%s) - t0 )) s, rc=$rc"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  echo "== GCM vs CTR"
  timeout 170 python3 bench/gpu/gcm_bench.py --out "$OUT" ${GCM_BENCH_ARGS:---ciphers aes128,aria128,lea128,lea128:ilp1_t128} 2>&1 | tee /tmp/gcm-bench.log | tail -12
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  echo "== SASS: instructions per loop trip (bench/gpu/sass.py), CTR vs GCM long"
  timeout 60 python3 - 2>&1 <<'PY' | tee "$OUT/gcm-sass.txt" | tail -16
import subprocess, sys
sys.path[0:0] = ["bench/gpu"]
import sass
from cipherspec.registry import Registry
from generator.ptx.build import schedule_for
from generator.ptx.source import generate
from runtime.cuda_target import source_dir
for name in ("lea128", "aes128", "aria128"):
    m = Registry().module(name)
    src = generate(m, schedule_for(m, None))
    text = subprocess.run(["cuobjdump", "--dump-sass", str(source_dir() / f"lib{src.name}.so")],
                          capture_output=True, text=True).stdout
    funcs = sass.functions(text)
    trips = sass.round_trips(src.cu)
    for needle in ("ctr_ptxILb1", "gcm_long", "gcm_batch"):
        f = sass.ctr_kernel(funcs, "ptx", True) if needle.startswith("ctr_") else sass.pick(funcs, needle)
        if f is None:
            print(name, needle, "not found"); continue
        mix = sass.loop_mix(funcs[f], trips)
        top = ", ".join(f"{k} {v}" for k, v in mix.most_common(12))
        print(f"{name} {needle}: {sum(mix.values())} per trip; {top}", flush=True)
PY
fi
wait $ptxas_pid; echo "== ptxas report"; tail -24 "$OUT/gcm-ptxas.txt"
echo "total: $(( $(date +%s) - t0 )) s, rc=$rc"
exit $rc
