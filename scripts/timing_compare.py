#!/usr/bin/env python3
"""timing_compare.py ONE.timing.json SEPARATE.timing.json -- per-kernel medians of
the one run (traced and timed in one process) beside those of a separate,
un-instrumented timing run. Fails when the one run timed no kernel, lost
launches, or kept an instrumented time for a configuration launched more than
once."""
import json, statistics, sys
from collections import defaultdict

def load(p):
    with open(p) as f:
        return json.load(f)

def per_name(t):
    d = defaultdict(list)
    for k in t.get("kernels", []):
        d[k["name"]].append(k)
    return d

one, sep = load(sys.argv[1]), load(sys.argv[2])
a, b = per_name(one), per_name(sep)
bad = 0
n1, n2 = len(one.get("kernels", [])), len(sep.get("kernels", []))
print(f"kernels timed: one run {n1}, separate {n2}; copies: one run {len(one.get('copies', []))}, "
      f"separate {len(sep.get('copies', []))}; kernel_timing {one.get('kernel_timing')} / {sep.get('kernel_timing')}")
if n1 == 0 or n1 != n2:
    print("FAIL: launches timed differ"); bad = 1
for name in sorted(set(a) | set(b)):
    ka, kb = a.get(name, []), b.get(name, [])
    ma = statistics.median(k["end_ns"] - k["start_ns"] for k in ka) if ka else float("nan")
    mb = statistics.median(k["end_ns"] - k["start_ns"] for k in kb) if kb else float("nan")
    marks = defaultdict(int)
    for k in ka: marks[k.get("timed", "clean")] += 1
    print(f"  {name[:60]:60s} n={len(ka):5d}/{len(kb):5d} median {ma/1e3:10.2f} us / {mb/1e3:10.2f} us "
          f"ratio {ma/mb if mb else float('nan'):.3f} {dict(marks)}")
    if marks.get("instrumented") and len(ka) > 1:
        configs = defaultdict(int)
        for k in ka: configs[(tuple(k["grid"]), tuple(k["block"]), k.get("dyn_smem", 0))] += 1
        if any(v > 1 for v in configs.values()):
            print("  FAIL: instrumented time kept although its configuration ran untraced"); bad = 1
sys.exit(bad)
