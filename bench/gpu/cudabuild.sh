#!/usr/bin/env bash
# On the GPU machine (1 GPU, nvcc; from the repository root): the cudabuild branch's change on the device.  That
# change moves a lane layout's derived key words (keysplit.py) into a __noinline__ device function of their own
# (generator/ptx/templates/key.cu.j2): the only kernel whose SASS changes is P_key_schedule_multi (the multi-key
# CTR's and CTR_DRBG bulk's device key schedules; every other kernel's SASS is identical, checked with cuobjdump on
# AES-128 and PRESENT-80).  This times the PRESENT-80 example's build from an empty cache on this machine's CPUs,
# runs the GPU tests that use that kernel (DRBG bulk == the C DRBG), then DRBG bulk at 128 MiB
# (bench/gpu/drbg_multi.py: AES-128 and ARIA-128 have derived words, LEA-128 none: the control), to compare with
# main's figures in bench/results/drbg-*.md.  Results in $OUT; ~4 minutes.
#   bash bench/gpu/cudabuild.sh            (the lead carries .whl/ as for bench/gpu/run.sh)
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
cs_gpu_start
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }

stage "build time, empty cache (CPU = user+sys of the whole tree; this machine's cores)"
timeout 150 python3 bench/cuda/build_time.py --spec examples/ciphers/present.cs --json "$OUT/build_time.jsonl" \
  2>&1 | tee "$OUT/build_time.log" | tail -2 || rc=1

stage "GPU tests: DRBG bulk == the C DRBG (its key schedules run on the device; HIGHT's SWAR layout derives words too)"
timeout 120 python3 -m pytest tests/differential/test_cuda_drbg_gpu.py tests/differential/test_cuda_multigpu_gpu.py \
  -k "drbg and (lea128 or aes128 or aria128 or hight)" -q -p no:cacheprovider -n 2 2>&1 | tee "$OUT/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

stage "benchmark: DRBG bulk 128 MiB, 1 GPU (device key schedules per request)"
timeout 90 python3 bench/gpu/drbg_multi.py --out "$OUT" --ciphers lea128,aes128,aria128 --mib 128 > "$OUT/bench.log" 2>&1 || rc=1
tail -30 "$OUT/bench.log"
stage "done (rc $rc)"
exit $rc
