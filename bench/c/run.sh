#!/usr/bin/env bash
# Host benchmark of the portable C backend against Crypto++ 8.7 and OpenSSL 3, in one run.
#   bash bench/c/run.sh [--mb 64] [--reps 3] [--only REGEX]
# Installs its own peers (apt libcrypto++-dev libssl-dev g++, pip matplotlib), builds bench/c/peers,
# then runs bench/c/bench.py, which writes bench/results/c-host.{md,json,png}.
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
for p in libcrypto++-dev libssl-dev g++; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
python3 -c "import matplotlib" 2>/dev/null || python3 -m pip install -q --disable-pip-version-check matplotlib
g++ -O2 -std=c++17 -o bench/c/peers bench/c/peers.cpp -lcryptopp -lcrypto
python3 bench/c/bench.py "$@"
