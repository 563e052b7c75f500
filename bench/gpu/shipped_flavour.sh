#!/usr/bin/env bash
# Issue 25's build-time branch on a GPU (< 4 min): the one-flavour libraries `cipherspec build --target cuda`
# ships (SPECK, SM4, PRESENT examples) against the C library, their CS_EFLAVOUR refusal of the other flavour,
# and their CTR keystream rate beside the runtime's two-flavour build of the same source.
#   run(command="bash bench/gpu/shipped_flavour.sh")        -> $OUT/shipped-*.json, $OUT/shipped.log
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/shipped-flavour}
mkdir -p "$OUT"
rc=0
for ex in speck:speck128_128 sm4:sm4 present:present80; do
  python3 bench/gpu/shipped_flavour.py "$OUT" "examples/ciphers/${ex%%:*}.cs" "${ex#*:}" 2>&1 | tee -a "$OUT/shipped.log" | tail -1
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
exit $rc
