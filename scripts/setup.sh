#!/usr/bin/env bash
# Installs what cipherspec needs on a fresh Debian machine (idempotent): toolchains from apt, the package from pip.
#   bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential pkg-config openssl       # host C compiler, pkg-config, the openssl CLI
  libssl-dev                               # OpenSSL 3 headers and libcrypto: --target openssl-provider
  clang lld llvm                           # clang for aarch64 cross builds, llvm-mca
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user   # NEON kernels built and run under QEMU
  gcc-s390x-linux-gnu libc6-dev-s390x-cross                # big-endian: the C libraries under qemu-s390x (cipherspec test)
  llvm-19                                  # llvm-mca with neoverse-v2/n1 models (bench/neon)
  valgrind                                 # memcheck proves the C libraries constant-time (tests/differential/test_c_constant_time.py)
  libclang-rt-14-dev libcrypto++-dev libgcrypt20-dev   # the AEAD fuzzer: libFuzzer, and the peers it compares with
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -e '.[dev]'   # dev extras: pytest, mypy, ruff, mkdocs (the manual), wheel (the wheel check)
if ! command -v nvcc >/dev/null 2>&1; then    # CUDA kernels are compiled (not run) in CI: nvcc from PyPI
  python3 -m pip install -q --disable-pip-version-check nvidia-cuda-nvcc || echo "setup: no nvcc (CUDA compile tests will fail)"
fi
echo "setup: ok"
