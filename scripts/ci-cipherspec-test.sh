#!/usr/bin/env bash
# A CI job for a project that ships its own cipher specs: every target this machine has against the
# interpreter, JUnit for the CI system.  Exit 0: all passed; 1: a kernel differs (the log has the command
# that reruns that case, and the first IR value that differs with its spec location); 2: bad input or a
# required tool missing.  Any CI runs it: a Debian image, a checkout, then `bash ci-cipherspec-test.sh SPEC...`.
set -euo pipefail
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  build-essential python3-pip valgrind libssl-dev \
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user >/dev/null
python3 -m pip install -q "${CIPHERSPEC_SRC:-./cipherspec}"   # a checkout of cipherspec (or a wheel built from one)
export CIPHERSPEC_CACHE="${CIPHERSPEC_CACHE:-$PWD/.cipherspec-cache}"   # cache this directory between runs
cipherspec test "${@:-specs/*.cs}" \
  --require c c-memcheck neon c-aarch64 c-s390x openssl-provider \
  --seed "${CIPHERSPEC_SEED:-1}" --junit cipherspec-junit.xml
