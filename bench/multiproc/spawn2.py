"""spawn2.py -- two processes started by torch.multiprocessing.spawn, each a
few matmuls on the GPU; prints one checksum per rank (bench/multiproc)."""
import torch
import torch.multiprocessing as mp


def work(rank):
    torch.manual_seed(1234 + rank)
    a = torch.randn(1024, 1024, device="cuda")
    b = torch.randn(1024, 1024, device="cuda")
    for _ in range(3):
        a = torch.tanh(a @ b)
    torch.cuda.synchronize()
    print(f"rank {rank} checksum {a.double().sum().item():.6e}", flush=True)


if __name__ == "__main__":
    mp.spawn(work, nprocs=2, join=True)
