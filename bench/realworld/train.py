"""train.py -- the real-workload benchmark's training job (bench/realworld).

A 4-layer PyTorch transformer encoder (d_model 512, 8 heads, feed-forward 2048),
batch 16 x 128 tokens, AdamW, STEPS training steps (default 10). Prints the
training loop's own wall time (CUDA-synchronised) and the losses, so a run under
memheat can be checked against a plain run: the losses must be identical.
TF32=1 lets the matmuls use TF32, FUSED=1 makes AdamW fused (bench/advice
checks its advice on them)."""
import os
import sys
import time

import torch

steps = int(os.environ.get("STEPS", "10"))
torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = os.environ.get("TF32") == "1"
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, dropout=0.0, batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False).to(dev)
head = torch.nn.Linear(512, 1000).to(dev)
opt = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=1e-4,
                        fused=os.environ.get("FUSED") == "1" or None)
g = torch.Generator(device="cpu").manual_seed(1)
x = torch.randn(16, 128, 512, generator=g).to(dev)
y = torch.randint(0, 1000, (16, 128), generator=g).to(dev)
lossf = torch.nn.CrossEntropyLoss()
torch.cuda.synchronize()
t0 = time.perf_counter()
losses = []
for _ in range(steps):
    opt.zero_grad(set_to_none=True)
    out = head(model(x))
    loss = lossf(out.reshape(-1, 1000), y.reshape(-1))
    loss.backward()
    opt.step()
    losses.append(loss.item())
torch.cuda.synchronize()
print("train_s %.4f" % (time.perf_counter() - t0), file=sys.stderr)
print("losses " + " ".join("%.9g" % v for v in losses))
