#!/usr/bin/env python3
"""compare.py -- bench/truth: memheat's per-kernel figures against independent tools.

  compare.py times PROFILE.mhdb REF.tsv
      per kernel name: launches and median/total time in memheat's profile
      (table `kernel`) against CUPTI's activity records (ref_activity.c);
      prints the table and one summary line (counts equal, medians within
      3%, totals).
  compare.py ncu TIMING.json NCU.csv
      launch i of ncu's CSV (--csv --print-units base, gpu__time_duration.sum)
      against launch i of memheat's timing file (the same program, the same
      launch order): per kernel name the median over the launches ncu
      profiled; kernels over 20 us are judged at +-10%.
Exit status 0; the judgement is in the summary lines."""
import collections
import csv
import json
import sqlite3
import statistics
import sys


def times(db, ref):
    r = {}
    for line in open(ref):
        tag, n, med, tot, name = line.rstrip("\n").split("\t", 4)
        r[name] = (int(n), float(med), float(tot))
    m = {}
    for name, cnt, tot, med in sqlite3.connect(db).execute("SELECT name, count, total_ns, median_ns FROM kernel"):
        m[name] = (cnt, tot, med)
    print("%-64s %6s %6s %10s %10s %6s %11s %11s" % ("kernel", "n ref", "n mh", "med ref", "med mh", "ratio",
                                                     "total ref", "total mh"))
    eq = timed = within = 0
    for name in sorted(set(r) | set(m), key=lambda n: -r.get(n, (0, 0, 0))[2]):
        a, b = r.get(name), m.get(name)
        ratio = b[2] / a[1] if a and b and b[2] and a[1] else float("nan")
        eq += bool(a and b and a[0] == b[0])
        if a and b and b[2]:
            timed += 1
            within += abs(ratio - 1) <= 0.03
        print("%-64.64s %6s %6s %10s %10s %6.3f %11s %11s" % (
            name, a[0] if a else "-", b[0] if b else "-", "%.0f" % a[1] if a else "-",
            "%.0f" % b[2] if b and b[2] else "-", ratio, "%.0f" % a[2] if a else "-",
            "%.0f" % b[1] if b and b[1] is not None else "-"))
    print("summary: kernels ref %d, memheat %d; launch counts equal %d; medians timed %d, within 3%% %d; "
          "total ref %.3f ms, memheat %.3f ms" % (len(r), len(m), eq, timed, within,
                                                 sum(v[2] for v in r.values()) / 1e6,
                                                 sum((v[1] or 0) for v in m.values()) / 1e6))


def ncu(timing, path):
    rows = list(csv.reader(open(path)))
    hdr, per = None, collections.defaultdict(dict)
    for row in rows:
        if "Kernel Name" in row and "Metric Name" in row:
            hdr = row
            continue
        if not hdr or len(row) != len(hdr):
            continue
        d = dict(zip(hdr, row))
        try:
            per[int(d["ID"])][d["Metric Name"]] = float(d["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    ks = sorted(json.load(open(timing))["kernels"], key=lambda k: k["seq"])
    by = collections.defaultdict(lambda: ([], []))
    for i in sorted(per):
        if i < len(ks) and "gpu__time_duration.sum" in per[i]:
            k = ks[i]
            by[k["name"]][0].append(per[i]["gpu__time_duration.sum"])
            by[k["name"]][1].append(k["end_ns"] - k["start_ns"])
    print("%-64s %4s %10s %10s %6s" % ("kernel", "n", "ncu", "memheat", "ratio"))
    over = within = 0
    for name, (a, b) in sorted(by.items(), key=lambda kv: -statistics.median(kv[1][0])):
        ma, mb = statistics.median(a), statistics.median(b)
        if ma > 20000:
            over += 1
            within += abs(mb / ma - 1) <= 0.10
        print("%-64.64s %4d %10.0f %10.0f %6.3f" % (name, len(a), ma, mb, mb / ma))
    print("summary: launches compared %d; kernels over 20 us %d, within 10%% of ncu %d" %
          (sum(len(v[0]) for v in by.values()), over, within))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "times":
        times(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "ncu":
        ncu(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
