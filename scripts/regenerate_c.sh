#!/usr/bin/env bash
# generated/c: the C backend's default build of every shipped cipher (headers and sources only; the
# .a/.so/.pc that `cipherspec build` also writes are build products and stay out of git, so that the
# CI diff never depends on the compiler's binary output).
#   bash scripts/regenerate_c.sh OUT      (writes OUT/c/include/*.h and OUT/c/src/*.c)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: regenerate_c.sh OUT}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 -c "import sys; from driver.cli import run; sys.exit(run(sys.argv[1:]))" build --all --target c -o "$tmp/c" >/dev/null
rm -rf "$out/c"
mkdir -p "$out/c"
cp -r "$tmp/c/include" "$tmp/c/src" "$out/c/"
