#!/usr/bin/env bash
# On the GPU machine: a device A/B of gcm.cu.j2 variants on the fused GCM routes (bench/gpu/gcm_fused_ab.py), with
# the libraries exactly as `cipherspec build` makes them, then the GCM GPU tests on this checkout.
#   bash bench/gpu/gcmfused.sh base=.ab/gcm-base.cu.j2 new=-        (an arm: NAME=TEMPLATE, "-" = this checkout's)
# Each arm is a copy of this checkout with generator/ptx/templates/gcm.cu.j2 replaced by its template, built
# (AB_CIPHERS, default aes128,aria128,lea128) into $OUT/arms/NAME, all arms at once.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
. bench/gpu/arms.sh
cs_ab_start aes128,aria128,lea128
for spec in "$@"; do
  name=${spec%%=*}; tpl=${spec#*=}
  tree=/tmp/arm-$name
  rm -rf "$tree"; mkdir -p "$tree"
  tar --exclude=./generated --exclude=./bench/results --exclude=./.git --exclude=./.cs-cache -cf - . | tar -xf - -C "$tree"
  [ "$tpl" = - ] || cp "$tpl" "$tree/generator/ptx/templates/gcm.cu.j2"
  cs_build_arm "$name" "$tree" "$CIPHERS"
done
echo "== GCM GPU tests (this checkout)"
python3 -m pytest tests/differential/test_cuda_gcm_gpu.py -q -n 8 -p no:cacheprovider 2>&1 | tee "$OUT/gcm-tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
wait
echo "== the fused routes, arm against arm"
python3 bench/gpu/gcm_fused_ab.py "${CS_ARMS[@]}" --ciphers "$CIPHERS" --out "$OUT" 2>&1 | tee "$OUT/gcm-fused-ab.log" | tail -20
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
for name in "$OUT"/arms/*/; do cs_res_usage "$name"lib*.so > "${name%/}.res-usage.txt" 2>&1; done
rm -f "$OUT"/arms/*/*.so  # (the figures and logs come back, not the libraries)
exit $rc
