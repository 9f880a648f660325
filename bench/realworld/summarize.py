#!/usr/bin/env python3
"""summarize.py RESULT_DIR -- medians per (workload, mode) of bench/realworld's
runs.tsv, their ratio to plain, whether the outputs equal plain's, profile
sizes, and the geometric mean per mode; writes RESULT_DIR/summary.txt (and
copies both files to $OUT, prefixed with $TAG, when OUT is set). Also for a
runs.tsv fetched from a run cut short."""
import csv, statistics, sys, os
R = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(R, "runs.tsv")), delimiter="\t"))
by = {}
for r in rows:
    by.setdefault((r["workload"], r["mode"]), []).append(r)
lines = ["workload     mode       runs  median_s  x_plain  rc  output_same_as_plain  profile_MB"]
ratios = {}
for (w, m), rs in by.items():
    med = statistics.median(float(r["wall_s"]) for r in rs)
    plain = by.get((w, "plain"))
    pm = statistics.median(float(r["wall_s"]) for r in plain) if plain else float("nan")
    same = "-"
    if plain and m in ("memheat", "notiming", "all", "one", "separate"):
        same = "yes" if {r["output"] for r in rs} == {plain[0]["output"]} else "NO"
    ratios.setdefault(m, []).append(med / pm)
    prof = max(int(r["profile_bytes"]) for r in rs) / 1e6
    lines.append("%-12s %-10s %4d  %8.2f  %7.2f  %s  %-20s  %s" % (w, m, len(rs), med, med / pm,
                 ",".join(sorted({r["rc"] for r in rs})), same, "%.1f" % prof if prof else "-"))
lines.append("")
for m, v in ratios.items():
    g = 1.0
    for x in v: g *= x
    lines.append("geomean x_plain %-10s %.2f over %d workloads" % (m, g ** (1 / len(v)), len(v)))
open(os.path.join(R, "summary.txt"), "w").write("\n".join(lines) + "\n")
if os.environ.get("OUT"):
    import shutil
    tag = os.environ.get("TAG", "")
    for f in ("summary.txt", "runs.tsv"):
        shutil.copy(os.path.join(R, f), os.path.join(os.environ["OUT"], tag + f))
print("\n".join(lines))
