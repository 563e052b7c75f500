#!/usr/bin/env bash
# On the GPU machine: the runs a session leaves pending, one part per device call, results in $OUT/<part>.tgz
# (the device returns a few files only).  Build the libraries on the CPU machine first and carry them packed:
#   CIPHERSPEC_CACHE=$PWD/.cs-cache python3 bench/gpu/prebuild.py [--layouts]
#   tar cJf .cs-cache.tar.xz .cs-cache        (then carry .whl .vectors .cs-cache.tar.xz)
#   bash bench/gpu/pending.sh check     run.sh check (differential tests, KATs, memcheck/racecheck) + conformance.sh
#   bash bench/gpu/pending.sh profile   one ncu profile of each shipped default (generator/ptx/tuned.json), and
#                                       the benchmark of SCHEDULES (bench.py --schedules, stage 2 off)
set -uo pipefail
cd "$(dirname "$0")/../.."
part=${1:?check or profile}
OUT=${OUT:-/tmp/cipherspec-gpu}; R=$OUT/$part; mkdir -p "$R"
rc=0
t0=$(date +%s)
case $part in
  check)
    OUT=$R bash bench/gpu/run.sh check 2>&1 | tee "$R/run-check.txt" | tail -40; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
    OUT=$R bash bench/gpu/conformance.sh 2>&1 | tee "$R/conformance.txt" | tail -30; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
    ;;
  profile)
    . bench/gpu/device_env.sh
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv | tee "$R/device.txt"
    python3 bench/gpu/profile.py generator/ptx/tuned.json "$R" 2>&1 | tee "$R/profile.txt" | tail -80
    if [ -n "${SCHEDULES:-}" ]; then
      python3 bench/gpu/bench.py --out "$R" --schedules "$SCHEDULES" --stage2 0 --reps 3 --batches 2 --workers 16 2>&1 \
        | tee "$R/bench.log" | tail -30
      [ "${PIPESTATUS[0]}" = 0 ] || rc=1
    fi
    ;;
  *) echo "pending.sh: unknown part '$part' (check or profile)" >&2; exit 2 ;;
esac
echo "$part: $(( $(date +%s) - t0 )) s, rc=$rc" | tee "$R/summary.txt"
tar czf "$OUT/$part.tgz" -C "$OUT" "$part"
exit $rc
