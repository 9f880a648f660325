"""decoder.py -- the real-workload benchmark's dynamic-shape job (bench/realworld).

A 4-layer GPT-style decoder (causal self-attention, d_model 512, 8 heads,
feed-forward 2048, vocabulary 8,000), batch 8, trained for STEPS steps
(default 30) where every step has a sequence length of its own (drawn without
repeats from 64..512 by a seeded generator), as padding-free batching gives.
Every step launches the same kernels with new grids. Prints the training loop's
wall time (CUDA-synchronised) on stderr and the losses on stdout: a run under
memheat must print the same losses (deterministic algorithms: the embeddings'
backward would otherwise add in a different order from run to run)."""
import os
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
torch.use_deterministic_algorithms(True, warn_only=True)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
vocab, d = 8000, 512
emb = torch.nn.Embedding(vocab, d).to(dev)
pos = torch.nn.Embedding(512, d).to(dev)
layer = torch.nn.TransformerEncoderLayer(d_model=d, nhead=8, dim_feedforward=2048, dropout=0.0, batch_first=True,
                                         norm_first=True)
body = torch.nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False).to(dev)
norm = torch.nn.LayerNorm(d).to(dev)
head = torch.nn.Linear(d, vocab).to(dev)
params = list(emb.parameters()) + list(pos.parameters()) + list(body.parameters()) + \
    list(norm.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=1e-4)
g = torch.Generator(device="cpu").manual_seed(1)
lengths = (torch.randperm(512 - 64, generator=g)[:steps] + 64).tolist()
batches = [torch.randint(0, vocab, (8, n + 1), generator=g).to(dev) for n in lengths]
lossf = torch.nn.CrossEntropyLoss()
torch.cuda.synchronize()
t0 = time.perf_counter()
losses = []
for tok in batches:
    n = tok.shape[1] - 1
    x, y = tok[:, :n], tok[:, 1:]
    mask = torch.nn.Transformer.generate_square_subsequent_mask(n, device=dev)
    opt.zero_grad(set_to_none=True)
    h = emb(x) + pos(torch.arange(n, device=dev))
    out = head(norm(body(h, mask=mask, is_causal=True)))
    loss = lossf(out.reshape(-1, vocab), y.reshape(-1))
    loss.backward()
    opt.step()
    losses.append(loss.item())
torch.cuda.synchronize()
print("train_s %.4f" % (time.perf_counter() - t0), file=sys.stderr)
print("losses " + " ".join("%.9g" % v for v in losses))
