#!/usr/bin/env bash
# bench/ranks/gpu_ranks.sh -- the many-ranks figures of issue 44 on real CUDA
# profiles, on the GPU machine (not yet run: written in a session whose GPU
# time was spent; the first run on a GPU decides):
#   1. the 10-step transformer (bench/realworld/train.py) under `memheat run`
#      once, then 32 ranks of it synthesised by rank_synth (its own timing
#      pass scaled per rank), merged and reported: the issue measured a 282 MB
#      profile and a 68 MB report (10 s) before heat maps were kept once and
#      the report showed the distinct content once;
#   2. torchrun --nproc_per_node=2 (NCCL on 2 GPUs, Gloo on one) with one
#      `memheat run --passes one -o prof/p_%h_%r` per rank (docs/ranks.md),
#      merged and reported: losses as plain, two processes, ranks 0 and 1;
#      then the same with the default two runs per rank, to learn whether a
#      rank's program may start twice inside torchrun.
# usage: bench/ranks/gpu_ranks.sh [BUILD_DIR] [RESULT_DIR]   (about 3 minutes)
# Results: RESULT_DIR/gpu_ranks.txt (the figures) and ranks.tgz (reports, logs).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/ranks}
mkdir -p "$R"
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -x "$B/memheat" ] || [ ! -x "$B/bench/ranks/rank_synth" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 \
    >"$R/build.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda memheat_cuda_patch memheat_cupti rank_synth \
      >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; echo "FAIL build"; exit 1; }
fi
M=$(cd "$B" && pwd)/memheat
S=$(cd "$B" && pwd)/bench/ranks/rank_synth
fail=0
exec > >(tee "$R/gpu_ranks.txt") 2>&1
wall() { /usr/bin/time -f "%e s, %M KB" "$@"; }

echo "== 1. the transformer, 32 synthesised ranks"
wall "$M" run -q -o "$R/train" -- python3 bench/realworld/train.py >"$R/train.out" || { echo "FAIL train run"; fail=1; }
ls -l "$R/train.mhdb"
rm -rf "$R/r32"
wall "$S" --base "$R/train.mhdb" --ranks 32 --out "$R/r32" || fail=1
du -sh "$R/r32"
wall "$M" merge -q -o "$R/m32.mhdb" "$R"/r32/rank_*.mhdb || { echo "FAIL merge"; fail=1; }
wall "$M" report -q -f "$R/train.mhdb" -o "$R/train.html" || fail=1
wall "$M" report -q -f "$R/m32.mhdb" -o "$R/m32.html" || { echo "FAIL report"; fail=1; }
one=$(stat -c %s "$R/train.html") all=$(stat -c %s "$R/m32.html")
echo "profile: one rank $(stat -c %s "$R/train.mhdb") B, 32 ranks $(stat -c %s "$R/m32.mhdb") B"
echo "report: one rank $one B, 32 ranks $all B, $(( (all - one) / 31 )) B per extra rank"
rm -rf "$R/r32" "$R/m32.mhdb" "$R/train.mhdb"

ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
backend=nccl
[ "$ngpu" -ge 2 ] || backend=gloo
for passes in one separate; do
  echo "== 2. torchrun, 2 ranks ($backend), one memheat run per rank, --passes $passes"
  rm -rf "$R/prof_$passes" && mkdir -p "$R/prof_$passes"
  DDP_BACKEND=$backend torchrun --nproc_per_node=2 bench/multiproc/ddp_train.py >"$R/ddp.plain" 2>&1
  (DDP_BACKEND=$backend timeout 240 torchrun --nproc_per_node=2 --no-python "$M" run -q --passes "$passes" \
    -o "$R/prof_$passes/p_%h_%r" -- python3 bench/multiproc/ddp_train.py >"$R/ddp_$passes.mh" 2>"$R/ddp_$passes.err")
  echo "exit $?; profiles: $(ls "$R/prof_$passes" | tr '\n' ' ')"
  diff <(grep losses "$R/ddp.plain") <(grep losses "$R/ddp_$passes.mh") >/dev/null && echo "losses as plain" ||
    { echo "losses differ or missing"; tail -5 "$R/ddp_$passes.err"; [ "$passes" = one ] && fail=1; }
  if "$M" merge -q -o "$R/ddp_$passes.mhdb" "$R/prof_$passes"/p_*.mhdb 2>>"$R/ddp_$passes.err"; then
    "$M" info "$R/ddp_$passes.mhdb" | grep -i "rank" | head -4
    "$M" report -q -f "$R/ddp_$passes.mhdb" -o "$R/ddp_$passes.html" && echo "report $(stat -c %s "$R/ddp_$passes.html") B"
  else
    echo "merge failed"; [ "$passes" = one ] && fail=1
  fi
  rm -rf "$R/prof_$passes" "$R/ddp_$passes.mhdb"
done
[ $fail -eq 0 ] && echo "ALL PASS" || echo "SOME FAILED"
# what comes back: gpu_ranks.txt and one archive of the rest (reports, logs)
(cd "$R" && tar czf ranks.tgz --exclude ranks.tgz --exclude gpu_ranks.txt --exclude '*.mhdb' . &&
  find . -mindepth 1 ! -name ranks.tgz ! -name gpu_ranks.txt -exec rm -rf {} +)
exit $fail
