#!/usr/bin/env bash
# The lead's device round on two GPUs in ONE bounded call, from the repository root: three device scripts, the
# first on GPU 0 and the second on GPU 1 at the same time, then the third on both; each under its own time bound;
# every file the scripts write is packed into $OUT/round.tgz (the device returns only a few files), and each
# script's printed tail is shown.
#   run(command="bash bench/gpu/round.sh 'bash bench/gpu/ariaroof.sh' 'bash bench/gpu/gcm_batch.sh' \
#                'bash bench/gpu/drbg_multi.sh'", kind="nvidia-h200-x2")
# Bounds (seconds) from ROUND_T0 / ROUND_T1 / ROUND_T2 (default 330 / 330 / 240). An empty command skips its slot.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-round}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export CIPHERSPEC_REQUIRE_GPU=1
if [ -d .vectors ] && [ ! -e ../shared/vectors ]; then mkdir -p ../shared && ln -s "$PWD/.vectors" ../shared/vectors; fi
t0=$(date +%s)
slot() {  # slot NAME GPUS BOUND COMMAND
  local name=$1 gpus=$2 bound=$3 cmd=$4
  [ -n "$cmd" ] || return 0
  local dir=$OUT/$name
  mkdir -p "$dir"
  ( export CUDA_VISIBLE_DEVICES=$gpus OUT=$dir
    timeout "$bound" bash -c "$cmd" > "$dir/stdout.log" 2>&1
    echo "rc $? after $(( $(date +%s) - t0 )) s" >> "$dir/stdout.log" )
}
slot gpu0 0 "${ROUND_T0:-330}" "${1:-}" & a=$!
slot gpu1 1 "${ROUND_T1:-330}" "${2:-}" & b=$!
wait $a; wait $b
echo "== parallel part done: $(( $(date +%s) - t0 )) s"
slot both 0,1 "${ROUND_T2:-240}" "${3:-}"
tar czf "$OUT/round.tgz" -C "$OUT" --exclude=round.tgz . 2>/dev/null
for s in gpu0 gpu1 both; do
  [ -f "$OUT/$s/stdout.log" ] || continue
  echo "== $s: $(tail -n 1 "$OUT/$s/stdout.log")"
  tail -n 45 "$OUT/$s/stdout.log" | cut -c1-240
done
echo "round: $(( $(date +%s) - t0 )) s"
