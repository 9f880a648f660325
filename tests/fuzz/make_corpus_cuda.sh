#!/bin/sh
# make_corpus_cuda.sh MEMHEAT [DIR] -- ON A GPU MACHINE with PyTorch: the
# fuzzers' seeds from a real program (tests/fuzz/corpus/torch.*): the
# transformer training job of bench/realworld (10 steps, about 2,600
# launches, every one counted with its configuration and call site), with
# a few small elementwise launches traced and no timing (its document holds
# every launch: 2.8 MB), so that the seeds stay small (17 KB and 430 KB) and
# each fuzzing run fast. The profile is rewritten with 512-byte pages.
set -eu
M=$1 D=${2:-$(dirname "$0")/corpus}
mkdir -p "$D" && D=$(cd "$D" && pwd)
R=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$M" run -q --no-timing --keep-trace --kernel 'FillFunctor|CUDAFunctor_add' --launch-count 3 -o "$W/torch" \
    -- python3 "$R/bench/realworld/train.py" >/dev/null
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA page_size = 512'); c.execute('VACUUM')" \
    "$W/torch.mhdb"
cp "$W/torch.mht" "$W/torch.mhdb" "$D"/
ls -l "$D"/torch.*
