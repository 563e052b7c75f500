#!/usr/bin/env bash
# The AEAD differential fuzzer for as long as you like (CI runs it for seconds: tests/differential/test_aead_fuzz.py):
# the generated libraries' GCM/CCM/XTS/CMAC against OpenSSL 3, libgcrypt and Crypto++ (tests/data/aead_fuzz.cc).
#   bash bench/fuzz/aead.sh [SECONDS (default 3600)] [WORKDIR (default /tmp/cipherspec-fuzz)]
# The corpus stays in WORKDIR/corpus between runs; a disagreement stops the run and leaves WORKDIR/crash-* (rerun it:
# WORKDIR/aead_fuzz WORKDIR/crash-...).  Needs: clang, libclang-rt-14-dev, libcrypto++-dev, libgcrypt20-dev, libssl-dev.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs="${1:-3600}"; work="${2:-/tmp/cipherspec-fuzz}"
mkdir -p "$work/corpus"
exe=$(python3 -c "
import sys; sys.path.insert(0, 'tests/support')
from pathlib import Path
from aead_fuzz import build_fuzzer, missing_tools
why = missing_tools()
if why: sys.exit('bench/fuzz: missing ' + why)
print(build_fuzzer(Path('$work')))")
jobs=$(nproc)
echo "fuzzing for ${secs}s with $jobs jobs: $exe"
"$exe" -max_total_time="$secs" -max_len=4096 -jobs="$jobs" -workers="$jobs" -artifact_prefix="$work/" "$work/corpus"
