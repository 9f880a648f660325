#!/bin/bash
# bench/advice/check.sh -- ON THE GPU MACHINE (carry .gpudeps): the pairs of
# the advice table (pairs.py -> pairs.json: copy it to results.json when the
# table's figures are renewed), then each change checked on a whole program
# under `memheat run`: the training transformer plain, with TF32=1 and with
# FUSED=1, the CNN plain and with CHANNELS_LAST=1, and `memheat diff` of each
# change against plain. Everything under /tmp/w, packed into $OUT/w.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/gpu-env.sh
T0=$SECONDS
W=/tmp/w; mkdir -p $W
OUT=$W timeout 150 python3 bench/advice/pairs.py > $W/pairs.txt 2>&1; echo "pairs rc=$?"
mh_gpu_build build-gpu /tmp/b.log memheat memheat_cuda memheat_cupti > $W/build.txt 2>&1 || tail -20 $W/build.txt
echo "pairs+build $((SECONDS-T0)) s"; grep -v Warn $W/pairs.txt | grep '/' 
M=build-gpu/memheat
for v in base TF32 FUSED; do
  e=""; [ $v != base ] && e="$v=1"
  env $e STEPS=10 timeout 100 python3 bench/realworld/train.py > $W/plain_$v.txt 2>&1
  env $e STEPS=10 timeout 100 python3 bench/realworld/train.py >> $W/plain_$v.txt 2>&1
  env $e STEPS=10 timeout 120 $M run -o $W/train_$v -- python3 bench/realworld/train.py > $W/train_$v.txt 2>&1; echo "train $v rc=$? $((SECONDS-T0)) s"
done
for v in base CHANNELS_LAST; do
  e=""; [ $v != base ] && e="$v=1"
  env $e STEPS=3 timeout 100 $M run -o $W/cnn_$v -- python3 bench/sites/cnn.py > $W/cnn_$v.txt 2>&1; echo "cnn $v rc=$? $((SECONDS-T0)) s"
done
$M diff $W/train_base.mhdb $W/train_TF32.mhdb > $W/diff_tf32.txt 2>&1
$M diff $W/train_base.mhdb $W/train_FUSED.mhdb > $W/diff_fused.txt 2>&1
$M diff $W/cnn_base.mhdb $W/cnn_CHANNELS_LAST.mhdb > $W/diff_cl.txt 2>&1
head -30 $W/diff_tf32.txt
cp $W/pairs.json $OUT/
rm -f $W/*.tmp; tar czf $OUT/w.tgz -C /tmp w
ls -la $OUT; echo "total $((SECONDS-T0)) s"
