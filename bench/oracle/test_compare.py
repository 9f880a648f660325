#!/usr/bin/env python3
"""test_compare.py -- CPU test of bench/oracle/compare.py (ctest oracle_compare).

A synthetic trace of six harness kernels (oracle_make_trace: 2 traced blocks
of 1,024, addresses as in kernels.cu) goes through `memheat analyze --json`;
compare.py joins it with testdata/ncu_sample.csv (ncu's --csv layout: ==PROF==
lines and program output around it, thousands separators, an "n/a", names
demangled differently from memheat's). The expected figures below are worked
out from the kernels, not read from compare.py's output:
  s_f4        16-byte lanes: 4 wavefronts per access both sides, no conflict
  s_f4_2t     memheat 8 per load (4 extra) while the sample says 4 and no
              conflict: +100% and a false bank-conflict finding, flagged
  s_f32_32t   32 per access; ncu's 253,952 conflicts x 2 / 1,024 blocks =
              496 = memheat's 31 x 16 warp accesses
  g_stride2   8 sectors per load request, g_misaligned 5, g_edge 29 / 8
  other_kernel only in the CSV: "not traced by memheat"
It also checks the wide (--page raw) layout and the one-line errors.
usage: test_compare.py --memheat M --make-trace T --workdir DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print(f"FAIL {what}")


def near(a, b, eps=1e-9):
    return a is not None and b is not None and abs(a - b) <= eps * max(1.0, abs(b))


def run_compare(args):
    return subprocess.run([sys.executable, os.path.join(HERE, "compare.py")] + args, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memheat", required=True)
    ap.add_argument("--make-trace", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    w = a.workdir
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    trace, js = os.path.join(w, "t.mht"), os.path.join(w, "t.json")
    subprocess.run([a.make_trace, trace], check=True)
    subprocess.run([a.memheat, "analyze", trace, "-q", "--max", "0", "-o", js], check=True,
                   stdout=subprocess.DEVNULL)
    sample = os.path.join(HERE, "testdata", "ncu_sample.csv")
    p = run_compare(["--pair", f"synth:{sample}:{js}", "--out", os.path.join(w, "out")])
    check(p.returncode == 0, f"compare.py exit {p.returncode}: {p.stderr.strip()}")
    if p.returncode:
        return 1
    res = json.load(open(os.path.join(w, "out", "oracle.json")))
    rows = {(r["kernel"].split("(")[0], r["op"]): r for r in res["rows"]}

    def row(k, op):
        r = rows.get((k, op))
        check(r is not None, f"no row for {k} {op}: rows {sorted(rows)}")
        return r or {}

    r = row("s_f4", "ld")
    check(near(r.get("ncu_wf_per_inst"), 4.0) and near(r.get("memheat_wf_per_req"), 4.0), f"s_f4 ld wavefronts {r}")
    check(r.get("memheat_shared_requests") == 16, "s_f4: 2 blocks x 8 warps = 16 warp loads")
    check(near(r.get("wf_diff"), 0.0) and r.get("status") == "ok", f"s_f4 ld status {r.get('status')}")
    check(near(r.get("shared_coverage"), 1.0) and near(r.get("global_coverage"), 1.0), "s_f4 coverage 1")
    check(near(r.get("ncu_sectors_per_req"), 16.0) and near(r.get("memheat_sectors_per_req"), 16.0),
          "s_f4: 16-byte global loads, 16 sectors per request")
    check(not r.get("bank_finding") and not r.get("false_finding"), "s_f4: no bank-conflict finding")
    r = row("s_f4", "st")
    check(near(r.get("memheat_wf_per_req"), 4.0) and r.get("memheat_extra") == 0, "s_f4 st 4 wavefronts")

    r = row("s_f4_2t", "ld")
    check(near(r.get("memheat_wf_per_req"), 8.0) and near(r.get("ncu_wf_per_inst"), 4.0), "s_f4_2t ld 8 vs 4")
    check(near(r.get("wf_diff"), 1.0), f"s_f4_2t ld diff +100%: {r.get('wf_diff')}")
    check(r.get("memheat_extra") == 64, "s_f4_2t: 4 extra x 16 warp loads")
    check(r.get("bank_finding") and r.get("false_finding"), "s_f4_2t: finding where the sample counts none")
    check("false finding" in r.get("status", "") and "wavefronts" in r.get("status", ""), r.get("status"))
    r = row("s_f4_2t", "st")
    check(r.get("memheat_shared_requests") == 32 and near(r.get("ncu_wf_per_inst"), 4.0), "s_f4_2t 2 stores")

    r = row("s_f32_32t", "ld")
    check(near(r.get("memheat_wf_per_req"), 32.0) and near(r.get("ncu_wf_per_inst"), 32.0), "s_f32_32t 32")
    check(r.get("memheat_extra") == 496 and near(r.get("ncu_conflicts_scaled"), 496.0), f"scaled conflicts {r}")
    check(r.get("scaling") == "blocks" and r.get("grid_blocks") == 1024 and r.get("traced_blocks") == 2, "scaling")
    check(r.get("bank_finding") and not r.get("false_finding") and r.get("status") == "ok", r.get("status"))

    for k, ld, st in (("g_stride2", 8.0, 4.0), ("g_misaligned", 5.0, 4.0), ("g_edge", 29 / 8, 29 / 8)):
        r = row(k, "ld")
        check(near(r.get("memheat_sectors_per_req"), ld) and near(r.get("ncu_sectors_per_req"), ld),
              f"{k} ld sectors per request {ld}: {r.get('memheat_sectors_per_req')} / {r.get('ncu_sectors_per_req')}")
        check(r.get("status") == "ok" and r.get("ncu_wf_per_inst") is None, f"{k} ld {r.get('status')}")
        r = row(k, "st")
        check(near(r.get("memheat_sectors_per_req"), st), f"{k} st sectors per request {st}")
    r = row("g_misaligned", "ld")
    check(r.get("ncu_conflicts") == 0 or r.get("ncu_conflicts") is None, "n/a is no value")

    r = row("other_kernel", "ld")
    check(r.get("status") == "not traced by memheat" and near(r.get("ncu_sectors_per_req"), 4.0), "other_kernel")
    s = res["summary"]
    check(len(s["false_findings"]) == 1 and s["false_findings"][0][1].startswith("s_f4_2t"), f"summary {s}")
    md = open(os.path.join(w, "out", "oracle.md")).read()
    check("| synth | s_f32_32t | ld | 32 | 32 | +0.0% | 496 | 496 |" in md and "(ncu: 0 conflicts)" in md,
          "markdown table rows")

    # the wide layout (--page raw): a row per launch, metrics as columns, a units row
    names = ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum",
             "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    raw = os.path.join(w, "raw.csv")
    with open(raw, "w") as f:
        f.write('"ID","Process ID","Kernel Name","Grid Size",' + ",".join(f'"{n}"' for n in names) + "\n")
        f.write('"","","","",' + ",".join('"inst"' for _ in names) + "\n")
        f.write('"0","7","_Z4s_f4PK6float4PS_","(1024, 1, 1)","32,768","8,192","8,192","131,072"\n')
    p = run_compare(["--pair", f"raw:{raw}:{js}", "--out", os.path.join(w, "out_raw")])
    check(p.returncode == 0, f"raw layout: exit {p.returncode} {p.stderr}")
    if p.returncode == 0:
        raw_rows = json.load(open(os.path.join(w, "out_raw", "oracle.json")))["rows"]
        rr = {(r["kernel"].split("(")[0], r["op"]): r for r in raw_rows}
        r = rr.get(("s_f4", "ld"), {})
        check(near(r.get("ncu_wf_per_inst"), 4.0) and near(r.get("ncu_sectors_per_req"), 16.0)
              and r.get("status") == "ok", f"raw layout joined by mangled name: {r}")

    # unreadable inputs: one line naming the file, exit 1
    bad = os.path.join(w, "bad.csv")
    open(bad, "w").write("==ERROR== ERR_NVGPUCTRPERM - no permission to access NVIDIA GPU performance counters\n")
    prof = os.path.join(w, "profile.json")
    json.dump({"format": "memheat-analyze-2", "source": "profile", "findings": []}, open(prof, "w"))
    for args, name in (([f"x:{bad}:{js}"], "bad.csv"), ([f"x:{sample}:{prof}"], "profile.json"),
                       ([f"x:{sample}:{os.path.join(w, 'none.json')}"], "none.json")):
        p = run_compare(["--pair", args[0], "--out", os.path.join(w, "out_bad")])
        err = p.stderr.strip().splitlines()
        check(p.returncode == 1 and len(err) == 1 and name in err[0], f"{name}: exit {p.returncode}, {err}")
    print("oracle_compare: %s" % ("ok" if not fails else f"{fails} failure(s)"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
