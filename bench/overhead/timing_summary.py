"""Summary of a memheat timing file (JSON): kernels, copies, timed marks,
median span per kernel name (top 5 by count), copies by kind with their
median span and GB/s. usage: python3 timing_summary.py FILE.timing.json"""
import collections
import json
import statistics
import sys

t = json.load(open(sys.argv[1]))
ks = t.get("kernels", [])
cs = t.get("copies", [])
print(f"{sys.argv[1]}: {len(ks)} kernels, {len(cs)} copies, dropped {t.get('dropped_records', 0)}, "
      f"devices {len(t.get('devices', []))}")
marks = collections.Counter(k.get("timed", "clean") for k in ks)
print("  timed:", dict(marks))
by = collections.defaultdict(list)
for k in ks:
    by[k.get("name", "?")].append(k["end_ns"] - k["start_ns"])
for name, v in sorted(by.items(), key=lambda kv: -len(kv[1]))[:5]:
    print(f"  {len(v):6d} x {name[:70]}: median {statistics.median(v) / 1e3:.1f} us, min {min(v) / 1e3:.1f} us")
streams = collections.Counter(k.get("stream", 0) for k in ks)
print("  kernel streams:", dict(streams.most_common(5)))
byc = collections.defaultdict(list)
for c in cs:
    byc[c.get("kind", "?")].append(c)
for kind, v in byc.items():
    spans = [c["end_ns"] - c["start_ns"] for c in v]
    b = statistics.median(c["bytes"] for c in v)
    m = statistics.median(spans)
    print(f"  {len(v):6d} x {kind}: median {b:.0f} B, {m / 1e3:.1f} us, {b / m if m else 0:.2f} GB/s")
