"""Per-launch and per-copy cost under memheat (issue 13): N tiny PyTorch
kernels (x.add_(1) on 64 Ki floats) and 2 x C pinned copies of 4 MiB, timed
on the host around the loops (synchronized). Prints one RESULT line.
usage: python3 bench/overhead/launches.py [N] [C]"""
import sys
import time

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
c = int(sys.argv[2]) if len(sys.argv) > 2 else 50
x = torch.ones(1 << 16, device="cuda")
for _ in range(10):
    x.add_(1)
torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(n):
    x.add_(1)
torch.cuda.synchronize()
dt = time.perf_counter() - t
h = torch.ones(1 << 20, pin_memory=True)
d = torch.empty(1 << 20, device="cuda")
torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(c):
    d.copy_(h, non_blocking=True)
    h.copy_(d, non_blocking=True)
torch.cuda.synchronize()
dc = time.perf_counter() - t
print(f"RESULT launches={n} loop_s={dt:.4f} per_launch_us={dt / n * 1e6:.2f} "
      f"copies={2 * c} per_copy_us={dc / (2 * c) * 1e6:.2f} check={x[0].item():.0f}")
