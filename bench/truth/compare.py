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
  compare.py bytes TIMING.json NCU.csv
      the same pairing for DRAM bytes (dram__bytes_read.sum +
      dram__bytes_write.sum) against the counters memheat gave each launch:
      per kernel name the sums over the launches ncu profiled, judged at +-5%
      where ncu saw at least 1 MB.
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
    per = ncu_rows(path)
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


def ncu_rows(path):
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
    return per


def dram_bytes(path, path_ncu):
    per = ncu_rows(path_ncu)
    ks = sorted(json.load(open(path))["kernels"], key=lambda k: k["seq"])
    by = collections.defaultdict(lambda: [0, 0.0, 0.0, 0, 0.0, 0.0])
    for i in sorted(per):
        m = per[i]
        if i >= len(ks) or "dram__bytes_read.sum" not in m:
            continue
        c = ks[i].get("counters") or {}
        b = by[ks[i]["name"]]
        b[0] += 1
        b[1] += m["dram__bytes_read.sum"] + m.get("dram__bytes_write.sum", 0)
        b[4] += m["dram__bytes_read.sum"]
        if "dram_read_bytes" in c:
            b[2] += c["dram_read_bytes"] + c.get("dram_write_bytes", 0)
            b[5] += c["dram_read_bytes"]
            b[3] += 1
    print("%-64s %4s %4s %12s %12s %6s %6s" % ("kernel", "n", "ctr", "ncu bytes", "memheat", "ratio", "reads"))
    judged = within = 0
    for name, (n, nb, mb, nc, nr, mr) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        ratio = mb / nb if nb and nc == n else float("nan")
        if nb >= 1e6 * n:
            judged += 1
            within += abs(ratio - 1) <= 0.05
        print("%-64.64s %4d %4d %12.0f %12.0f %6.3f %6.3f" % (name, n, nc, nb, mb, ratio,
                                                          mr / nr if nr and nc == n else float("nan")))
    print("summary: launches compared %d; kernels with >= 1 MB per launch %d, bytes within 5%% of ncu %d" %
          (sum(v[0] for v in by.values()), judged, within))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "times":
        times(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "ncu":
        ncu(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "bytes":
        dram_bytes(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
