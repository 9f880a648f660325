#!/usr/bin/env bash
# GPU: does one run (--passes one) finish on a program that launches and
# copies from several host threads on several streams? (split_vecadd: the
# split runtime's worker pool; it hung there once, issue 13). Runs it plain,
# then under one run with a watchdog; on a hang, every thread's stack of the
# stuck program (gdb when the machine has it, else /proc wchan + kernel stacks).
# usage: bench/overhead/onerun_hang.sh [BUILD_DIR] [RESULT_DIR]   (env LIMIT_S=60)
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/onerun_hang}
LIMIT_S=${LIMIT_S:-30}
mkdir -p "$R"
. scripts/gpu-env.sh
if [ ! -x "$B/examples/split/split_vecadd" ] || [ ! -x "$B/memheat" ]; then
  mh_gpu_build "$B" "$R/build.log" memheat memheat_cuda memheat_cupti split_vecadd || { echo "FAIL build"; exit 1; }
fi
V="$B/examples/split/split_vecadd --runs 2 --no-serial --no-cold"
t0=$(date +%s.%N); $V >"$R/plain.out" 2>&1; rc=$?
echo "plain: exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s"
stacks() { # pid...: every thread's stack
  local dbg=; for d in gdb cuda-gdb /usr/local/cuda/bin/cuda-gdb; do command -v $d >/dev/null && { dbg=$d; break; }; done
  for c in "$@"; do
    echo "== pid $c: $(tr '\0' ' ' </proc/$c/cmdline 2>/dev/null)"
    if [ -n "$dbg" ]; then
      timeout 90 $dbg -p "$c" -batch -ex "set pagination off" -ex "thread apply all bt 30" 2>&1 | grep -E "^(Thread|#)" | head -200
    else
      for t in /proc/$c/task/*; do echo "task ${t##*/}: $(cat $t/wchan 2>/dev/null) $(cat $t/comm)"; done
    fi
  done
}
hung=0
# variants: the whole one run, then with launches or copies not timed (diagnostics of the hook)
for v in ${VARIANTS:-full nocopies nolaunches nothing entry entry_nocopies}; do
  case $v in
    full) env= ;;
    nocopies) env="MEMHEAT_TIMING_COPIES=0" ;;
    nolaunches) env="MEMHEAT_TIMING_LAUNCHES=0" ;;
    nothing) env="MEMHEAT_TIMING_LAUNCHES=0 MEMHEAT_TIMING_COPIES=0" ;;
    entry) env="MEMHEAT_TIMING_START=entry" ;;
    entry_nocopies) env="MEMHEAT_TIMING_START=entry MEMHEAT_TIMING_COPIES=0" ;;
  esac
  t0=$(date +%s.%N)
  env $env "$B/memheat" run --passes one -o "$R/h_$v" -- $V >"$R/one_$v.out" 2>"$R/one_$v.err" &
  pid=$!
  for _ in $(seq 1 "$LIMIT_S"); do kill -0 $pid 2>/dev/null || break; sleep 1; done
  if kill -0 $pid 2>/dev/null; then
    echo "one ($v): HUNG after ${LIMIT_S} s"
    if [ $hung = 0 ]; then stacks $(pgrep -f "^$B/examples/split/split_vecadd") >"$R/stacks.txt" 2>&1; head -c 15000 "$R/stacks.txt"; fi
    hung=1
    kill -9 $pid $(pgrep -f "^$B/examples/split/split_vecadd") 2>/dev/null
    wait $pid 2>/dev/null
    continue
  fi
  wait $pid; rc=$?
  echo "one ($v): exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s"
  grep -E "RESULT|pipelined" "$R/one_$v.out" | head -3 | sed "s/^/  /"
done
grep -E "RESULT|pipelined" "$R/plain.out" | head -3 | sed 's/^/plain /'
exit $hung
