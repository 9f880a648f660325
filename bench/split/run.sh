#!/usr/bin/env bash
# bench/split/run.sh -- GPU benchmark of the split runtime (issue 9).
# Run on the GPU machine from the repo root:  bench/split/run.sh [quick|full|variants|pageable|multi]
# Builds bench/split (standalone: runtime + tests + examples; incremental),
# runs the CPU tests, then:
#  full : each example, pinned host memory, default sizes, 5 runs
#         (plain vs pipelined vs serial, medians, ideal vs achieved);
#         each example with a device budget >= 4x smaller than its data;
#         vecadd with pageable memory (pinned staging path);
#         vecadd larger than the card's memory (pageable, if host RAM allows).
#  variants: Black-Scholes and vecadd at fixed split sizes and with 4 streams.
#  pageable: vecadd from pageable memory with 8 and 16 staging threads.
#  multi: Monte Carlo (compute-intensive) on 1 GPU and on all GPUs.
# Every line of output goes to ${OUT:-.}/split_bench.log; RESULT lines last.
set -uo pipefail
mode=${1:-full}
log=${OUT:-.}/split_bench.log
: >"$log"
say() { echo "$@" | tee -a "$log"; }
run() { say "\$ $*"; "$@" 2>&1 | tee -a "$log"; local rc=${PIPESTATUS[0]}; [ "$rc" = 0 ] || say "EXIT $rc"; }

B=build-splitbench
cmake -S bench/split -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release >>"$log" 2>&1 && ninja -C $B >>"$log" 2>&1 \
  || { say "build failed"; tail -30 "$log"; exit 1; }
X=$B/examples/split
say "# $(date -u) host=$(hostname) mode=$mode"
nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current,clocks.sm --format=csv 2>&1 | tee -a "$log"
free -g | tee -a "$log"
for t in plan tune exec; do $B/tests/runtime/test_split_$t >>"$log" 2>&1 && say "cpu test $t: ok" || say "cpu test $t: FAILED"; done

if [ "$mode" = full ] || [ "$mode" = quick ]; then
  R=5; [ "$mode" = quick ] && R=2
  run $X/split_vecadd --runs $R
  run $X/split_scalarprod --runs $R
  run $X/split_blackscholes --runs $R
  MC_PATHS=2048 run $X/split_montecarlo --runs $R
  run $X/split_blackscholes --runs $R --streams 4 --no-serial --no-cold
  # data >= 4x the device budget (budget in MiB)
  run $X/split_vecadd --runs 3 --budget-mb 512 --no-plain
  run $X/split_scalarprod --runs 3 --budget-mb 256 --no-plain
  run $X/split_blackscholes --runs 3 --budget-mb 512 --no-plain
  MC_PATHS=2048 run $X/split_montecarlo --runs 3 --budget-mb 256 --no-plain
  # pageable host memory: pinned staging inside the runtime
  run $X/split_vecadd --runs $R --pageable
fi
if [ "$mode" = full ]; then
  # larger than the card: 12 bytes per iteration, > device total, < 80% of host RAM
  devb=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)   # MiB
  avail=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)                               # KiB
  need=$(( devb * 1048576 * 105 / 100 ))
  cap=$(( avail * 1024 * 80 / 100 ))
  if [ "$need" -lt "$cap" ]; then
    n=$(( need / 12 ))
    run $X/split_vecadd --pageable --n $n --runs 1 --no-plain --no-serial --no-cold
  else
    say "SKIP out-of-card run: need $need bytes > 80% of available host memory ($cap)"
  fi
fi
if [ "$mode" = pageable ]; then
  # the staging copy threads: default (8) and 16 (the hosts have 16 cores)
  run $X/split_vecadd --runs 5 --pageable
  run $X/split_vecadd --runs 5 --pageable --host-threads 16 --no-serial --no-cold
fi
if [ "$mode" = variants ]; then
  # what the copy-bound examples lose: fixed split sizes (no tuning), more streams
  for ex in blackscholes vecadd; do
    for sp in 1048576 4194304 8388608; do run $X/split_$ex --runs 5 --split $sp --no-serial --no-cold; done
    run $X/split_$ex --runs 5 --streams 4 --no-serial --no-cold
  done
fi
if [ "$mode" = multi ]; then
  ng=$(nvidia-smi -L | wc -l)
  MC_PATHS=65536 run $X/split_montecarlo --n 4e6 --runs 5 --devices 1 --no-plain --no-serial --no-cold
  MC_PATHS=65536 run $X/split_montecarlo --n 4e6 --runs 5 --devices "$ng" --no-plain --no-serial --no-cold
  run $X/split_vecadd --runs 3 --devices 1 --no-plain --no-serial --no-cold
  run $X/split_vecadd --runs 3 --devices "$ng" --no-plain --no-serial --no-cold
fi
say "==== summary"
grep -E '^RESULT|CHECK FAILED|^EXIT|^SKIP' "$log"
