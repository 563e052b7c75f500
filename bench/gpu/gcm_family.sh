#!/usr/bin/env bash
# On the GPU machine: the family GCM object (generator/ptx/source.py's parts: a lane layout's GCM kernels compiled
# once for a spec family and linked into each member's library) against a tree without it, the libraries exactly as
# `cipherspec build` makes them, loaded side by side in one process, every output checked against the C library:
# CTR and ECB (ctr_ab.py: the round keys' head words move every kernel's offsets), the GCM routes hashed on the
# tensor cores (gcm_tc_ab.py) and the fused ones (gcm_fused_ab.py); then each library's per-kernel registers.
#   bash bench/gpu/gcm_family.sh base=.ab/base family=.        (an arm: NAME=TREE, a checkout or a `git archive`)
# AB_CIPHERS (default aes128,aes256,aria128) picks the ciphers.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
. bench/gpu/arms.sh
cs_ab_start aes128,aes256,aria128
for spec in "$@"; do cs_build_arm "${spec%%=*}" "$(cd "${spec#*=}" && pwd)" "$CIPHERS"; done
wait
ls "$OUT"/arms/* > "$OUT/arms.txt"
for script in ctr_ab gcm_tc_ab gcm_fused_ab; do
  echo "== $script, arm against arm"
  python3 "bench/gpu/$script.py" "${CS_ARMS[@]}" --ciphers "$CIPHERS" --out "$OUT" 2>&1 | tee "$OUT/$script.log" | tail -24
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
for name in "$OUT"/arms/*/; do cs_res_usage "$name"lib*.so > "${name%/}.res-usage.txt" 2>&1; done
rm -f "$OUT"/arms/*/*.so "$OUT"/arms/*/*.cu "$OUT"/arms/*/*.h  # (the figures and logs come back, not the libraries)
exit $rc
