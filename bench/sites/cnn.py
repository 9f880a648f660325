"""cnn.py -- a ResNet-style CNN training job (cuDNN convolutions, batch norm,
bf16 autocast) for memheat's call sites (bench/sites/gpu.sh). STEPS steps.
CHANNELS_LAST=1 keeps the model and its input in channels_last (bench/advice
checks its advice on it; its pairs.py imports make_model)."""
import os
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


def make_model(dev):
    return nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), Block(64), Block(64), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(64, 10)).to(dev)


def main():
    steps = int(os.environ.get("STEPS", "5"))
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = make_model(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 3, 64, 64, device=dev)
    y = torch.randint(0, 10, (32,), device=dev)
    if os.environ.get("CHANNELS_LAST") == "1":
        model = model.to(memory_format=torch.channels_last)
        x = x.to(memory_format=torch.channels_last)
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    print("loss %.6f" % loss.item())


if __name__ == "__main__":
    main()
