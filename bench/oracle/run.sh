#!/usr/bin/env bash
# bench/oracle/run.sh -- ON THE GPU MACHINE (issue 17): Nsight Compute as the
# oracle of memheat's counter-derivable figures, in one go. Builds memheat,
# the CUDA collector and the harness (kernels.cu, libs.cu), then for each case
# runs the program once under ncu (the shared/global metrics below, every
# kernel of the case) and once under `memheat run --no-timing` (BLOCKS blocks
# traced per launch), analyzes the trace, and prints one side-by-side table
# (compare.py): wavefronts per shared instruction, bank conflicts, sectors per
# global request, relative differences, false bank-conflict findings.
#
# Cases, in order (each skipped once the time budget is spent):
#   kernels  oracle_kernels all      the 22 small kernels (1,024 blocks x 256)
#   libs     oracle_libs all         cuBLAS SGEMM (FP32) + cuSPARSE CSR SpMV
#   torch    python3 attention.py    PyTorch's memory-efficient attention (CUTLASS
#                                    fmha_cutlassF_*), when torch imports
#   examples the CUDA examples: smem_broadcast, smem_private, spmv, coalesced (2
#            launches), gemm (v00 and v01, 512)
# usage: bench/oracle/run.sh [BUILD_DIR] [RESULT_DIR]
#   env: BLOCKS=64       traced blocks per launch of the small kernels
#        LIB_BLOCKS=4    the same for the library and PyTorch kernels (a cuBLAS
#                        block makes thousands of accesses per thread); examples: 16
#        BUDGET_S=360    start no case after this many seconds
#        STEP_S=120      limit of one ncu or memheat run
#        CASES="kernels libs torch examples", NCU=path (default: found),
#        SKIP_BUILD=1 (use BUILD_DIR as it is), MEMHEAT=path (default BUILD_DIR/memheat)
# RESULT_DIR (default $OUT, else /tmp/oracle) gets 4 files: oracle.log (this
# log), oracle.md (the table), oracle.json (every row), raw.tar.gz (ncu CSVs,
# memheat JSONs, program outputs, build log).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
B=${1:-build-oracle}
R=${2:-${OUT:-/tmp/oracle}}
BLOCKS=${BLOCKS:-64}
LIB_BLOCKS=${LIB_BLOCKS:-4}
BUDGET_S=${BUDGET_S:-360}
STEP_S=${STEP_S:-120}
CASES=${CASES:-"kernels libs torch examples"}
mkdir -p "$R"
W=$B/oracle-work
rm -rf "$W"
mkdir -p "$W"
exec > >(tee "$R/oracle.log") 2>&1
T0=$SECONDS
say() { echo "[$((SECONDS - T0))s] $*"; }
if [ -d .gpudeps ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -2

say "build ($B)"
if [ -n "${SKIP_BUILD:-}" ]; then
  say "build skipped (SKIP_BUILD)"
elif ! { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 \
        -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 &&
      cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda oracle_kernels; } >"$W/build.log" 2>&1; then
  grep -E "error|Error" "$W/build.log" | head -30
  echo "FAIL build"
  tar -czf "$R/raw.tar.gz" -C "$W" . 2>/dev/null
  exit 1
fi
if [ -z "${SKIP_BUILD:-}" ]; then # optional targets: a failure drops their case only
  cmake --build "$B" -j"$(nproc)" --target oracle_libs >>"$W/build.log" 2>&1 || say "oracle_libs not built (cuBLAS/cuSPARSE?)"
  cmake --build "$B" -j"$(nproc)" --target ex_cuda_smem_broadcast ex_cuda_smem_private ex_cuda_spmv ex_cuda_coalesced ex_cuda_gemm \
    >>"$W/build.log" 2>&1 || say "CUDA examples not built"
fi
M=${MEMHEAT:-$B/memheat}
K=$B/bench/oracle
E=$B/examples/cuda

NCU=${NCU:-$(command -v ncu || true)}
for c in /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute-*/ncu /opt/nvidia/nsight-compute/*/ncu; do
  [ -n "$NCU" ] && break
  [ -x "$c" ] && NCU=$c
done
if [ -z "$NCU" ]; then echo "FAIL no ncu found (set NCU=)"; exit 1; fi
"$NCU" --version | tail -1
METRICS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
METRICS=$METRICS,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
METRICS=$METRICS,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
METRICS=$METRICS,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
METRICS=$METRICS,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum

PAIRS=()
# run_case NAME BLOCKS KERNEL_REGEX(or "") PROGRAM ARGS...: ncu, memheat run, memheat analyze
run_case() {
  local name=$1 nblocks=$2 regex=$3; shift 3
  if [ $((SECONDS - T0)) -gt "$BUDGET_S" ]; then say "SKIP $name: time budget ($BUDGET_S s) spent"; return; fi
  local nsel=() msel=()
  if [ -n "$regex" ]; then nsel=(--kernel-name "regex:$regex" --launch-count 1); msel=(--kernel "$regex"); fi
  say "$name: ncu"
  timeout -k 5 "$STEP_S" "$NCU" --target-processes all --csv --print-units base --print-kernel-base mangled --metrics "$METRICS" "${nsel[@]}" -- "$@" \
    >"$W/$name.ncu.csv" 2>"$W/$name.ncu.err"
  local rc=$?
  if [ $rc -ne 0 ] && grep -q "print-kernel-base" "$W/$name.ncu.err"; then # an ncu without the option
    timeout -k 5 "$STEP_S" "$NCU" --target-processes all --csv --print-units base --metrics "$METRICS" "${nsel[@]}" -- "$@" >"$W/$name.ncu.csv" 2>"$W/$name.ncu.err"
    rc=$?
  fi
  [ $rc -eq 0 ] || { say "$name: ncu exit $rc"; tail -5 "$W/$name.ncu.err"; }
  grep -h "^KERNEL" "$W/$name.ncu.csv" | grep -v "check=ok" && say "$name: WRONG RESULTS under ncu"
  say "$name: memheat run --no-timing --blocks $nblocks"
  timeout -k 5 "$STEP_S" "$M" run --no-timing --keep-trace -q --blocks "$nblocks" "${msel[@]}" -o "$W/$name" -- "$@" \
    >"$W/$name.mh.out" 2>"$W/$name.mh.err"
  rc=$?
  [ $rc -eq 0 ] || { say "$name: memheat run exit $rc"; tail -5 "$W/$name.mh.err"; }
  grep -h "^KERNEL" "$W/$name.mh.out" | grep -v "check=ok" && say "$name: WRONG RESULTS under memheat"
  if [ ! -f "$W/$name.mht" ]; then say "$name: no trace"; return; fi
  "$M" analyze "$W/$name.mht" -q --max 0 -o "$W/$name.json" >"$W/$name.analyze.txt" 2>"$W/$name.analyze.err" ||
    { say "$name: memheat analyze exit $?"; tail -3 "$W/$name.analyze.err"; }
  [ -f "$W/$name.json" ] && [ -s "$W/$name.ncu.csv" ] && PAIRS+=(--pair "$name:$W/$name.ncu.csv:$W/$name.json")
  rm -f "$W/$name.mhdb"
}

for c in $CASES; do
  case $c in
    kernels) run_case kernels "$BLOCKS" "" "$K/oracle_kernels" all ;;
    libs) [ -x "$K/oracle_libs" ] && run_case libs "$LIB_BLOCKS" "" "$K/oracle_libs" all ;;
    torch)
      if python3 -c "import torch; assert torch.cuda.is_available()" >/dev/null 2>&1; then
        run_case torch "$LIB_BLOCKS" "fmha" python3 bench/oracle/attention.py
      else
        say "SKIP torch: python3 cannot import torch with CUDA"
      fi ;;
    examples)
      [ -x "$E/smem_broadcast" ] && run_case ex_smem_broadcast 16 "" "$E/smem_broadcast" 262144
      [ -x "$E/smem_private" ] && run_case ex_smem_private 16 "" "$E/smem_private" 262144
      [ -x "$E/spmv" ] && run_case ex_spmv 16 "" "$E/spmv" 65536
      [ -x "$E/coalesced" ] && run_case ex_coalesced 16 "" "$E/coalesced" 1048576 2
      [ -x "$E/gemm" ] && run_case ex_gemm 16 "" "$E/gemm" both 512 ;;
    *) say "unknown case $c" ;;
  esac
done

say "compare"
if [ ${#PAIRS[@]} -eq 0 ]; then echo "FAIL nothing to compare"; tar -czf "$R/raw.tar.gz" -C "$W" --exclude='*.mht' . ; exit 1; fi
python3 bench/oracle/compare.py "${PAIRS[@]}" --out "$R"
rc=$?
tar -czf "$R/raw.tar.gz" -C "$W" --exclude='*.mht' --exclude='*.mhdb' . 2>/dev/null
say "done (raw files: $R/raw.tar.gz)"
sleep 1 # let tee write the end of the log
exit $rc
