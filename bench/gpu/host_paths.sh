#!/usr/bin/env bash
# On the GPU machine: the host paths of two generator trees' libraries (bench/gpu/host_paths.cu), side by side in
# one process, each cipher's two libraries exactly as `cipherspec build` makes them: set_key, a 64-byte CTR call,
# GCM's set_key and a 256-byte message, a multi-key CTR call and a GCM batch of 4,096 small messages, every output
# equal between the two.  Made for the host code at -O1 (branch host-o1: CS_HOST_O3), it A/Bs any two trees.
#   bash bench/gpu/host_paths.sh base=.ab/old new=.        -> $OUT/host-paths.jsonl (one line an op and cipher)
# AB_CIPHERS (default aes128,aria128,lea128) picks the ciphers; HP_ROUNDS (default 15) the rounds an op.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/gpu/device_env.sh
. bench/gpu/arms.sh
cs_ab_start aes128,aria128,lea128
[ $# = 2 ] || { echo "usage: host_paths.sh A=TREE B=TREE" >&2; exit 2; }
for spec in "$@"; do cs_build_arm "${spec%%=*}" "$(cd "${spec#*=}" && pwd)" "$CIPHERS"; done
wait
A=$OUT/arms/${1%%=*} B=$OUT/arms/${2%%=*}
: > "$OUT/host-paths.jsonl"
for so in "$A"/lib*.so; do
  lib=$(basename "$so") name=${lib#lib}; name=${name%.so}
  [ -f "$B/$lib" ] || { echo "$lib: not in $B" >&2; rc=1; continue; }
  P=cs_$(echo "$name" | tr -- '-' '_')
  keylen=$(sed -n 's/^#define CS_[A-Z0-9_]*_KEY_BYTES \([0-9]*\)$/\1/p' "$A/$name.h")
  nvcc -O2 -std=c++17 -DP="$P" -include "$A/$name.h" -o "$OUT/hp-$name" bench/gpu/host_paths.cu -ldl || { rc=1; continue; }
  "$OUT/hp-$name" "$so" "$B/$lib" "${HP_ROUNDS:-15}" "$keylen" | sed "s/^{/{\"lib\": \"$name\", /" \
    | tee -a "$OUT/host-paths.jsonl" || rc=1
done
rm -f "$OUT"/arms/*/*.so "$OUT"/arms/*/*.cu "$OUT"/arms/*/*.h "$OUT"/hp-*
exit $rc
