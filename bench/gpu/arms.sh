# Sourced by the device A/B scripts (ariaroof.sh, nearinv.sh) after device_env.sh: the steps they share.
#   cs_defaults_are LIST        LIST (CIPHER:PARAMS,...) are the ciphers' default schedules (exit status 1 if not)
#   cs_c_libraries LIST         the C libraries of LIST's ciphers (what bs_check.py compares with)
#   cs_time_arms R GROUP ARM..  one clockwatch.py process an arm (codegen at once, GPU work in turn under a lock):
#                               each arm's 256 MiB digests into R/same.txt, then its 1 GiB CTR keystream timed;
#                               GROUP: a command mapping a cipher to its digest group (echo it: `cs_group_self`);
#                               then R/same.log (distinct digests per group) and R/summary.md; status 1 on a failure
#                               or on arms of a group that differ
#   cs_ab_start LIST            cs_gpu_start; CIPHERS: AB_CIPHERS, else LIST; rc=0 (the A/B scripts' start)
#   cs_build_arm NAME TREE LIST `cipherspec build` of LIST's ciphers in TREE (a checkout or an export), in the
#                               background, into $OUT/arms/NAME (log: $OUT/arms/NAME.log); appends
#                               --arm NAME=$OUT/arms/NAME to CS_ARMS (ctr_ab.py's, gcm_fused_ab.py's); then `wait`
#   cs_ncu_init R; cs_prof R TAG CIPHER SCHEDULE    Nsight Compute on the CTR kernel (one 64 MiB launch): warp
#                               states, scheduler and instruction stats, launch and occupancy, and the i-cache
#                               counters this ncu lists -> R/ncu-TAG.txt, its main lines on stdout
CS_ARMS=()
cs_ab_start() {  # DEFAULT_CIPHERS: the device line, CIPHERS (AB_CIPHERS or the default), rc=0
  cs_gpu_start
  CIPHERS=${AB_CIPHERS:-$1}
  rc=0
}
cs_build_arm() {
  local name=$1 tree=$2
  mkdir -p "$OUT/arms/$name"
  ( cd "$tree" && CIPHERSPEC_CACHE=/tmp/cache-$name PYTHONPATH=$tree:${PYTHONPATH#*:} python3 -m driver build \
      ${3//,/ } --target cuda -o "$OUT/arms/$name" > "$OUT/arms/$name.log" 2>&1; echo "$name build rc $?" ) &
  CS_ARMS+=(--arm "$name=$OUT/arms/$name")
}
cs_defaults_are() {
  python3 - "$1" <<'PY'
import sys
sys.path.insert(0, "bench/gpu")
from bench import registry
from generator.ptx.build import schedule_for
reg = registry()
for arm in sys.argv[1].split(","):
    n, s = arm.split(":", 1)
    got = schedule_for(reg.module(n), None).name(reg.module(n)).split("_cuda_ctr_", 1)[1]
    assert got == s, (n, got, s)
PY
}
cs_c_libraries() {
  python3 - ${1//,/ } <<'PY'
import os, sys
sys.path.insert(0, ".")
from cipherspec.registry import Registry
from driver.targets import make_cipher
reg = Registry(extra=[p for p in os.environ["CIPHERSPEC_BENCH_SPECS"].split(os.pathsep) if p])
for arm in sys.argv[1:]:
    make_cipher(reg, arm.split(":")[0], None, "c")
PY
}
cs_group_self() { echo "$1"; }
cs_time_arms() {
  local R=$1 group=$2 arm n=0 p ok=0 pids=()
  shift 2
  local LOCK="$R/gpu.lock"; : > "$LOCK"
  for arm in "$@"; do
    python3 bench/gpu/clockwatch.py --lock "$LOCK" --same "$R/same.txt" --same-group "$($group "${arm%%:*}")" \
      --out "$R/clock-$n" --reps 120 --batches 2 "$arm" > "$R/clock-$n.log" 2>&1 & pids+=($!); n=$((n + 1))
  done
  for p in "${pids[@]}"; do wait "$p" || ok=1; done
  cat "$R"/clock-*.log >> "$R/clockwatch.log"; cat "$R/clockwatch.log"
  echo "== 256 MiB keystream + 32 MiB XOR (a 32-bit counter wrap inside), per cipher: distinct digests (1 = all arms equal)"
  awk '{ k = $1 SUBSEP $3 " " $4; if (!(k in seen)) { seen[k] = 1; n[$1]++ } a[$1] = a[$1] " " $2 }
       END { for (c in n) print c ": " n[c] (n[c] == 1 ? " (equal)" : " DIFFER") ":" a[c] }' \
    "$R/same.txt" | tee "$R/same.log"
  grep -q DIFFER "$R/same.log" && ok=1
  {
    echo "| arm | schedule | Gbps | SASS/block | % roof (boost) | SM MHz median (min) |"
    echo "|---|---|---:|---:|---:|---:|"
    python3 - "$R"/clock-*/clockwatch.json <<'PY'
import json, sys
for path in sorted(sys.argv[1:], key=lambda p: int(p.split("/")[-2].replace("clock-", ""))):
    arm = path.split("/")[-2].replace("clock-", "")  # (the arm's number in the order started)
    for r in json.load(open(path)):
        print(f"| {arm} | `{r['schedule']}` | {r['gbps']:,.0f} | {r['sass_per_block']:.1f} | {r['pct_roof_boost']:.1f}% | "
              f"{r.get('mhz_median', 0):.0f} ({r.get('mhz_min', 0):.0f}) |")
PY
  } | tee "$R/summary.md"
  return $ok
}
command -v flock >/dev/null || flock() { shift; "$@"; }  # (no util-linux: unlocked)
CS_NCU_METRICS="sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active"
CS_NCU_METRICS="$CS_NCU_METRICS,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$"
CS_ICC=""
cs_ncu_init() {  # the i-cache counters this ncu knows (names vary by version)
  command -v ncu >/dev/null || return 0
  timeout 20 ncu --query-metrics > "$1/ncu-query.txt" 2>&1
  CS_ICC=$(grep -oiE "^(sm|smsp)__[a-z0-9_]*(icc|icache|l0i|l1i)[a-z0-9_]*" "$1/ncu-query.txt" \
    | grep -viE "rate|pct|ratio|per_" | sort -u | head -12 | sed 's/$/.sum/' | paste -sd, -)
  echo "i-cache metrics found: ${CS_ICC:-none}"
}
cs_ncu_run() {  # out file, metrics, CIPHER, SCHEDULE
  timeout 60 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --section LaunchStats --section Occupancy --metrics "$2" --kernel-name "regex:_ctr_ptx$" --launch-count 1 \
    python3 bench/gpu/profile.py --launch "$3" "$4" > "$1" 2>&1
}
cs_prof() {  # R, file tag, CIPHER, SCHEDULE
  local f="$1/ncu-$2.txt"
  command -v ncu >/dev/null || return 0
  cs_ncu_run "$f" "$CS_NCU_METRICS${CS_ICC:+,$CS_ICC}" "$3" "$4"
  if ! grep -q "Warp Cycles Per Issued" "$f" && [ -n "$CS_ICC" ]; then  # ncu refused an i-cache counter: without them
    mv "$f" "$1/ncu-$2-refused.txt"
    cs_ncu_run "$f" "$CS_NCU_METRICS" "$3" "$4"
  fi
  grep -E "issue_stalled|issue_active|Issued Warp|Eligible Warps|Active Warps|pipe_alu|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|icc|icache|l0i|l1i" "$f" \
    | awk '$NF+0 >= 0.05 || !/issue_stalled/' | sed "s/^/ncu $2: /"
}
