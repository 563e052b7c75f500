#!/usr/bin/env bash
# SPECK-128/128 CTR, the C library exactly as `cipherspec build --spec examples/ciphers/speck.cs speck128_128
# --target c` ships it, against Crypto++ 8.7 (CTR_Mode<SPECK128>), in one process: 64 MiB, one thread,
# every output compared byte for byte with Crypto++'s; writes bench/results/speck-cryptopp.md.
#   bash bench/speck/run.sh [MBYTES=64] [REPS=5]
# Installs its peer if missing (apt: libcrypto++-dev g++).  CIPHERSPEC_LIB_CFLAGS is refused: the library
# must be built with the shipped flags.
set -euo pipefail
cd "$(dirname "$0")/../.."
mb="${1:-64}"; reps="${2:-5}"
if [ -n "${CIPHERSPEC_LIB_CFLAGS:-}" ]; then echo "unset CIPHERSPEC_LIB_CFLAGS: the bench runs the library as shipped" >&2; exit 2; fi
need=()
for p in libcrypto++-dev g++; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
build=(python3 -m driver build --spec examples/ciphers/speck.cs speck128_128 --target c -o "$tmp/lib")
"${build[@]}" | grep -v "^built " > "$tmp/notes.txt"
g++ -O2 -std=c++17 -o "$tmp/bench" bench/speck/speck_vs_cryptopp.cpp -I"$tmp/lib/include" \
  "$tmp/lib/lib/libspeck128_128.a" -lcryptopp
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=$("$tmp/bench" "$mb" "$reps")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
out=bench/results/speck-cryptopp.md
{
  echo "# SPECK-128/128 CTR: cipherspec (C, as shipped) vs Crypto++, one process"
  echo
  echo "\`bash bench/speck/run.sh $mb $reps\` on $(date -u +%Y-%m-%d), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "($(nproc) cores, flags: $(grep -m1 -o -w -E 'avx512f|avx2|vaes|gfni' /proc/cpuinfo | sort -u | tr '\n' ' ' | sed 's/ $//')),"
  echo "gcc $(gcc -dumpfullversion), Crypto++ $(dpkg-query -W -f='${Version}' libcrypto++-dev). Library: \`${build[*]/$tmp\/lib/OUT}\`."
  echo "$mb MiB, one thread, best of $reps repetitions (Crypto++ and each variant alternate within a repetition);"
  echo "key 00..0f, IV f0..ff, input byte i = (i*131 + (i>>8)) & 0xff. Load average before/after: $load_before / $load_after"
  echo "(the machine is shared: read the ratios, not the absolute figures; thread CPU time is what other jobs disturb least)."
  echo
  echo "| implementation | MB/s (wall) | vs Crypto++ | MB/s (thread CPU time) | vs Crypto++ | output equal to Crypto++ |"
  echo "|---|---|---|---|---|---|"
  echo "$rows"
  echo
  echo "Build notes (the layout each ISA variant got, lanes64.py's estimate):"
  echo
  sed 's/^/    /' "$tmp/notes.txt"
} > "$out"
cat "$out"
