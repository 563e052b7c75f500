#!/usr/bin/env bash
# Probe: a kernel compiled in a translation unit of its own (the family object) and launched from another (the
# member's host code), both linked into one shared library; two such libraries in one process, each with its
# own object (TAG 1, 2).  Prints whether each ran its own kernel, and the libraries' exported symbols.
#   bash bench/gpu/probes/two_tu/two_tu.sh [DIR]      (needs a GPU to run; builds anywhere nvcc is)
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out" && cd "$out"
f=(-Xcompiler -fPIC -O3 -std=c++17 -arch=sm_90)
for t in 1 2; do
  nvcc -c "${f[@]}" -DTAG="${t}u" "$src/family.cu" -o "fam$t.o"
  nvcc -c "${f[@]}" -DMEMBER="member$t" "$src/member.cu" -o "mem$t.o"
  nvcc -shared -arch=sm_90 -o "libm$t.so" "mem$t.o" "fam$t.o"
done
echo "exported by libm1.so: $(nm -D --defined-only libm1.so | awk '$2 == "T" {print $3}' | tr '\n' ' ')"
echo "fam_kernel's host stub in libm1.so: $(nm libm1.so | grep -c ' t _ZN6cs_fam10fam_kernel') local, $(nm -D libm1.so | grep -c fam_kernel) exported"
g++ -O2 -o main "$src/main.cpp" -ldl
[ "${TWO_TU_BUILD_ONLY:-0}" = 1 ] || ./main
