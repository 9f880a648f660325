#!/bin/sh
# make_corpus.sh MEMHEAT OCL_EXAMPLES [DIR] -- the seeds of the fuzzers
# (mh_fuzz_lf, libfuzzer.sh), kept small in tests/fuzz/corpus: traces and
# profiles of real programs, the OpenCL examples under Oclgrind (the five
# matrix multiplies, 16x16; the six pattern kernels twice each, every launch
# traced), and a synthetic trace of every shape. The profiles are what
# `memheat run` writes, rewritten with 512-byte pages (VACUUM: the same
# rows, a fifth of the bytes). Run it again when the trace or profile
# format changes; make_corpus_cuda.sh adds the seeds of a PyTorch program
# (on a GPU machine). matmul_schema3.mhdb is a profile of schema 3, written
# before the columns the readers probe for: kept, so that it must still open.
set -eu
M=$1 E=$2 D=${3:-$(dirname "$0")/corpus}
mkdir -p "$D" && D=$(cd "$D" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
"$M" run -q --backend oclgrind --keep-trace -o matmul -- "$E" --only Multiply --n 16 --items 256 >/dev/null
"$M" run -q --backend oclgrind --keep-trace --launch-policy all -o patterns -- "$E" --only pat --n 16 --items 256 \
    --repeat 2 >/dev/null
"$M" synth -o synth.mht --shape all --warps 2 --blocks 2 --iters 2
for p in matmul patterns; do sqlite3 "$p.mhdb" "PRAGMA page_size = 512; VACUUM"; done
cp matmul.mht patterns.mht synth.mht matmul.mhdb patterns.mhdb "$D"/
ls -l "$D"
