#!/usr/bin/env bash
# On the GPU machine (from the repository root): set_key's derived words in row loops (deriveloop.py) against the
# straight form (CIPHERSPEC_PTX_DERIVE=v1) where the GPU runs them -- the multi-key key schedule of CTR_DRBG bulk
# (P_key_schedule_multi: each request's key expanded and its planes derived on the device).  ARIA-128
# and AES-256 (AES-128: an earlier round), each arm in its own build cache and process: the phases'
# "key schedule" GPU time at 128 MiB and 1 GiB, and every output == the C DRBG (drbg_multi.py verifies).  Then the
# DRBG GPU tests of AES-128 / ARIA-128 / AES-256 on the default (looped) build.  DERIVE_ROUNDS (default "1 2"): the
# rounds of arms.  ~5 minutes with nothing prebuilt.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
OUT=${OUT:-/tmp/cipherspec-deriveloop}; mkdir -p "$OUT"
nvidia-smi --query-gpu=index,name --format=csv > "$OUT/device.txt"; git log --oneline -1 >> "$OUT/device.txt" 2>/dev/null
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
build() {  # $1: arm name, env assignments after it
  local arm=$1; shift
  env "$@" CIPHERSPEC_CACHE=/tmp/dl-$arm timeout 200 python3 - <<'PY'
import sys; sys.path.insert(0, "bench/gpu")
from bench import build_all
from cipherspec.registry import Registry
from generator.c import BACKEND as C
print(build_all([("aria128", None), ("aes256", None), ("aes128", None)], 2)); [C.load(Registry(), n, None, None) for n in ("aes128", "aria128", "aes256")]
PY
}
stage "build: looped (default) and straight (CIPHERSPEC_PTX_DERIVE=v1), side by side"
build loop > "$OUT/build-loop.log" 2>&1 &
build straight CIPHERSPEC_PTX_DERIVE=v1 > "$OUT/build-straight.log" 2>&1
wait || rc=1
tail -2 "$OUT/build-loop.log" "$OUT/build-straight.log"
for round in ${DERIVE_ROUNDS:-1 2}; do
  for arm in loop straight; do
    stage "round $round, $arm: AES-128, ARIA-128, AES-256 DRBG bulk from a plan, 128 MiB and 1 GiB, one GPU, phases"
    sw=$([ $arm = straight ] && echo CIPHERSPEC_PTX_DERIVE=v1 || echo DERIVE_ARM=loop)
    env $sw CIPHERSPEC_CACHE=/tmp/dl-$arm CUDA_VISIBLE_DEVICES=0 timeout 150 python3 bench/gpu/drbg_multi.py \
      --out "$OUT/$arm-$round" --ciphers aria128,aes256 --mib 128,1024 --reps 3 --phase-reps 5 \
      > "$OUT/$arm-$round.log" 2>&1 || { echo "($arm round $round: rc $?)"; rc=1; }
    grep -E "^(aes128|aria128|aes256) " "$OUT/$arm-$round.log" | head -8
  done
done
stage "GPU tests: AES-128 / ARIA-128 / AES-256 DRBG == the C DRBG (the looped build)"
CIPHERSPEC_CACHE=/tmp/dl-loop timeout 150 python3 -m pytest tests/differential/test_cuda_drbg_gpu.py -k "aes128 or aes256 or aria128" \
  -q -p no:cacheprovider -n 2 2>&1 | tee "$OUT/tests.log" | tail -3
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
stage "done rc=$rc"
exit $rc
