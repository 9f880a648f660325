"""pairs.py -- the measured pairs behind memheat's framework advice
(src/report/assets/advice.tsv): for each entry, the slow way a PyTorch
program commonly runs a kernel family and the change the advice names, timed
on the GPU, with the kernels each way runs (torch.profiler, CUPTI), and the
figures the table quotes (FIGURES: what each one times).

Each way is timed with CUDA events around ITERS calls, REPS times; the
figure is the median per call (min and max beside it). Prints one JSON object
per pair and writes pairs.json under $OUT (or the current folder).

    python3 bench/advice/pairs.py [pair ...]
"""
import json
import os
import statistics
import sys

import torch

dev = torch.device("cuda")
REPS = int(os.environ.get("REPS", "7"))


def timed(fn, iters, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(REPS):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iters):
            fn()
        e.record()
        e.synchronize()
        per.append(s.elapsed_time(e) * 1e3 / iters)  # us per call
    return {"median_us": statistics.median(per), "min_us": min(per), "max_us": max(per), "iters": iters, "reps": REPS}


def host_timed(fn, iters, warm=2):
    """For work that ends on the host (copies from pageable memory): wall time per call."""
    import time
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        per.append((time.perf_counter() - t0) * 1e6 / iters)
    return {"median_us": statistics.median(per), "min_us": min(per), "max_us": max(per), "iters": iters, "reps": REPS}


def kernels(fn):
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        fn()
        torch.cuda.synchronize()
    out = {}
    for ev in p.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            k = out.setdefault(ev.name, [0, 0.0])
            k[0] += 1
            k[1] += ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
    return [{"name": n, "count": c, "us": round(t, 2)} for n, (c, t) in sorted(out.items(), key=lambda kv: -kv[1][1])]


def gemm_tf32():
    """The transformer's feed-forward GEMMs (bench/realworld/train.py: 2048 tokens, 512 -> 2048 -> 512)."""
    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(2048, 512, generator=g).to(dev)
    w1 = torch.randn(2048, 512, generator=g).to(dev)
    w2 = torch.randn(512, 2048, generator=g).to(dev)

    def step():
        return torch.nn.functional.linear(torch.nn.functional.linear(x, w1), w2)

    def bf16():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return step()

    torch.backends.cuda.matmul.allow_tf32 = False
    slow = timed(step, 50), kernels(step)
    torch.backends.cuda.matmul.allow_tf32 = True
    fixed = timed(step, 50), kernels(step)
    torch.backends.cuda.matmul.allow_tf32 = False
    alt = timed(bf16, 50), kernels(bf16)
    return slow, fixed, {"bf16_autocast": alt}


def transpose_copy():
    """A transposed copy (x.transpose(-2, -1).contiguous(), 64 MiB) against a copy that keeps the layout."""
    x = torch.randn(64, 512, 512, device=dev)

    def slow():
        return x.transpose(-2, -1).contiguous()

    def fixed():
        return x.clone()

    heads = torch.randn(32, 1024, 16, 64, device=dev)

    def perm():
        return heads.permute(0, 2, 1, 3).contiguous()

    return (timed(slow, 20), kernels(slow)), (timed(fixed, 20), kernels(fixed)), {
        "permute_0213": (timed(perm, 20), kernels(perm))}


def elementwise_chain():
    """Eight elementwise operations on 64 K floats: eager, replayed as a CUDA graph, and torch.compile'd."""
    x = torch.randn(65536, device=dev)

    def chain(t):
        return (((((t * 1.5 + 0.5).sin() * t).relu() + t).sqrt() - t).exp() * 0.25).tanh()

    def eager():
        return chain(x)

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            chain(x)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        chain(x)

    def replay():
        graph.replay()

    extra = {"cuda_graph": (timed(replay, 200), kernels(replay))}
    fixed = None
    try:
        comp = torch.compile(chain)
        comp(x)

        def compiled():
            return comp(x)

        fixed = (timed(compiled, 200), kernels(compiled))
    except Exception as e:  # no compiler on this host: the graph stands for the fix
        extra["compile_error"] = str(e).splitlines()[0][:200]
        fixed = extra.pop("cuda_graph")
    return (timed(eager, 200), kernels(eager)), fixed, extra


def fused_adamw():
    """AdamW over the transformer's parameters (bench/realworld/train.py): foreach (the default) against fused=True."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, dropout=0.0, batch_first=True)
    model = torch.nn.Sequential(torch.nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False),
                                torch.nn.Linear(512, 1000)).to(dev)
    params = list(model.parameters())
    for p in params:
        p.grad = torch.randn_like(p) * 1e-3
    o1 = torch.optim.AdamW(params, lr=1e-4, foreach=True)
    o2 = torch.optim.AdamW(params, lr=1e-4, fused=True)
    return (timed(o1.step, 20), kernels(o1.step)), (timed(o2.step, 20), kernels(o2.step)), {
        "tensors": len(params), "elements": sum(p.numel() for p in params)}


def pinned_copy():
    """64 MiB host to device: from pageable memory against from pinned memory (non_blocking)."""
    h = torch.randn(16 * 1024 * 1024)
    hp = h.pin_memory()

    def slow():
        return h.to(dev)

    def fixed():
        return hp.to(dev, non_blocking=True)

    return (host_timed(slow, 10), kernels(slow)), (host_timed(fixed, 10), kernels(fixed)), {}


def cnn_channels_last():
    """One training step of bench/sites/cnn.py's ResNet-style CNN (bf16 autocast, batch 32, 64 x 64): the model and
    its input in NCHW (PyTorch's default) against channels_last."""
    import torch.nn as nn

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sites"))
    from cnn import make_model

    def make(fmt):
        torch.manual_seed(0)
        m = make_model(dev).to(memory_format=fmt)
        opt = torch.optim.SGD(m.parameters(), lr=0.01)
        x = torch.randn(32, 3, 64, 64, device=dev).to(memory_format=fmt)
        y = torch.randint(0, 10, (32,), device=dev)

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
        return step

    a, b = make(torch.contiguous_format), make(torch.channels_last)
    return (timed(a, 20), kernels(a)), (timed(b, 20), kernels(b)), {}


PAIRS = {f.__name__: f for f in (gemm_tf32, transpose_copy, elementwise_chain, fused_adamw, pinned_copy,
                                 cnn_channels_last)}


def ksum(ks, *parts):
    """GPU time of the kernels (and copies) whose names hold one of parts (none: all), us per call."""
    return sum(k["us"] for k in ks if not parts or any(p in k["name"] for p in parts))


# The figures the advice table (src/report/assets/advice.tsv) quotes, per pair: what they time, slow and fixed.
FIGURES = {
    "gemm_tf32": {"gemm": ("GPU time of the GEMM kernels per call", lambda r: (ksum(r["slow_kernels"]),
                                                                            ksum(r["fixed_kernels"])))},
    "transpose_copy": {"copy": ("GPU time of the copy per call", lambda r: (ksum(r["slow_kernels"]),
                                                                          ksum(r["fixed_kernels"])))},
    "elementwise_chain": {"graph": ("wall time per call, eager against one CUDA-graph replay",
                                    lambda r: (r["slow"]["median_us"], r["cuda_graph"]["time"]["median_us"])),
                          "compile": ("wall time per call, eager against torch.compile",
                                      lambda r: (r["slow"]["median_us"], r["fixed"]["median_us"]))},
    "fused_adamw": {"step": ("GPU time of the optimizer's kernels per step", lambda r: (ksum(r["slow_kernels"]),
                                                                                    ksum(r["fixed_kernels"])))},
    "pinned_copy": {"copy": ("time of the 64 MiB copy", lambda r: (ksum(r["slow_kernels"], "Memcpy"),
                                                                  ksum(r["fixed_kernels"], "Memcpy")))},
    "cnn_channels_last": {
        "conversions": ("GPU time of cuDNN's layout conversions per step",
                        lambda r: (ksum(r["slow_kernels"], "nchwToNhwc", "nhwcToNchw"),
                                   ksum(r["fixed_kernels"], "nchwToNhwc", "nhwcToNchw"))),
        "batch_norm": ("GPU time of the batch-norm kernels per step",
                       lambda r: (ksum(r["slow_kernels"], "batch_norm", "bn_"),
                                  ksum(r["fixed_kernels"], "batch_norm", "bn_"))),
        "step": ("wall time per training step", lambda r: (r["slow"]["median_us"], r["fixed"]["median_us"]))},
}


def main():
    names = sys.argv[1:] or list(PAIRS)
    res = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda, "pairs": {}}
    for n in names:
        slow, fixed, extra = PAIRS[n]()
        r = {"slow": slow[0], "slow_kernels": slow[1], "fixed": fixed[0], "fixed_kernels": fixed[1],
             "speedup": slow[0]["median_us"] / fixed[0]["median_us"]}
        for k, v in extra.items():
            r[k] = {"time": v[0], "kernels": v[1]} if isinstance(v, tuple) else v
        r["figures"] = {}
        for fig, (what, get) in FIGURES.get(n, {}).items():
            a, b = get(r)
            r["figures"][fig] = {"what": what, "slow_us": round(a, 1), "fixed_us": round(b, 1)}
            print(json.dumps({n + "/" + fig: r["figures"][fig]}), flush=True)
        res["pairs"][n] = r
        print(json.dumps({n: {"slow_us": round(slow[0]["median_us"], 2), "fixed_us": round(fixed[0]["median_us"], 2),
                              "speedup": round(r["speedup"], 3)}}), flush=True)
    with open(os.path.join(os.environ.get("OUT", "."), "pairs.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
