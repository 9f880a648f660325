#!/usr/bin/env bash
# gpu-check.sh -- on the GPU machine: builds memheat with the CUDA collector,
# runs every CUDA example with and without `memheat run`, checks that each
# program prints the same checksums both ways, and checks the heat maps of
# known data objects against the CUTHERMO patterns (scripts/gpu-check-heat.py).
#
# usage: scripts/gpu-check.sh [BUILD_DIR] [RESULT_DIR]
#   BUILD_DIR   default build-gpu (configured here; reused if it exists)
#   RESULT_DIR  default $OUT/gpu-check or /tmp/memheat-gpu-check
# Exit 0 when every check passes, 1 otherwise. Needs nvcc, the Compute
# Sanitizer API (/usr/local/cuda/compute-sanitizer) and a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
R=${2:-${OUT:-/tmp}/gpu-check}
mkdir -p "$R"
if [ -d .gpudeps ] && [ -f scripts/gpu-env.sh ]; then . scripts/gpu-env.sh; fi
export PATH=/usr/local/cuda/bin:$PATH

echo "== build ($B)"
if ! { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMHEAT_CUDA_PATCH_ARCHS=90 \
        -DMEMHEAT_EXAMPLE_CUDA_ARCHS=90 &&
      cmake --build "$B" -j"$(nproc)" --target memheat memheat_cuda ex_cuda_gemm ex_cuda_spmv ex_cuda_gramschmidt \
        ex_cuda_smem_private ex_cuda_smem_broadcast ex_cuda_coalesced; } >"$R/build.log" 2>&1; then
  tail -30 "$R/build.log"; echo "FAIL build (log: $R/build.log)"; exit 1
fi
M=$B/memheat
E=$B/examples/cuda
[ -x "$M" ] || { echo "FAIL no memheat binary at $M"; exit 1; }
[ -f "$B/lib/memheat/libmemheat_cuda.so" ] || { echo "FAIL the CUDA collector was not built"; exit 1; }

fail=0
# case  kernel-regex  program args...
run_case() {
  local name=$1 kre=$2; shift 2
  local t0 t1
  timeout 120 "$@" >"$R/$name.plain.out" 2>"$R/$name.plain.err"; local rc0=$?
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086  # RUN_OPTS: extra `memheat run` options for one case
  timeout 120 "$M" run --no-timing --keep-trace -q ${RUN_OPTS:-} -o "$R/$name" -- "$@" >"$R/$name.mh.out" 2>"$R/$name.mh.err"
  local rc1=$?
  t1=$(date +%s.%N)
  if [ $rc0 -ne 0 ] || [ $rc1 -ne 0 ]; then
    echo "FAIL $name: exit status plain=$rc0 memheat=$rc1 ($(tail -1 "$R/$name.mh.err"))"; fail=1; return
  fi
  if diff <(grep '^checksum' "$R/$name.plain.out") <(grep '^checksum' "$R/$name.mh.out") >/dev/null &&
     grep -q '^checksum' "$R/$name.plain.out"; then
    echo "PASS $name output identical with and without memheat ($(grep -c '^checksum' "$R/$name.plain.out") checksums)"
  else
    echo "FAIL $name output differs under memheat"; diff <(grep '^checksum' "$R/$name.plain.out") \
      <(grep '^checksum' "$R/$name.mh.out") | head -5; fail=1
  fi
  awk -v a="$t0" -v b="$t1" -v n="$name" 'BEGIN{printf "time %s memheat-run %.2fs\n", n, b-a}'
  "$M" info "$R/$name.mht" >"$R/$name.info.txt" 2>&1 || { echo "FAIL $name: memheat info"; fail=1; }
  rm -rf "$R/$name.heat"
  if ! "$M" heatmap "$R/$name.mht" --kernel "$kre" -o "$R/$name.heat" >"$R/$name.heat.log" 2>&1; then
    echo "FAIL $name: memheat heatmap ($(tail -1 "$R/$name.heat.log"))"; fail=1; return
  fi
  "$M" heatmap "$R/$name.mht" --kernel "$kre" --rows 12 --no-color >"$R/$name.heat.txt" 2>&1
  python3 scripts/gpu-check-heat.py "$name" "$R/$name.heat" || fail=1
}

# The shared objects of a case's heat maps are its static __shared__ arrays,
# named as written (the examples are built with -lineinfo: the cubin's PTX
# text names each kernel's arrays; docs/cuda-collector.md "Shared-memory objects").
check_smem_names() {
  local name=$1 want=$2 got
  got=$(python3 - "$R/$name.heat" <<'PY'
import csv, glob, sys
labels = set()
for p in glob.glob(sys.argv[1] + "/launch*_shared_regions.csv"):
    with open(p) as f:
        labels |= {r["label"] for r in csv.DictReader(f)}
print(" ".join(sorted(labels)))
PY
)
  if [ "$got" = "$want" ]; then
    echo "PASS $name: shared objects named by their arrays ($got)"
  else
    echo "FAIL $name: shared objects are '$got', want '$want'"; fail=1
  fi
}

echo "== examples"
run_case gemm_v00 'gemm_v00' "$E/gemm" v00 512
run_case gemm_v01 'gemm_v01' "$E/gemm" v01 512
run_case spmv 'spmv_csr' "$E/spmv" 65536
run_case gramschmidt 'gs_kernel3' "$E/gramschmidt" 128
run_case smem_private 'smem_private_sum' "$E/smem_private" 1048576
check_smem_names smem_private acc_store
run_case smem_broadcast 'warp_broadcast_smem' "$E/smem_broadcast" 1048576
check_smem_names smem_broadcast base
# Every launch traced from two host threads (eager patching), then the default
# policy (first launch per configuration: lazy patching and unpatching while
# the other thread launches the same module).
RUN_OPTS="--launch-policy all" run_case coalesced 'saxpy' "$E/coalesced" 1048576 50
run_case coalesced_config 'saxpy' "$E/coalesced" 1048576 50
# The same at 2^26 elements (kernels of ~0.3 ms, so the other thread's launches
# are still running when a module is patched or unpatched): 8 runs, each must
# end as plain. Before the launch gate (src/collectors/cuda/gate.c), 3 of 6 runs
# died with "an illegal instruction was encountered" on the H100
# (bench/overhead/patch_race.sh compares the variants).
big_bad=0
"$E/coalesced" 67108864 20 >"$R/big.plain.out" 2>&1
for i in 1 2 3 4 5 6 7 8; do
  timeout 60 "$M" run --no-timing -q -o "$R/coalesced_big" -- "$E/coalesced" 67108864 20 >"$R/big.out" 2>"$R/big.err" &&
    diff -q <(grep '^checksum' "$R/big.plain.out") <(grep '^checksum' "$R/big.out") >/dev/null ||
    { big_bad=$((big_bad + 1)); echo "  coalesced_big run $i: $(grep -m1 -E 'illegal|error' "$R/big.err")"; }
done
if [ $big_bad -eq 0 ]; then echo "PASS coalesced_big: 8 runs, outputs as plain"; else echo "FAIL coalesced_big: $big_bad of 8 runs differ or died"; fail=1; fi

echo "== crash handling: a program that exits with status 3 after its kernels keeps its trace"
timeout 120 "$M" run --no-timing --keep-trace -q -o "$R/exit3" -- sh -c "$E/spmv 4096 && exit 3" >"$R/exit3.out" 2>&1
if [ -s "$R/exit3.mht" ] && "$M" info "$R/exit3.mht" >/dev/null 2>&1; then
  echo "PASS exit3: non-zero exit reported, trace readable"
else
  echo "FAIL exit3: no readable trace ($(tail -1 "$R/exit3.out"))"; fail=1
fi

echo "== a program that aborts, a program that forks (skipped without torch)"
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  # every traced launch before the abort is in the trace, each with its end
  # (the writer's thread finishes its chunks before the signal takes its course)
  timeout 120 "$M" run --no-timing --keep-trace -q -o "$R/abort" -- python3 -c 'import os, torch
x = torch.arange(1 << 20, device="cuda", dtype=torch.float32)
for k in range(6): x = x * 2 + k if k % 2 else torch.sin(x)
print("sum", float(x.sum()))
os.abort()' >"$R/abort.out" 2>&1
  a_launch=$("$M" info "$R/abort.mht" 2>/dev/null | grep -c "^  #")
  a_end=$("$M" info "$R/abort.mht" 2>&1 | grep -c -i "no kernel end\|without its end")
  if [ "$a_launch" -ge 3 ] && grep -q '^sum' "$R/abort.out"; then
    echo "PASS abort: $a_launch traced launches kept ($a_end without their end)"
  else
    echo "FAIL abort: $a_launch traced launches in the trace ($(tail -1 "$R/abort.out"))"; fail=1
  fi
  # a child forked after kernels exits through exit(): the parent's trace stays complete
  timeout 120 "$M" run --no-timing --keep-trace -q -o "$R/fork" -- python3 -c 'import os, sys, torch
x = torch.ones(1 << 20, device="cuda")
print("a", float((x * 3).sum()))
pid = os.fork()
if pid == 0:
    sys.exit(0)
os.waitpid(pid, 0)
print("b", float((x + 1).sum()))' >"$R/fork.out" 2>&1; f_rc=$?
  if [ $f_rc -eq 0 ] && "$M" info "$R/fork.mht" 2>&1 | grep -q "complete" && [ "$(grep -c '^[ab] ' "$R/fork.out")" -eq 2 ]; then
    echo "PASS fork: the child's exit left the parent's trace complete"
  else
    echo "FAIL fork: rc $f_rc, $("$M" info "$R/fork.mht" 2>&1 | head -1)"; fail=1
  fi
fi

echo "== closed-source library: a cuBLAS kernel under PyTorch (skipped without torch)"
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  timeout 120 "$M" run --no-timing --keep-trace -q --kernel 'gemm|GEMM|cutlass|sm90|xmma' --launch-count 1 \
    -o "$R/torch" -- python3 bench/overhead/matmul.py 1024 2 >"$R/torch.out" 2>&1
  "$M" heatmap "$R/torch.mht" --rows 40 --no-color >"$R/torch_heat.txt" 2>&1
  "$M" info "$R/torch.mht" >"$R/torch_info.txt" 2>&1
  if grep -q '^checksum' "$R/torch.out" && grep -q 'accesses' "$R/torch_heat.txt"; then
    echo "PASS torch: $(grep -m1 -o '#[0-9]* [^ ]*' "$R/torch_info.txt") traced, heat map in $R/torch_heat.txt"
  else
    echo "FAIL torch: no heat map ($(tail -1 "$R/torch.out"))"; fail=1
  fi
fi

if [ $fail -eq 0 ]; then echo "gpu-check: ALL PASS"; else echo "gpu-check: FAILURES"; fi
exit $fail
