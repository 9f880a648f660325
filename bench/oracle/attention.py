#!/usr/bin/env python3
"""attention.py -- bench/oracle's PyTorch case (issue 17): one call of
scaled_dot_product_attention in FP32 on the memory-efficient backend, so that
PyTorch runs its CUTLASS kernel (fmha_cutlassF_f32_aligned_64x64_rf_sm80 on
an H100) exactly once; run.sh profiles it with ncu -k regex:fmha -c 1 and
memheat run --kernel fmha. The result is checked against the plain softmax
formula (exit 1 when wrong). Prints "KERNEL attention check=ok".
"""
import sys

import torch
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    b, h, n, d = 4, 8, 512, 64
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.float32) for _ in range(3))
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        ctx = sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION)
    except ImportError:  # torch < 2.3
        ctx = torch.backends.cuda.sdp_kernel(enable_flash=False, enable_math=False, enable_mem_efficient=True)
    with ctx:
        o = F.scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize()
    ref = torch.softmax((q @ k.transpose(-1, -2)) / d ** 0.5, dim=-1) @ v
    ok = torch.allclose(o, ref, rtol=1e-3, atol=1e-4)
    print(f"KERNEL attention check={'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
