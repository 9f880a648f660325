#!/usr/bin/env python3
"""compare.py -- bench/timing's measurements, side by side in one run (GPU machine).

Called by run.sh after the build. For the workload kernels.cu (copy, SAXPY,
transpose; --reps launches each):
  1. end-to-end wall time: plain program vs program under memheat's timing pass
     (CUPTI Activity only), interleaved runs, medians -> overhead ratio;
  2. memheat's full timing (clean pass + counters pass) via mh-timing-tool;
  3. ncu (--clock-control none, so neither tool touches clocks) with
     gpu__time_duration.sum and dram__bytes_{read,write}.sum, with
     --cache-control all (ncu's default) and none;
  4. per kernel: median GPU time memheat vs ncu (target within 5%), median
     DRAM bytes memheat vs ncu (target within 2%);
  5. SAXPY: memheat's effective bandwidth (DRAM bytes / GPU time) vs the blog's
     N*4*3 / t with memheat's time and with the program's own event timing.
Writes results.json and results.md to --out and prints the table.
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import time

KERNELS = ["copy_kernel", "saxpy_kernel", "transpose_kernel"]


def run(cmd, env=None, check=True, capture=True):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.PIPE if capture else None, text=True)
    dt = time.perf_counter() - t0
    if check and p.returncode != 0:
        sys.stderr.write(f"FAILED ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}\n")
        raise SystemExit(1)
    return p, dt


def base_name(name):
    for k in KERNELS:
        if k in name:
            return k
    return None


def ncu_metrics(ncu, prog, cache, outdir):
    cmd = [ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--cache-control", cache,
           "--metrics", "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"] + prog
    p, dt = run(cmd)
    with open(os.path.join(outdir, f"ncu_{cache}.csv"), "w") as f:
        f.write(p.stdout)
    lines = [l for l in p.stdout.splitlines() if l.startswith('"')]
    per = {}  # (id, kernel) -> {metric: value}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        k = base_name(row.get("Kernel Name", ""))
        if not k:
            continue
        v = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "")
        if row["Metric Name"] == "gpu__time_duration.sum":
            v *= {"nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
                  "second": 1e9, "s": 1e9}.get(unit, 1)
        per.setdefault((row["ID"], k), {})[row["Metric Name"]] = v
    out = {k: {"time_ns": [], "dram_bytes": []} for k in KERNELS}
    for (_, k), m in per.items():
        out[k]["time_ns"].append(m.get("gpu__time_duration.sum", float("nan")))
        out[k]["dram_bytes"].append(m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0))
    return out, dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--n", type=int, default=1 << 26)
    ap.add_argument("--side", type=int, default=8192)
    ap.add_argument("--ncu", default="ncu")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    b = os.path.abspath(a.build)
    prog = [os.path.join(b, "kernels"), "--n", str(a.n), "--reps", str(a.reps), "--side", str(a.side)]
    lib = os.path.join(b, "lib", "memheat", "libmemheat_cupti.so")
    tool = os.path.join(b, "mh-timing-tool")
    res = {"workload": {"n": a.n, "side": a.side, "reps": a.reps, "runs": a.runs}}

    # warm-up (driver load, page cache), then interleaved runs of: the plain
    # program, the timing pass with kernel times from events (memheat's
    # default), and with kernel times from CUPTI activity records
    run(prog)
    variants = {"plain": None, "events": "events", "activity": "activity"}
    wall = {v: [] for v in variants}
    outs = {v: set() for v in variants}
    evt = {v: [] for v in variants}
    for i in range(a.runs):
        for v, kt in variants.items():
            env = None
            if kt:
                env = dict(os.environ, CUDA_INJECTION64_PATH=lib, MEMHEAT_TIMING_MODE="timing",
                           MEMHEAT_TIMING_KERNELS=kt, MEMHEAT_TIMING_OUT=os.path.join(b, f"pass_{v}{i}.json"))
            p, dt = run(prog, env=env)
            wall[v].append(dt)
            outs[v].add(p.stdout)
            line = next((l for l in p.stderr.splitlines() if l.startswith("event-timed")), "")
            evt[v].append([float(x) for x in line.replace(",", " ").split()[4::2]] if line else [])
    plain_med = statistics.median(wall["plain"])
    res["overhead"] = {
        "wall_s": wall,
        "median_s": {v: statistics.median(w) for v, w in wall.items()},
        "ratio": {v: statistics.median(w) / plain_med for v, w in wall.items()},
        "outputs_identical": len(set().union(*outs.values())) == 1,
        "program_event_medians_us": {v: [statistics.median(x[k] for x in evt[v] if x) for k in range(3)]
                                     for v in variants if any(evt[v])},
    }
    # the pass files: how many kernels each method saw, and their medians
    per_method = {}
    for v in ("events", "activity"):
        with open(os.path.join(b, f"pass_{v}0.json")) as f:
            j = json.load(f)
        d = {k: [] for k in KERNELS}
        for k in j["kernels"]:
            n = base_name(k["name"])
            if n:
                d[n].append(k["end_ns"] - k["start_ns"])
        per_method[v] = {k: (len(x), statistics.median(x) if x else None) for k, x in d.items()}
        per_method[v]["dropped_records"] = j.get("dropped_records")
        per_method[v]["kernel_timing"] = j.get("kernel_timing")
    res["per_method_run0"] = per_method

    # memheat: clean timing pass + counters pass, through mh_run_timing
    full = os.path.join(a.out, "memheat_timing.json")
    p, dt = run([tool, "run", "-o", full, "--"] + prog)
    res["memheat_run_s"] = dt
    with open(os.path.join(a.out, "memheat_table.txt"), "w") as f:
        f.write(p.stdout)
    print(p.stdout)
    with open(full) as f:
        mj = json.load(f)
    mh = {k: {"time_ns": [], "dram_bytes": [], "counters": []} for k in KERNELS}
    for k in mj["kernels"]:
        n = base_name(k["name"])
        if not n:
            continue
        mh[n]["time_ns"].append(k["end_ns"] - k["start_ns"])
        c = k.get("counters")
        if c and "dram_read_bytes" in c:
            mh[n]["dram_bytes"].append(c["dram_read_bytes"] + c.get("dram_write_bytes", 0))
            mh[n]["counters"].append(c)
    res["memheat_counters"] = mj.get("counters")
    res["memheat_runs"] = mj.get("runs")

    ncu_all, t_all = ncu_metrics(a.ncu, prog, "all", a.out)
    ncu_none, t_none = ncu_metrics(a.ncu, prog, "none", a.out)
    res["ncu_wall_s"] = {"all": t_all, "none": t_none}

    rows = []
    for k in KERNELS:
        med = lambda v: statistics.median(v) if v else float("nan")
        r = {
            "kernel": k, "launches_memheat": len(mh[k]["time_ns"]), "launches_ncu": len(ncu_none[k]["time_ns"]),
            "memheat_time_ns": med(mh[k]["time_ns"]),
            "ncu_time_ns_cache_none": med(ncu_none[k]["time_ns"]), "ncu_time_ns_cache_all": med(ncu_all[k]["time_ns"]),
            "memheat_dram_bytes": med(mh[k]["dram_bytes"]),
            "ncu_dram_bytes_cache_all": med(ncu_all[k]["dram_bytes"]),
            "ncu_dram_bytes_cache_none": med(ncu_none[k]["dram_bytes"]),
        }
        act = res["per_method_run0"]["activity"][k][1]
        r["memheat_activity_time_ns"] = act if act is not None else float("nan")
        r["activity_diff_pct_vs_none"] = 100 * (r["memheat_activity_time_ns"] / r["ncu_time_ns_cache_none"] - 1)
        r["time_diff_pct_vs_none"] = 100 * (r["memheat_time_ns"] / r["ncu_time_ns_cache_none"] - 1)
        r["time_diff_pct_vs_all"] = 100 * (r["memheat_time_ns"] / r["ncu_time_ns_cache_all"] - 1)
        r["dram_diff_pct_vs_all"] = 100 * (r["memheat_dram_bytes"] / r["ncu_dram_bytes_cache_all"] - 1)
        r["dram_diff_pct_vs_none"] = 100 * (r["memheat_dram_bytes"] / r["ncu_dram_bytes_cache_none"] - 1)
        rows.append(r)
    res["kernels"] = rows

    sx = next(r for r in rows if r["kernel"] == "saxpy_kernel")
    blog_bytes = a.n * 4 * 3
    an = {x["name"]: x for x in mj.get("analysis", {}).get("kernels", [])}
    mh_saxpy = next((v for kname, v in an.items() if "saxpy_kernel" in kname), {})
    res["saxpy"] = {
        "blog_bytes_N*4*3": blog_bytes,
        "memheat_dram_bytes_median": sx["memheat_dram_bytes"],
        "bytes_diff_pct": 100 * (sx["memheat_dram_bytes"] / blog_bytes - 1),
        "blog_bw_with_memheat_time_GBps": blog_bytes / sx["memheat_time_ns"],
        "memheat_effective_GBps": (mh_saxpy.get("effective_Bps") or float("nan")) / 1e9,
        "program_event_medians_us": res["overhead"]["program_event_medians_us"],
        "analysis_row": mh_saxpy,
    }
    res["devices"] = mj.get("devices")
    res["analysis_devices"] = mj.get("analysis", {}).get("devices")

    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    md = ["| kernel | launches | memheat median GPU time (ns) | ncu gpu__time_duration median, cache none / all (ns) "
          "| diff vs none / all | CUPTI activity-record time (ns), diff vs none | memheat DRAM bytes (median) | ncu dram bytes, cache all / none | diff vs all / none |",
          "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['kernel']} | {r['launches_memheat']}/{r['launches_ncu']} | {r['memheat_time_ns']:.0f} | "
                  f"{r['ncu_time_ns_cache_none']:.0f} / {r['ncu_time_ns_cache_all']:.0f} | "
                  f"{r['time_diff_pct_vs_none']:+.2f}% / {r['time_diff_pct_vs_all']:+.2f}% | "
                  f"{r['memheat_activity_time_ns']:.0f}, {r['activity_diff_pct_vs_none']:+.2f}% | "
                  f"{r['memheat_dram_bytes']:.0f} | {r['ncu_dram_bytes_cache_all']:.0f} / "
                  f"{r['ncu_dram_bytes_cache_none']:.0f} | {r['dram_diff_pct_vs_all']:+.3f}% / "
                  f"{r['dram_diff_pct_vs_none']:+.3f}% |")
    o = res["overhead"]
    s = res["saxpy"]
    md.append("")
    md.append(f"end-to-end medians ({a.runs} interleaved runs each): " +
              ", ".join(f"{v} {o['median_s'][v]:.3f} s ({o['ratio'][v]:.3f}x)" for v in o["median_s"]) +
              f"; outputs identical: {o['outputs_identical']}")
    md.append(f"program's own event-timed medians (us) copy/saxpy/transpose by variant: {o['program_event_medians_us']}")
    md.append(f"per method (run 0: launches, median ns): {res['per_method_run0']}")
    md.append(f"SAXPY: blog bytes N*4*3 = {blog_bytes}, memheat DRAM bytes {s['memheat_dram_bytes_median']:.0f} "
              f"({s['bytes_diff_pct']:+.3f}%); blog bandwidth with memheat's time {s['blog_bw_with_memheat_time_GBps']:.1f} GB/s, "
              f"memheat effective bandwidth {s['memheat_effective_GBps']:.1f} GB/s")
    md.append(f"memheat counters pass: {res['memheat_counters']}; runs: {res['memheat_runs']}")
    text = "\n".join(md)
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
