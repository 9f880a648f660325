#!/usr/bin/env python3
"""verdict_vs_ncu.py CASE PROFILE.mhdb NCU.csv -- each kernel's memheat verdict
(the profile's kernel.verdict figures) beside Nsight Compute's measurement of
the same kernel, and whether ncu's figures satisfy the verdict's own rule
(docs/timing.md, "Verdicts"):
  memory-bound   ncu DRAM throughput >= 60% of peak
  compute-bound  ncu SM throughput >= 60% of peak
  launch-bound   ncu median duration < 2 x 4 us
  small-grid     ncu grid size < half the SMs (issue 40: more than half of them idle)
  latency-bound  ncu DRAM and SM throughput < 60%, grid of at least half the SMs
  first-touch    not judged by ncu (it replays each launch): the figures only
  unknown        no rule: the figures only
Exit 1 when a judged verdict disagrees with ncu."""
import csv, json, sqlite3, statistics, sys

case, db, ncsv = sys.argv[1:4]
ROOF = 60.0

def fnum(s):
    try:
        return float(str(s).replace(",", ""))
    except ValueError:
        return None

# ncu: kernel (mangled) -> metric -> [values per launch]; its grid size (blocks) per kernel
ncu = {}
grid = {}
with open(ncsv, newline="") as f:
    lines = [l for l in f if l.startswith('"')]
for row in csv.DictReader(lines):
    k = row.get("Kernel Name")
    v = fnum(row.get("Metric Value"))
    if k is None or v is None:
        continue
    ncu.setdefault(k, {}).setdefault(row["Metric Name"], []).append(v)
    g = [int(x) for x in (row.get("Grid Size") or "").strip("()").split(",") if x.strip().isdigit()]
    if len(g) == 3:
        grid[k] = g[0] * g[1] * g[2]

def med(k, m):
    v = ncu.get(k, {}).get(m)
    return statistics.median(v) if v else None

con = sqlite3.connect(db)
sms = (con.execute("SELECT max(sm_count) FROM device WHERE source = 'timing'").fetchone() or [None])[0]
rows = con.execute("SELECT name, count, median_ns, verdict FROM kernel ORDER BY total_ns DESC").fetchall()
bad = 0
for name, count, median_ns, vj in rows:
    v = json.loads(vj) if vj else {}
    kind = v.get("verdict", "?")
    k = name if name in ncu else next((n for n in ncu if name in n or n in name), None)
    short = name if len(name) <= 40 else name[:37] + "..."
    fb, fc, waves = v.get("frac_bandwidth_roof"), v.get("frac_compute_roof"), v.get("waves")
    occ = v.get("achieved_occupancy_pct")
    mh = "memheat: %-13s n=%-4d median %8.1f us, bw roof %s, compute roof %s, waves %s, occ %s" % (
        kind, count, (median_ns or 0) / 1e3,
        "%.1f%%" % (fb * 100) if fb is not None else "-", "%.1f%%" % (fc * 100) if fc is not None else "-",
        "%.2f" % waves if waves is not None else "-", "%.0f%%" % occ if occ is not None else "-")
    if k is None:
        print("%s %-40s %s | ncu: not profiled (beyond -c)" % (case, short, mh))
        continue
    dur = med(k, "gpu__time_duration.sum")
    dram = med(k, "dram__throughput.avg.pct_of_peak_sustained_elapsed")
    sm = med(k, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    nw = med(k, "launch__waves_per_multiprocessor")
    nocc = med(k, "sm__warps_active.avg.pct_of_peak_sustained_active")
    nb = med(k, "dram__bytes.sum")
    judge = {
        "memory-bound": dram is not None and dram >= ROOF,
        "compute-bound": sm is not None and sm >= ROOF,
        "launch-bound": dur is not None and dur < 8000,
        "small-grid": None not in (grid.get(k), sms) and grid[k] < 0.5 * sms,
        "latency-bound": None not in (dram, sm, grid.get(k), sms) and dram < ROOF and sm < ROOF and grid[k] >= 0.5 * sms,
    }
    ok = judge.get(kind)
    tag = "agrees" if ok else ("DISAGREES" if ok is not None else "not judged")
    if ok is False:
        bad += 1
    print("%s %-40s %s | ncu (%d launches): %8.1f us, DRAM %.1f%%, SM %.1f%%, waves %.2f, occ %.0f%%, %.0f KB DRAM -> %s" % (
        case, short, mh, len(ncu[k].get("gpu__time_duration.sum", [])), (dur or 0) / 1e3, dram or 0, sm or 0,
        nw or 0, nocc or 0, (nb or 0) / 1e3, tag))
    print("    note: %s" % v.get("note", ""))
sys.exit(1 if bad else 0)
