#!/usr/bin/env python3
"""summarize.py -- turns bench/overhead/run.sh's runs.csv and *_memheat.stats
into the overhead table (median of the runs; ratios to the plain run;
geometric means). usage: summarize.py RESULT_DIR"""
import csv, math, os, re, statistics, sys


def main():
    d = sys.argv[1]
    runs = {}
    gpu_plain = {}
    bad = []
    with open(os.path.join(d, "runs.csv")) as f:
        for r in csv.DictReader(f):
            key = (r["workload"], r["mode"])
            if r["rc"] != "0":
                bad.append("%s/%s rep %s exit %s" % (r["workload"], r["mode"], r["rep"], r["rc"]))
            runs.setdefault(key, []).append(float(r["wall_s"]))
            if r["mode"] == "plain" and r["gpu_ms"]:
                gpu_plain.setdefault(r["workload"], []).append(float(r["gpu_ms"]))
    workloads = []
    for w, _ in runs:
        if w not in workloads:
            workloads.append(w)
    modes = ["plain", "memheat", "collector", "memcheck", "ncu"]
    print("Median wall time per mode (seconds) and its ratio to the plain run; runs = runs per mode.\n")
    print("| workload | runs | plain s | memheat s (x) | collector s (x) | memcheck s (x) | ncu s (x) | traced-kernel GPU time x |")
    print("|---|---|---|---|---|---|---|---|")
    logs = {m: [] for m in modes}
    for w in workloads:
        med = {m: statistics.median(runs[(w, m)]) for m in modes if (w, m) in runs}
        cells = ["%.2f" % med["plain"]]
        for m in modes[1:]:
            if m in med:
                x = med[m] / med["plain"]
                logs[m].append(math.log(x))
                cells.append("%.2f (%.2f)" % (med[m], x))
            else:
                cells.append("-")
        gx = "-"
        st = os.path.join(d, "%s_collector.stats" % w)
        if os.path.exists(st) and w in gpu_plain:
            m = re.search(r"total launches (\d+) recorded (\d+) dropped (\d+) gpu_ns (\d+)", open(st).read())
            if m and int(m.group(4)) > 0:
                gx = "%.2f (%s launches)" % (int(m.group(4)) / 1e6 / statistics.median(gpu_plain[w]), m.group(1))
        nrun = min(len(runs[(w, m)]) for m in modes if (w, m) in runs)
        print("| %s | %d | %s | %s |" % (w, nrun, " | ".join(cells), gx))
    print()
    for m in modes[1:]:
        if logs[m]:
            print("geometric-mean end-to-end overhead, %s: %.2fx" % (m, math.exp(sum(logs[m]) / len(logs[m]))))
    below = all(statistics.median(runs[(w, "memheat")]) < statistics.median(runs[(w, "ncu")])
                for w in workloads if (w, "memheat") in runs and (w, "ncu") in runs)
    print("memheat below ncu on every workload: %s" % ("yes" if below else "no"))
    if bad:
        print("\nnon-zero exits: " + "; ".join(bad))


if __name__ == "__main__":
    main()
