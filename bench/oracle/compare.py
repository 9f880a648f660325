#!/usr/bin/env python3
"""compare.py -- bench/oracle: memheat's figures beside Nsight Compute's (issue 17).

Joins, per kernel and per operation (shared / global, load / store), what
Nsight Compute counted on the whole kernel with what `memheat analyze --json`
computed on the blocks it traced:

  shared memory: wavefronts per warp instruction
      ncu:     l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum
               / smsp__inst_executed_op_shared_{ld,st}.sum
      memheat: bank_conflicts[].wavefronts / .requests (summed over the pcs)
  bank conflicts (extra wavefronts), ncu's scaled to memheat's traced blocks
      ncu:     l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum
               x traced blocks / grid blocks (x memheat requests / ncu
               instructions when the grid is unknown)
      memheat: bank_conflicts[].extra_wavefronts
  global memory: sectors per warp request
      ncu:     l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum
               / l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum
      memheat: global_requests[].sectors / .requests
  coverage: memheat's warp instructions per traced block over ncu's per block
      (below 1: instructions the collector does not see, e.g. ldmatrix or
      cp.async; docs/metrics.md, "Oracle")
and flags a bank_conflict finding of memheat on a kernel where ncu counts no
conflict (a false finding), or none where ncu counts at least half the ideal
wavefronts in conflicts (a missed one).

usage: compare.py --pair CASE:NCU.csv:MEMHEAT.json [--pair ...] --out DIR [--tolerance 0.05]
Writes DIR/oracle.json (every row) and DIR/oracle.md (the table), prints the
table. Exit 0 when the inputs could be read (whatever the figures), 1 when an
input is unreadable (one line naming it), 2 on bad usage. Python 3 standard
library only.
"""
import argparse
import csv
import io
import json
import math
import os
import re
import sys

OPS = ("ld", "st")
KIND_OP = {"load": "ld", "store": "st"}
METRICS = {  # (field, op) -> ncu metric
    ("sh_wf", op): f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum" for op in OPS}
METRICS.update({("sh_conf", op): f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum" for op in OPS})
METRICS.update({("sh_inst", op): f"smsp__inst_executed_op_shared_{op}.sum" for op in OPS})
METRICS.update({("g_sec", op): f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum" for op in OPS})
METRICS.update({("g_req", op): f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum" for op in OPS})
METRIC_KEY = {m: k for k, m in METRICS.items()}
PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
COUNT_UNITS = {"sector", "request", "inst", "wavefront", "warp", "conflict", "cycle", "byte", ""}


class InputError(Exception):
    pass


# ---- Nsight Compute CSV ----

def parse_value(text, unit):
    """'8,192' -> 8192.0; 'n/a' or '' -> None; '1.5' with unit 'Ksector' -> 1500."""
    t = (text or "").strip().replace(",", "")
    if not t or t.lower() in ("n/a", "nan", "-"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    u = (unit or "").strip()
    if len(u) > 1 and u[0] in PREFIX and u[1:] in COUNT_UNITS:
        v *= PREFIX[u[0]]
    return v


def grid_blocks(text):
    """'(1024, 1, 1)' or '1024,1,1' -> 1024; None when absent or malformed."""
    nums = re.findall(r"\d+", text or "")
    if len(nums) != 3:
        return None
    return int(nums[0]) * int(nums[1]) * int(nums[2])


def read_ncu(path):
    """Launches of an `ncu --csv` output: [{id, kernel, grid, block, metrics{(field, op): value}}].
    Takes ncu's long format (a row per metric: --page details, the default) and
    its wide one (a row per launch: --page raw); lines that are not CSV rows of
    the header's width (==PROF== notes, the program's own output) are skipped."""
    try:
        with open(path, newline="", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    header, start = None, 0
    for i, line in enumerate(lines):
        if line.startswith('"') and '"Kernel Name"' in line:
            header, start = next(csv.reader([line])), i + 1
            break
    if header is None:
        raise InputError(f"{path}: no Nsight Compute CSV header (a line with \"Kernel Name\"); did ncu run?")
    rows = []
    for line in lines[start:]:
        if not line.startswith('"'):
            continue
        r = next(csv.reader([line]))
        if len(r) == len(header):
            rows.append(dict(zip(header, r)))
    launches = {}
    long_format = "Metric Name" in header and "Metric Value" in header
    for r in rows:
        lid = r.get("ID", "").strip()
        if not lid.isdigit():
            continue  # the wide format's units row
        L = launches.setdefault(lid, {"id": int(lid), "kernel": r.get("Kernel Name", ""),
                                      "grid": grid_blocks(r.get("Grid Size")), "metrics": {}})
        if long_format:
            key = METRIC_KEY.get(r["Metric Name"].strip())
            if key:
                v = parse_value(r["Metric Value"], r.get("Metric Unit"))
                if v is not None:
                    L["metrics"][key] = v
        else:
            for name, key in METRIC_KEY.items():
                if name in r:
                    v = parse_value(r[name], "")
                    if v is not None:
                        L["metrics"][key] = v
    if not launches:
        raise InputError(f"{path}: the CSV has a header but no profiled launch")
    return sorted(launches.values(), key=lambda x: x["id"])


# ---- memheat analyze --json ----

def read_memheat(path):
    """Per launch: name, kernel, grid, traced blocks, per op the shared and
    global sums, and whether a bank_conflict finding was made."""
    try:
        with open(path) as f:
            j = json.load(f)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    except ValueError as e:
        raise InputError(f"{path}: not JSON ({e})")
    if not isinstance(j, dict) or not str(j.get("format", "")).startswith("memheat-analyze"):
        raise InputError(f"{path}: not the JSON of `memheat analyze`")
    if j.get("source") == "profile":
        raise InputError(f"{path}: analyze JSON of a profile lacks the per-pc wavefronts and requests; "
                         "analyze the trace (memheat run --keep-trace)")
    if "kernels" not in j or "global_requests" not in j:
        raise InputError(f"{path}: no 'kernels'/'global_requests' (memheat older than the oracle harness)")
    launches = {}
    for k in j["kernels"]:
        launches[k["launch"]] = {"launch": k["launch"], "name": k.get("name", ""), "kernel": k.get("kernel", ""),
                                 "grid": k.get("grid_blocks"), "traced": k.get("traced_blocks"),
                                 "m": {}, "bank_finding": False, "atomics": 0}
    for b in j.get("bank_conflicts", []):
        L = launches.get(b["launch"])
        op = KIND_OP.get(b.get("kind"))
        if L is None or "wavefronts" not in b:
            continue
        if op is None:
            L["atomics"] += b["requests"]
            continue
        for field, v in (("sh_req", b["requests"]), ("sh_wf", b["wavefronts"]),
                         ("sh_ideal", b["ideal_wavefronts"]), ("sh_extra", b["extra_wavefronts"])):
            L["m"][(field, op)] = L["m"].get((field, op), 0) + v
    for g in j["global_requests"]:
        L = launches.get(g["launch"])
        op = KIND_OP.get(g.get("kind"))
        if L is None:
            continue
        if op is None:
            L["atomics"] += g["requests"]
            continue
        L["m"][("g_req", op)] = L["m"].get(("g_req", op), 0) + g["requests"]
        L["m"][("g_sec", op)] = L["m"].get(("g_sec", op), 0) + g["sectors"]
    for f in j.get("findings", []):
        if f.get("kind") == "bank_conflict" and f.get("launch") in launches:
            launches[f["launch"]]["bank_finding"] = True
    return sorted(launches.values(), key=lambda x: x["launch"])


# ---- joining ----

def base_name(name):
    """'void ns::k<int, 2>(float const*, int)' -> 'ns::k<int,2>': no return type, no
    parameter list, no spaces (demanglers differ in spacing and const placement
    inside parameter lists, which are dropped)."""
    s = (name or "").strip()
    if s.startswith("void "):
        s = s[5:]
    if s.endswith(")"):  # the parameter list: the last parenthesised group
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i] if i > 0 else s
                break
    return re.sub(r"\s+", "", s)


def group(items, key):
    out = {}
    for x in items:
        out.setdefault(key(x), []).append(x)
    return out


def ratio(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return None if a else 0.0
    return a / b


def rel(mh, ncu):
    if mh is None or ncu is None:
        return None
    if ncu == 0:
        return 0.0 if mh == 0 else math.inf
    return mh / ncu - 1.0


def join_case(case, ncu_launches, mh_launches, tol):
    """One row per (kernel, op) with shared or global traffic on either side."""
    by_ncu = group(ncu_launches, lambda x: x["kernel"])
    used, rows = set(), []
    mh_groups = group(mh_launches, lambda x: x["name"] or x["kernel"])
    for mname, mls in mh_groups.items():
        shown = mls[0]["kernel"] or mname
        match = [k for k in by_ncu if k == mname or k == shown]
        if not match:
            match = [k for k in by_ncu if base_name(k) == base_name(shown)]
        used.update(match)
        nls = [l for k in match for l in by_ncu[k]]
        rows.extend(kernel_rows(case, shown, nls, mls, tol))
    for k, nls in by_ncu.items():
        if k not in used:
            rows.extend(kernel_rows(case, k, nls, [], tol))
    return rows


def kernel_rows(case, shown, nls, mls, tol):
    def nsum(key):
        vals = [l["metrics"][key] for l in nls if key in l["metrics"]]
        return sum(vals) if vals else None

    def msum(key):
        return sum(l["m"].get(key, 0) for l in mls) if mls else None

    ngrid = sum(l["grid"] for l in nls) if nls and all(l["grid"] for l in nls) else None
    mgrid = sum(l["grid"] or 0 for l in mls) if mls else None
    traced = sum(l["traced"] or 0 for l in mls) if mls else None
    finding = any(l["bank_finding"] for l in mls)
    conf_all = sum(nsum(("sh_conf", op)) or 0 for op in OPS) if nls else None
    wf_all = sum(nsum(("sh_wf", op)) or 0 for op in OPS) if nls else None
    rows = []
    for op in OPS:
        n_inst, n_wf, n_conf = nsum(("sh_inst", op)), nsum(("sh_wf", op)), nsum(("sh_conf", op))
        n_req, n_sec = nsum(("g_req", op)), nsum(("g_sec", op))
        m_req, m_wf, m_extra = msum(("sh_req", op)), msum(("sh_wf", op)), msum(("sh_extra", op))
        m_greq, m_gsec = msum(("g_req", op)), msum(("g_sec", op))
        if not any([n_inst, n_wf, n_req, m_req, m_greq]):
            continue
        r = {"case": case, "kernel": shown, "op": op, "ncu_launches": len(nls), "memheat_launches": len(mls),
             "grid_blocks": ngrid if ngrid is not None else mgrid, "traced_blocks": traced,
             "ncu_shared_inst": n_inst, "ncu_wavefronts": n_wf, "ncu_conflicts": n_conf,
             "ncu_global_requests": n_req, "ncu_global_sectors": n_sec,
             "memheat_shared_requests": m_req, "memheat_wavefronts": m_wf, "memheat_extra": m_extra,
             "memheat_global_requests": m_greq, "memheat_global_sectors": m_gsec}
        r["ncu_wf_per_inst"] = ratio(n_wf, n_inst) if n_inst else None
        r["memheat_wf_per_req"] = ratio(m_wf, m_req) if m_req else None
        r["wf_diff"] = rel(r["memheat_wf_per_req"], r["ncu_wf_per_inst"])
        # ncu's conflicts scaled to the blocks memheat traced
        r["ncu_conflicts_scaled"], r["scaling"] = None, None
        if n_conf is not None and mls:
            if ngrid and traced:
                r["ncu_conflicts_scaled"], r["scaling"] = n_conf * traced / ngrid, "blocks"
            elif n_inst and m_req:
                r["ncu_conflicts_scaled"], r["scaling"] = n_conf * m_req / n_inst, "instructions"
        r["ncu_sectors_per_req"] = ratio(n_sec, n_req) if n_req else None
        r["memheat_sectors_per_req"] = ratio(m_gsec, m_greq) if m_greq else None
        r["sectors_diff"] = rel(r["memheat_sectors_per_req"], r["ncu_sectors_per_req"])
        # warp instructions per block: memheat's (traced blocks) over ncu's (grid)
        r["shared_coverage"] = r["global_coverage"] = None
        if ngrid and traced:
            if n_inst:
                r["shared_coverage"] = ((m_req or 0) / traced) / (n_inst / ngrid)
            if n_req:
                r["global_coverage"] = ((m_greq or 0) / traced) / (n_req / ngrid)
        r["bank_finding"] = finding
        r["false_finding"] = bool(finding and nls and conf_all == 0)
        ideal_all = (wf_all or 0) - (conf_all or 0)
        r["missed_finding"] = bool(mls and nls and not finding and conf_all and 2 * conf_all >= ideal_all)
        r["status"] = status_of(r, nls, mls, tol)
        rows.append(r)
    return rows


def status_of(r, nls, mls, tol):
    if not nls:
        return "not profiled by ncu"
    if not mls:
        return "not traced by memheat"
    bad = []
    for k, what in (("wf_diff", "wavefronts"), ("sectors_diff", "sectors")):
        if r[k] is not None and abs(r[k]) > tol:
            bad.append(what)
    if r["ncu_wf_per_inst"] is not None and r["memheat_wf_per_req"] is None:
        bad.append("shared unseen")
    if r["ncu_sectors_per_req"] is not None and r["memheat_sectors_per_req"] is None:
        bad.append("global unseen")
    if r["false_finding"]:
        bad.append("false finding")
    if r["missed_finding"]:
        bad.append("missed finding")
    return "ok" if not bad else "DIFF: " + ", ".join(bad)


# ---- output ----

def fmt(v, nd=2, pct=False):
    if v is None:
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    if pct:
        return f"{100 * v:+.1f}%"
    if isinstance(v, float) and v != int(v):
        return f"{v:.{nd}f}"
    return f"{int(v)}" if abs(v) >= 1 or v == 0 else f"{v:.{nd}f}"


def short(name, cap=60):
    b = base_name(name) or name
    return b if len(b) <= cap else b[:cap - 3] + "..."


def table(rows):
    head = ["case", "kernel", "op", "ncu wf/inst", "memheat wf/req", "diff", "ncu conflicts (scaled)",
            "memheat extra", "ncu sectors/req", "memheat sectors/req", "diff", "coverage sh/gl",
            "bank finding", "status"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cov = f"{fmt(r['shared_coverage'])}/{fmt(r['global_coverage'])}"
        find = "yes" if r["bank_finding"] else "no"
        if r["false_finding"]:
            find += " (ncu: 0 conflicts)"
        out.append("| " + " | ".join([
            r["case"], short(r["kernel"]), r["op"], fmt(r["ncu_wf_per_inst"]), fmt(r["memheat_wf_per_req"]),
            fmt(r["wf_diff"], pct=True), fmt(r["ncu_conflicts_scaled"], 1), fmt(r["memheat_extra"]),
            fmt(r["ncu_sectors_per_req"]), fmt(r["memheat_sectors_per_req"]), fmt(r["sectors_diff"], pct=True),
            cov, find, r["status"]]) + " |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description="memheat vs Nsight Compute, side by side (bench/oracle)")
    ap.add_argument("--pair", action="append", required=True, metavar="CASE:NCU.csv:MEMHEAT.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tolerance", type=float, default=0.05)
    a = ap.parse_args(argv)
    rows, cases = [], []
    try:
        for p in a.pair:
            parts = p.split(":")
            if len(parts) != 3:
                ap.error(f"--pair {p}: expected CASE:NCU.csv:MEMHEAT.json")
            case, ncsv, mjson = parts
            n, m = read_ncu(ncsv), read_memheat(mjson)
            cases.append({"case": case, "ncu": ncsv, "memheat": mjson, "ncu_launches": len(n),
                          "memheat_launches": len(m)})
            rows.extend(join_case(case, n, m, a.tolerance))
    except InputError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 1
    ok = sum(1 for r in rows if r["status"] == "ok")
    summary = {"rows": len(rows), "ok": ok, "tolerance": a.tolerance,
               "false_findings": sorted({(r["case"], r["kernel"]) for r in rows if r["false_finding"]}),
               "missed_findings": sorted({(r["case"], r["kernel"]) for r in rows if r["missed_finding"]}),
               "diff": [f"{r['case']}/{r['kernel']}/{r['op']}: {r['status']}" for r in rows
                        if r["status"] != "ok"]}
    os.makedirs(a.out, exist_ok=True)
    finite = [{k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in r.items()} for r in rows]
    with open(os.path.join(a.out, "oracle.json"), "w") as f:
        json.dump({"cases": cases, "summary": summary, "rows": finite}, f, indent=1)
    text = table(rows)
    text += (f"\n\n{ok} of {len(rows)} rows within {100 * a.tolerance:.0f}% on every figure; "
             f"false bank-conflict findings: {len(summary['false_findings'])}; "
             f"missed: {len(summary['missed_findings'])}\n")
    with open(os.path.join(a.out, "oracle.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
