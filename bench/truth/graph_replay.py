"""graph_replay.py -- bench/truth: a CUDA graph (cuBLAS GEMM + elementwise) captured once and replayed 50 times
after 3 eager warm-ups; prints the checksum a run under memheat must reproduce."""
import torch, sys
x = torch.randn(4096, 4096, device="cuda", generator=torch.Generator(device="cuda").manual_seed(0))
w = torch.randn(4096, 4096, device="cuda", generator=torch.Generator(device="cuda").manual_seed(0))
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        y = torch.relu(x @ w) + 1.0
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = torch.relu(x @ w) + 1.0
for _ in range(50):
    g.replay()
torch.cuda.synchronize()
print("sum %.6e" % y.float().sum().item())
