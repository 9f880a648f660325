"""sparse_blas.py -- the real-workload benchmark's library job (bench/realworld).

cuBLAS and cuSPARSE through PyTorch: ITERS rounds (default 20) of a dense
1024x1024 GEMM (cuBLAS), a batched 64x256x256 GEMM, a GEMV, and a CSR sparse
matrix (65,536 rows, ~1% dense) times a dense vector and a dense matrix
(cuSPARSE SpMV / SpMM). Prints a checksum so a run under memheat can be
compared with a plain run, and the loop's own time on stderr. The checksum
is rounded to 5 significant digits: two plain runs differ in the last digits
of the full sum (cuSPARSE's SpMV/SpMM sum in an order that varies run to run;
measured on the H100, 3 of 3 plain runs gave different full-precision sums)."""
import os
import sys
import time

import torch

iters = int(os.environ.get("ITERS", "20"))
torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")
a = torch.randn(1024, 1024, device=dev)
b = torch.randn(1024, 1024, device=dev)
ba = torch.randn(64, 256, 256, device=dev)
bb = torch.randn(64, 256, 256, device=dev)
v = torch.randn(1024, device=dev)
n = 65536
nnz = n * 64
rows = torch.randint(0, n, (nnz,), generator=torch.Generator().manual_seed(2))
cols = torch.randint(0, 4096, (nnz,), generator=torch.Generator().manual_seed(3))
vals = torch.randn(nnz, generator=torch.Generator().manual_seed(4))
sp = torch.sparse_coo_tensor(torch.stack([rows, cols]), vals, (n, 4096)).coalesce().to_sparse_csr().to(dev)
dv = torch.randn(4096, 1, device=dev)
dm = torch.randn(4096, 32, device=dev)
torch.cuda.synchronize()
t0 = time.perf_counter()
acc = torch.zeros((), device=dev, dtype=torch.float64)
for _ in range(iters):
    c = a @ b
    bc = torch.bmm(ba, bb)
    gv = a @ v
    sv = sp @ dv
    sm = sp @ dm
    acc += c.double().sum() + bc.double().sum() + gv.double().sum() + sv.double().sum() + sm.double().sum()
torch.cuda.synchronize()
print("loop_s %.4f" % (time.perf_counter() - t0), file=sys.stderr)
print("checksum %.4e" % acc.item())
print("full_sum %.6f" % acc.item(), file=sys.stderr)
