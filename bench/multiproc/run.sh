#!/usr/bin/env bash
# bench/multiproc/run.sh -- programs of several processes under memheat, on the
# GPU machine (issue 14 item 5). Not yet run: written in a session that had no
# GPU left; the first run on a GPU decides.
#   1. two CUDA programs at once (sh -c 'a & b & wait'), RUNS times: the
#      profile's launches equal the sum of both programs' (launch_config), no
#      damaged trace, outputs as plain;
#   2. torch.multiprocessing.spawn (spawn2.py): checksums as plain, two
#      processes in the profile;
#   3. with 2 GPUs (device kind nvidia-h200-x2): torchrun --nproc_per_node=2
#      DDP training (ddp_train.py, NCCL all-reduce) with one profile per rank
#      (memheat run -o ddp_%r inside torchrun), then memheat merge; losses as
#      plain; wall time against plain.
# usage: bench/multiproc/run.sh [BUILD_DIR] [RESULT_DIR]   (env RUNS=20)
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/multiproc}
RUNS=${RUNS:-20}
mkdir -p "$R"
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -x "$B/memheat" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 \
    >"$R/build.log" 2>&1 && cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cupti \
    ex_cuda_coalesced >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; echo "FAIL build"; exit 1; }
fi
M=$(cd "$B" && pwd)/memheat
C=$(cd "$B" && pwd)/examples/cuda/coalesced
fail=0
# the GPU machine has no sqlite3 command: Python's module instead
sq() { python3 -c "import sqlite3,sys; [print('|'.join(map(str,r))) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]" "$1" "$2"; }
sum() { sq "$1" "SELECT SUM(launches) FROM launch_config"; }

echo "== 1. two CUDA programs at once, $RUNS runs"
"$C" 1048576 50 >"$R/one.plain" 2>&1
"$M" run -q --no-timing -o "$R/single" -- "$C" 1048576 50 >/dev/null 2>&1
single=$(sum "$R/single.mhdb")
lost=0
for i in $(seq 1 "$RUNS"); do
  "$M" run -q -o "$R/two" -- sh -c "$C 1048576 50 > $R/a.out 2>&1 & $C 1048576 50 > $R/b.out 2>&1 & wait" \
    2>"$R/two.err" || { echo "run $i: exit $?"; cat "$R/two.err"; fail=1; }
  got=$(sum "$R/two.mhdb")
  [ "$got" = "$((2 * single))" ] || { echo "run $i: $got launches, want $((2 * single))"; lost=$((lost + 1)); }
  grep -qi "damaged" "$R/two.err" && { echo "run $i: damaged trace"; fail=1; }
  diff -q <(grep checksum "$R/one.plain") <(grep checksum "$R/a.out") >/dev/null || { echo "run $i: output differs"; fail=1; }
done
echo "runs with lost launches: $lost of $RUNS"
[ $lost -eq 0 ] || fail=1
sq "$R/two.mhdb" "SELECT id, pid, ppid, host FROM process"

echo "== 2. torch.multiprocessing.spawn"
python3 bench/multiproc/spawn2.py 2>&1 | sort >"$R/spawn.plain"
"$M" run -q -o "$R/spawn" -- python3 bench/multiproc/spawn2.py 2>"$R/spawn.err" | sort >"$R/spawn.mh"
diff "$R/spawn.plain" "$R/spawn.mh" && echo "checksums as plain" || { echo "FAIL spawn checksums differ"; fail=1; }
echo "processes in the profile: $(sq "$R/spawn.mhdb" "SELECT COUNT(*) FROM process")"

ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$ngpu" -ge 2 ]; then
  echo "== 3. torchrun DDP, 2 ranks"
  t0=$(date +%s.%N)
  torchrun --nproc_per_node=2 bench/multiproc/ddp_train.py >"$R/ddp.plain" 2>&1
  t1=$(date +%s.%N)
  (cd "$R" && torchrun --nproc_per_node=2 --no-python "$M" run -q -o ddp_%r -- python3 \
    "$OLDPWD/bench/multiproc/ddp_train.py" >ddp.mh 2>ddp.err)
  t2=$(date +%s.%N)
  "$M" merge "$R/ddp_0.mhdb" "$R/ddp_1.mhdb" -o "$R/ddp.mhdb" || fail=1
  diff <(grep losses "$R/ddp.plain") <(grep losses "$R/ddp.mh") && echo "losses as plain" || { echo "FAIL losses"; fail=1; }
  python3 -c "import sys; p,m=float(sys.argv[2])-float(sys.argv[1]), float(sys.argv[3])-float(sys.argv[2]); print(f'plain {p:.1f} s, memheat {m:.1f} s, {m/p:.2f}x')" "$t0" "$t1" "$t2"
  sq "$R/ddp.mhdb" "SELECT name, launches, traced FROM launch_config WHERE name LIKE '%nccl%'"
else
  echo "== 3. one GPU: torchrun DDP, 2 ranks on it over Gloo (NCCL needs a GPU per rank: nvidia-h200-x2)"
  t0=$(date +%s.%N)
  DDP_BACKEND=gloo torchrun --nproc_per_node=2 bench/multiproc/ddp_train.py >"$R/ddp.plain" 2>&1
  t1=$(date +%s.%N)
  (cd "$R" && DDP_BACKEND=gloo torchrun --nproc_per_node=2 --no-python "$M" run -q -o ddpg_%r -- python3 \
    "$OLDPWD/bench/multiproc/ddp_train.py" >ddp.mh 2>ddp.err)
  t2=$(date +%s.%N)
  "$M" merge "$R/ddpg_0.mhdb" "$R/ddpg_1.mhdb" -o "$R/ddpg.mhdb" || fail=1
  diff <(grep losses "$R/ddp.plain") <(grep losses "$R/ddp.mh") && echo "losses as plain" || { echo "FAIL losses"; tail -5 "$R/ddp.err"; fail=1; }
  python3 -c "import sys; p,m=float(sys.argv[2])-float(sys.argv[1]), float(sys.argv[3])-float(sys.argv[2]); print(f'plain {p:.1f} s, memheat {m:.1f} s, {m/p:.2f}x')" "$t0" "$t1" "$t2"
  echo "merged: processes $(sq "$R/ddpg.mhdb" "SELECT COUNT(*) FROM process"), ranks $(sq "$R/ddpg.mhdb" "SELECT GROUP_CONCAT(rank) FROM process")"
  "$M" report "$R/ddpg.mhdb" -o "$R/ddpg.html" >/dev/null 2>&1 && echo "report by rank written" || { echo "FAIL report"; fail=1; }
fi
[ $fail -eq 0 ] && echo "ALL PASS" || echo "SOME FAILED"
exit $fail
