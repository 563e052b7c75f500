#!/usr/bin/env bash
# GCM vs CTR of the same generated C library (bench/aead/gcm_vs_ctr.c), one process per measurement:
# per cipher, 64 MiB as one message and as 16 KiB records.  With BASE=<another checkout> the same is
# built from there too and the two libraries run alternately (A/B in one session).  CS_GCM_API=keyctx in
# the environment times GCM through a key context (per record gcm_init_key/aad/encrypt_update/finish).
#     bash bench/aead/gcm_vs_ctr.sh [REPS] [CIPHER ...]      (default: 7 aes128 aria128 lea128)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${1:-7}
shift || true
ciphers=("${@:-aes128 aria128 lea128}")
read -r -a ciphers <<<"${ciphers[*]}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A evp=([aes128]='-DCS_EVP="AES-128-GCM"' [aria128]='-DCS_EVP="ARIA-128-GCM"')
trees=("this:$PWD")
[ -n "${BASE:-}" ] && trees+=("base:$BASE")
echo "# $(date -u '+%F %H:%M') load $(cut -d' ' -f1-3 /proc/loadavg); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); GCM API ${CS_GCM_API:-oneshot}"
for c in "${ciphers[@]}"; do
    for t in "${trees[@]}"; do
        name=${t%%:*} dir=${t#*:}
        (cd "$dir" && python3 -m driver build "$c" --target c -o "$tmp/$name-$c" >/dev/null)
        extra=${evp[$c]:-}
        cc -O2 -std=c99 -D_POSIX_C_SOURCE=199309L -DCS_P="$c" -DCS_PU="${c^^}" ${extra:+"$extra"} -I "$tmp/$name-$c/include" \
            -include "$c.h" bench/aead/gcm_vs_ctr.c "$tmp/$name-$c/lib/lib$c.a" ${extra:+-lcrypto} -o "$tmp/$name-$c.exe"
    done
    for rec in 0 16384; do
        for t in "${trees[@]}"; do
            name=${t%%:*}
            printf '%s %-8s %-9s ' "$name" "$c" "$([ $rec = 0 ] && echo 64MiB || echo 16KiB-rec)"
            "$tmp/$name-$c.exe" $((64 << 20)) "$reps" "$rec" | grep -E '^(gcm|ctr|ratio_best|ratio_median) ' | tr '\n' ' '
            echo
        done
    done
done
