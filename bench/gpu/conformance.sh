#!/usr/bin/env bash
# On the GPU machine: the conformance specs (tests/conformance/*.cs) and the example ciphers
# (examples/ciphers/) on the device against the interpreter, plus their KAT files on --target cuda.
# Logs go to $OUT.    bash bench/gpu/conformance.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1   # on the GPU machine a GPU test that skips is a failure
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/device.txt"
rc=0
python3 -m pytest tests/differential/test_conformance_matrix_gpu.py -q -n 8 -p no:cacheprovider -rx 2>&1 | tee "$OUT/conformance-gpu.log" | tail -30
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
for spec in examples/ciphers/*.cs; do
  python3 -m driver kat "${spec%.cs}.txt" --spec "$spec" --target cuda 2>&1 | tee -a "$OUT/examples-kat.log" | tail -3
done
exit $rc
