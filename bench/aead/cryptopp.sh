#!/usr/bin/env bash
# GCM of the generated libraries (as `cipherspec build --target c` ships them) vs Crypto++ 8.7's GCM<LEA> and
# GCM<ARIA> in one process (bench/aead/cryptopp_gcm.cc); needs libcrypto++-dev.
#   bash bench/aead/cryptopp.sh [MiB (default 64)] [REPS (default 7)]
set -euo pipefail
cd "$(dirname "$0")/../.."
mib="${1:-64}"; reps="${2:-7}"; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 -m driver build lea128 aria128 --target c -o "$work/lib" >/dev/null
for pair in "lea128 CryptoPP::LEA" "aria128 CryptoPP::ARIA"; do
  set -- $pair
  g++ -std=c++17 -O2 -DCS_P="$1" -DCS_NAME="\"$1\"" -DCS_PEER="$2" -DCS_HEADER="\"$1.h\"" -I"$work/lib/include" \
    bench/aead/cryptopp_gcm.cc "$work/lib/lib/lib$1.a" -lcryptopp -o "$work/gcm-$1"
  "$work/gcm-$1" "$mib" "$reps"
done
