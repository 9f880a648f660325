"""ddp_train.py -- a small model trained with DistributedDataParallel over
NCCL (all-reduce of the gradients), one process per GPU; run under torchrun.
Prints the losses of rank 0 (bench/multiproc). DDP_BACKEND=gloo: the
all-reduce through Gloo instead, so that two ranks can share one GPU (NCCL
refuses two ranks on one device): the launcher, the processes and the
per-rank profiles are the same, only the collective kernels are missing."""
import os
import torch
import torch.distributed as dist
import torch.nn as nn


def main():
    dist.init_process_group(os.environ.get("DDP_BACKEND", "nccl"))
    rank = dist.get_rank()
    local = int(os.environ.get("LOCAL_RANK", rank)) % torch.cuda.device_count()
    torch.cuda.set_device(local)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 512)).cuda()
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=[local])
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    g = torch.Generator(device="cuda").manual_seed(100 + rank)
    losses = []
    for _ in range(10):
        x = torch.randn(64, 512, device="cuda", generator=g)
        loss = (ddp(x) - x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    if rank == 0:
        print("losses " + " ".join(f"{v:.8f}" for v in losses), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
