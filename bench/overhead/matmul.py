"""matmul.py -- the closed-source-library workload of bench/overhead: PyTorch
float32 matrix products (cuBLAS kernels). Prints a checksum on stdout and the
GPU time of the products (CUDA events) on stderr, like the CUDA examples.
usage: python3 matmul.py [n] [reps]   (default 2048 5)"""
import sys

import torch


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator().manual_seed(7)
    a = torch.rand(n, n, generator=g).cuda() - 0.5
    b = torch.rand(n, n, generator=g).cuda() - 0.5
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    c = a
    for _ in range(reps):
        c = torch.matmul(c, b)
    e1.record()
    torch.cuda.synchronize()
    print("checksum matmul %.12e" % float(c.double().sum()))
    print("gpu_ms %.4f" % e0.elapsed_time(e1), file=sys.stderr)


if __name__ == "__main__":
    main()
