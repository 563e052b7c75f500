#!/usr/bin/env bash
# On the GPU machine: a device A/B of two generator trees on CTR, ECB and the fused GCM routes, the libraries exactly
# as `cipherspec build` makes them, loaded side by side in one process (bench/gpu/ctr_ab.py, gcm_fused_ab.py), every
# output checked against the C library; then each library's per-kernel registers (cuobjdump -res-usage).
#   bash bench/gpu/keyorder.sh base=.ab/base new=.          (an arm: NAME=TREE, a checkout or a `git archive`)
# Made for keyorder.py (the derived round-key words in the round loops' order: every kernel's round-key offsets
# change, its code should not), it A/Bs any two trees.  AB_CIPHERS (default aes128,aes256,aria128) picks the ciphers;
# AB_SCRIPTS (default "ctr_ab gcm_fused_ab") the bench/gpu A/B scripts that run (gcm_family.sh adds gcm_tc_ab).
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
. bench/gpu/arms.sh
cs_ab_start aes128,aes256,aria128
for spec in "$@"; do cs_build_arm "${spec%%=*}" "$(cd "${spec#*=}" && pwd)" "$CIPHERS"; done
wait
ls "$OUT"/arms/* > "$OUT/arms.txt"
for script in ${AB_SCRIPTS:-ctr_ab gcm_fused_ab}; do  # (CTR and ECB; the fused GCM routes)
  echo "== $script, arm against arm"
  python3 "bench/gpu/$script.py" "${CS_ARMS[@]}" --ciphers "$CIPHERS" --out "$OUT" 2>&1 | tee "$OUT/$script.log" | tail -24
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
for name in "$OUT"/arms/*/; do cs_res_usage "$name"lib*.so > "${name%/}.res-usage.txt" 2>&1; done
rm -f "$OUT"/arms/*/*.so "$OUT"/arms/*/*.cu "$OUT"/arms/*/*.h  # (the figures and logs come back, not the libraries)
exit $rc
