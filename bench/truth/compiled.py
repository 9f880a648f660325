"""compiled.py -- bench/truth: torch.compile (Inductor, Triton kernels) of a small MLP block (LayerNorm, Linear,
GELU, Linear, residual), 3 warm-up steps then 20 timed training steps with AdamW; the fused elementwise and
reduction kernels are Triton's, the GEMMs cuBLAS's. Prints the losses a run under memheat must reproduce."""
import torch

torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln(x))))


model = torch.nn.Sequential(Block(1024), Block(1024)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
step_model = torch.compile(model)
g = torch.Generator(device="cpu").manual_seed(1)
x = torch.randn(64, 256, 1024, generator=g).to(dev)
losses = []
for i in range(23):
    opt.zero_grad(set_to_none=True)
    loss = step_model(x).pow(2).mean()
    loss.backward()
    opt.step()
    if i >= 3:
        losses.append(loss.item())
torch.cuda.synchronize()
print("losses " + " ".join("%.9g" % v for v in losses))
