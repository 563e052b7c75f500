#!/usr/bin/env bash
# `openssl speed -evp` through the cipherspec OpenSSL provider vs OpenSSL's own ARIA/AES, and the
# provider's overhead over the library called directly (bench/openssl/direct.c).
#   bash bench/openssl/run.sh [--ciphers lea128 aria128 ...] [--schedule S] [--seconds 2] [--repeats 3] [--suffix NAME]
# Writes bench/results/openssl-provider[-NAME].{md,json}.  Needs openssl, libssl-dev, pkg-config, cc
# (bash scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 bench/openssl/bench.py "$@"
