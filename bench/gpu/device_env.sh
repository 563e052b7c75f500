# Sourced by the bench/gpu/*.sh scripts on the GPU machine (from the repository root): the carried lark wheel
# (not on the device image) into /tmp/site, prebuilt libraries from a carried .cs-cache (or .cs-cache.tar.xz,
# unpacked once), this checkout on PYTHONPATH.       . bench/gpu/device_env.sh
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site
fi
[ -f .cs-cache.tar.xz ] && [ ! -d .cs-cache ] && tar xJf .cs-cache.tar.xz
[ -d .cs-cache ] && export CIPHERSPEC_CACHE=${CIPHERSPEC_CACHE:-$PWD/.cs-cache}  # prebuilt libraries, carried
export PYTHONPATH=$PWD:${PYTHONPATH:-} PYTHONUNBUFFERED=1 CIPHERSPEC_CACHE=${CIPHERSPEC_CACHE:-/tmp/cs-cache}
# The common start of a device script (after sourcing this file): $OUT made, the GPU tests told to fail rather than
# skip, the device's line in $OUT/device.txt.       cs_gpu_start
cs_gpu_start() {
  OUT=${OUT:-/tmp/cipherspec-gpu}; mkdir -p "$OUT"
  export OUT CIPHERSPEC_REQUIRE_GPU=1
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
}
# Registers and stack per kernel of each library named (cuobjdump -res-usage), kernel names cut to what follows the
# schedule's "_tNNN_" (threads a CTA).       cs_res_usage LIB.so ... > res-usage.txt
cs_res_usage() {
  local lib
  for lib in "$@"; do
    echo "# $lib"; cuobjdump -res-usage "$lib" 2>&1 | grep -A1 "Function" | sed -E 's/.*_t[0-9]+_([a-z_]+)E.*/\1/; s/ SHARED.*//'
  done
}
