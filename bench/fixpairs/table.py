#!/usr/bin/env python3
"""table.py -- bench/fixpairs's table (issue 40): per pair, the saving its fix
brings (slow minus fixed, medians of the program's CUDA-event times) beside
memheat's estimated saving on the slow kernel, from `memheat analyze --json`
of the profile of the program holding every slow kernel.

    table.py --plain plain.txt --profile slow.profile.json [--under under-memheat.txt]
             [--ncu ncu.csv] --out DIR

The estimate is the `saving_ns` of the profile's ranked causes (`fixes`) on
the pair's slow kernel(s) whose cause is the pair's (CAUSES below), divided by
the runs of the pair in the profiled program (one warm-up + MH_REPS: every
kernel of a pair runs once per run, the chain's 200 times), so that it reads
per run like the realised saving. `within`: |estimate - realised| <= 35% of
the realised saving, or <= 5% of the slow time when the saving is that small
(misaligned: 3%). `rank`: memheat's rank of the pair's first fix in the
profile. `under_realised_us`: the same program's own times of both variants
while it ran under `memheat run` (--under: the `time` lines of its output),
slow minus fixed, the saving on the timeline memheat saw; `under_ratio`: the
estimate against it. Writes DIR/table.tsv (the recorded form judge.py reads)
and DIR/table.md. Python standard library only.
"""
import argparse
import csv
import json
import os
import re
import sys

# pair -> (causes memheat should name on the slow kernel, kernels of the slow variant)
CAUSES = {
    "transpose": (["uncoalesced", "strided", "false_sharing"], ["transpose_slow"]),
    "gemv_rows": (["uncoalesced", "strided"], ["gemv_rows_slow"]),
    "aos": (["uncoalesced", "strided"], ["aos_slow"]),
    "misaligned": (["misaligned"], ["misaligned_slow"]),
    "bank32": (["bank_conflict"], ["bank32_slow"]),
    "bank8": (["bank_conflict"], ["bank8_slow"]),
    "bank16": (["bank_conflict"], ["bank16_slow"]),
    "reduce": (["bank_conflict"], ["reduce_slow"]),
    "smem_abuse": (["smem_abuse", "smem_abuse_thread", "smem_abuse_warp"], ["smem_abuse_slow"]),
    "hot_spot": (["hot", "hot_spot", "random_hot"], ["hot_spot_slow"]),
    "atomic": (["atomic_contention", "atomic"], ["atomic_slow"]),
    "false_sharing": (["uncoalesced", "false_sharing", "strided"], ["false_sharing_slow"]),
    "gather": (["irregular", "uncoalesced"], ["gather_slow"]),
    "small_grid": (["small_grid"], ["small_grid_slow"]),
    "launch_chain": (["launch_chain", "launch_bound"], ["chain_scale", "chain_shift", "chain_square"]),
    "latency": (["latency_bound"], ["latency_slow"]),
    "pageable": (["pageable_copy"], ["memcpy"]),
}


def read_plain(path):
    """time <pair> <variant> <kernels> median_us <m> ... -> {pair: {variant: median_us}}"""
    out, checks = {}, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[0] == "time":
                out.setdefault(w[1], {})[w[2]] = float(w[5])
            elif len(w) == 3 and w[0] == "check":
                checks[w[1]] = w[2]
    return out, checks


def base_name(k):
    """a kernel's base name from a mangled or demangled name: _Z14transpose_slowPKfPfi -> transpose_slow"""
    m = re.match(r"_Z(\d+)(\w+)", k)
    if m:
        return m.group(2)[: int(m.group(1))]
    m = re.search(r"(\w+)\s*(<.*>)?\s*\(", k)
    return m.group(1) if m else k


PAGEABLE_BYTES = 256 << 20  # one copy of the pageable pair


def estimates(profile, runs):
    """{pair: [estimate_us per run, causes seen on the slow kernel, memheat's rank of its first fix]}

    The estimate adds the savings of the fixes of the pair's cause on its slow
    kernel(s) (a fix per object: false_sharing_slow's two arrays), divided by
    the runs of the pair in the profiled program; the pageable pair's share of
    the run's pageable-copy fix is by bytes (the program's input uploads are
    pageable too)."""
    fixes = profile.get("fixes")
    est = {}
    if fixes is None:  # a memheat without ranked causes: findings only, no estimate
        for f in profile.get("findings", []):
            b = base_name(f.get("kernel", ""))
            for pair, (_, kernels) in CAUSES.items():
                if b in kernels:
                    est.setdefault(pair, [None, [], None])[1].append(f.get("kind"))
        return est
    for f in fixes:
        names = [base_name(k) for k in (f.get("kernels") or f.get("kernel", "")).split(" + ")]
        for pair, (causes, kernels) in CAUSES.items():
            hit = any(n in kernels for n in names) or (pair == "pageable" and f.get("cause") == "pageable_copy")
            if not hit:
                continue
            e = est.setdefault(pair, [None, [], None])
            e[1].append(f.get("cause"))
            if f.get("cause") in causes and f.get("saving_ns") is not None:
                s = f["saving_ns"]
                if pair == "pageable":
                    s = s * PAGEABLE_BYTES / f.get("bytes", PAGEABLE_BYTES) * runs
                e[0] = (e[0] or 0.0) + s / 1000.0 / runs
                if e[2] is None:
                    e[2] = f.get("rank")
    return est


def read_ncu(path):
    """{kernel base name: {metric: value}} (the last launch of each kernel)"""
    res = {}
    if not path or not os.path.exists(path):
        return res
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        k = base_name(row.get("Kernel Name", ""))
        try:
            v = float(row.get("Metric Value", "").replace(",", ""))
        except ValueError:
            continue
        res.setdefault(k, {})[row.get("Metric Name")] = v
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plain", required=True)
    ap.add_argument("--profile", required=True)
    ap.add_argument("--ncu")
    ap.add_argument("--under", help="the program's own times while under memheat run (time lines)")
    ap.add_argument("--runs", type=int, default=7, help="runs of each pair in the profiled program (1 + MH_REPS)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    plain, checks = read_plain(a.plain)
    try:
        with open(a.profile) as f:
            prof = json.load(f)
    except (OSError, ValueError) as e:
        print(f"table.py: {a.profile}: {e}", file=sys.stderr)
        prof = {}
    est = estimates(prof, a.runs)
    under = read_plain(a.under)[0] if a.under else {}
    ncu = read_ncu(a.ncu)
    rows = []
    tol, floor = 0.35, 0.05
    for pair in CAUSES:
        t = plain.get(pair, {})
        slow, fixed = t.get("slow"), t.get("fixed")
        real = slow - fixed if slow is not None and fixed is not None else None
        e, seen, rank = est.get(pair, [None, [], None])
        ratio = e / real if e is not None and real and real > 0 else None
        u = under.get(pair, {})
        ureal = u["slow"] - u["fixed"] if "slow" in u and "fixed" in u else None
        uratio = e / ureal if e is not None and ureal and ureal > 0 else None
        within = None
        if e is not None and real is not None and slow:
            within = "yes" if abs(e - real) <= max(tol * abs(real), floor * slow) else "no"
        rows.append({
            "pair": pair, "slow_us": slow, "fixed_us": fixed, "realised_us": real, "estimate_us": e,
            "ratio": ratio, "within": within, "rank": rank, "under_realised_us": ureal, "under_ratio": uratio,
            "causes_seen": ",".join(dict.fromkeys(c for c in seen if c)) or "-",
            "check": checks.get(pair, "-"),
            "ncu_slow_us": (ncu.get(CAUSES[pair][1][0], {}).get("gpu__time_duration.sum") or 0) / 1000 or None,
        })
    os.makedirs(a.out, exist_ok=True)
    cols = ["pair", "slow_us", "fixed_us", "realised_us", "estimate_us", "ratio", "within", "rank",
            "under_realised_us", "under_ratio", "causes_seen", "check", "ncu_slow_us"]
    fmt = lambda v: "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))
    with open(os.path.join(a.out, "table.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(fmt(r[c]) for c in cols) + "\n")
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
        for r in rows:
            f.write("| " + " | ".join(fmt(r[c]) for c in cols) + " |\n")
    for r in rows:
        print("  ".join(f"{c}={fmt(r[c])}" for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
