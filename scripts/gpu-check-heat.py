#!/usr/bin/env python3
"""gpu-check-heat.py -- checks the heat maps of the CUDA examples against the
patterns the CUTHERMO paper describes (used by scripts/gpu-check.sh).

usage: gpu-check-heat.py CASE DIR
DIR holds `memheat heatmap -o DIR` output (launch<ID>_<space>.csv) for the
launches of the case's kernel. Prints one line per check; exit 1 if any fails.
Temperatures are distinct warps of the sampled block (block 0, 256 threads =
8 warps in every example)."""
import csv, glob, os, re, sys


def load(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            w = [int(r["w%d" % i]) for i in range(8)]
            rows.append((int(r["region"]), w, int(r["sector"])))
    return rows


def maps(d, space):
    out = []
    for p in glob.glob(os.path.join(d, "launch*_%s.csv" % space)):
        m = re.search(r"launch(\d+)_", os.path.basename(p))
        out.append((int(m.group(1)), p))
    return [p for _, p in sorted(out)]


def by_region(rows):
    g = {}
    for reg, w, s in rows:
        g.setdefault(reg, []).append((w, s))
    return g


def frac(rs, pred):
    return sum(1 for w, s in rs if pred(w, s)) / max(1, len(rs))


HOT8 = lambda w, s: max(w) == 8 and s == 8 and min(w) == 8
FS4 = lambda w, s: max(w) == 1 and s == 4
ONE = lambda w, s: max(w) == 1 and s == 1


def check(name, ok, detail):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
    return ok


def regions_matching(rows, pred, need=0.9):
    return [r for r, rs in by_region(rows).items() if r >= 0 and len(rs) >= 8 and frac(rs, pred) >= need]


def main():
    case, d = sys.argv[1], sys.argv[2]
    ok = True
    g = maps(d, "global")
    s = maps(d, "shared")
    if case in ("gemm_v00", "gemm_v01"):
        if not check(case, len(g) >= 1, "%d global maps" % len(g)):
            return 1
        rows = load(g[0])
        hot = regions_matching(rows, HOT8)
        fs = regions_matching(rows, FS4)
        one = regions_matching(rows, ONE)
        if case == "gemm_v00":
            ok &= check(case + " A hot", len(hot) == 1, "regions with words 8 / sector 8: %s" % hot)
            ok &= check(case + " B,C false sharing", len(fs) == 2, "regions with words 1 / sector 4: %s" % fs)
        else:
            ok &= check(case + " B hot", len(hot) == 1, "regions with words 8 / sector 8: %s" % hot)
            ok &= check(case + " A,C coalesced", len(one) == 2 and not fs,
                        "regions 1/1: %s, regions 1/4: %s" % (one, fs))
    elif case == "spmv":
        rows = load(g[0])
        found = []
        for r, rs in by_region(rows).items():
            two = sum(1 for w, sec in rs if sec == 2)
            if r >= 0 and two >= 5 and all(sec <= 2 for w, sec in rs) and two / len(rs) >= 0.15:
                # a misaligned boundary sector: words split between two warps
                if all(max(w) <= 2 for w, sec in rs if sec == 2):
                    found.append((r, two, len(rs)))
        ok &= check("spmv rowOffsets misaligned", len(found) >= 1,
                    "regions with >=15%% of sectors shared by 2 warps at warp boundaries: %s" % found)
    elif case == "gramschmidt":
        rows = load(g[0])  # first kernel3 launch (k = 0): every active warp reads q[i*n + 0]
        # n = 128 leaves 4 active warps in the 256-thread block; n >= 256 all 8.
        strided = lambda w, sec: sorted(w)[-2] == 0 and max(w) == sec and sec >= 4
        reg = regions_matching(rows, strided)
        ok &= check("gramschmidt kernel3 q strided", len(reg) >= 1,
                    "regions where each sector has one word read by all active warps (>= 4) and 7 unused: %s" % reg)
    elif case == "smem_private":
        if not check(case, len(s) >= 1, "%d shared maps" % len(s)):
            return 1
        rows = load(s[0])
        ok &= check("smem_private thread-private", len(rows) >= 32 and all(ONE(w, sec) and min(w) == 1 for _, w, sec in rows),
                    "%d shared sectors, all words 1 / sector 1: %s" % (len(rows), all(ONE(w, sec) for _, w, sec in rows)))
    elif case == "smem_broadcast":
        if not check(case, len(s) >= 1, "%d shared maps" % len(s)):
            return 1
        rows = load(s[0])
        ok &= check("smem_broadcast warp-local", len(rows) == 1 and rows[0][1] == [1] * 8 and rows[0][2] == 8,
                    "rows: %s" % rows[:4])
    elif case in ("coalesced", "coalesced_config"):
        want = 100 if case == "coalesced" else 1  # every launch, or the first of its one configuration
        ok &= check(case + " launches", len(g) == want, "%d traced saxpy launches (2 threads x 50; %d expected)"
                    % (len(g), want))
        bad = 0
        for p in g:
            rows = load(p)
            if len(regions_matching(rows, ONE, 1.0)) != 2:
                bad += 1
        ok &= check("coalesced 1/1", bad == 0, "%d of %d launches not perfectly coalesced in x and y" % (bad, len(g)))
    else:
        print("unknown case " + case)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
