#!/usr/bin/env bash
# ocl_sites.sh MEMHEAT OCL_SITES SOURCE NVTX(ON|OFF) DIR -- call sites end to end
# on the CPU: memheat run --backend oclgrind on examples/opencl/ocl_sites (every
# launch traced), then `memheat analyze --group-by site|nvtx --json` on the
# profile must name the lines of ocl_sites.c tagged SITE:prepare (1 launch) and
# SITE:step (2 launches, under NVTX "train > step" when NVTX is built in, the
# first under "{APP} prepare" and none under the range ocl_sites_lib leaves open),
# with the findings of the strided transpose at them; the fix of the transpose
# (analyze's fix list, text and JSON) names one of those lines and the other.
set -euo pipefail
M=$1 P=$2 SRC=$3 NVTX=$4 D=$5
rm -rf "$D" && mkdir -p "$D" && cd "$D"
"$M" run -q --backend oclgrind --launch-policy all -o s -- "$P" > run.out 2> run.err || { cat run.err; exit 1; }
grep -q "ocl_sites ok" run.out
"$M" analyze s.mhdb --group-by site --json > site.json
"$M" analyze s.mhdb --group-by nvtx --json > nvtx.json
"$M" analyze s.mhdb --group-by site --max 5 > site.txt
"$M" analyze s.mhdb --json > all.json
"$M" analyze s.mhdb > all.txt
python3 - "$SRC" "$NVTX" <<'PY'
import json, sys
src, nvtx = sys.argv[1], sys.argv[2]
lines = {t: i for i, l in enumerate(open(src), 1) for t in ("SITE:prepare", "SITE:step") if t in l}
site = json.load(open("site.json"))
groups = {g["label"].split(" ")[0]: g for g in site["groups"]}
bad = []
for tag, launches in (("SITE:prepare", 1), ("SITE:step", 2)):
    key = "ocl_sites.c:%d" % lines[tag]
    g = groups.get(key)
    if not g: bad.append("no group %s in %s" % (key, list(groups))); continue
    if g["launches"] != launches or g["traced"] != launches: bad.append("%s: %s launches, %s traced" % (key, g["launches"], g["traced"]))
    if g["findings"] < 1 or g["top"]["kernel"] != "transpose_naive": bad.append("%s: findings %s" % (key, g["findings"]))
    if tag not in g["label"]: bad.append("%s: source line not shown: %s" % (key, g["label"]))
user = sorted(s["function"] for s in site["sites"])  # the profile's site rows: the user's frame
if user != ["prepare", "train_step"] or any(s["kind"] != "native" for s in site["sites"]): bad.append("user frames %r" % user)
if nvtx == "ON":
    ng = {g["label"]: g for g in json.load(open("nvtx.json"))["groups"]}
    # ocl_sites_lib leaves "{LIB} lib_init" open: no launch is under it; the
    # program's own domain range around prepare() counts
    if (ng.get("train > step", {}).get("launches") != 2 or ng.get("{APP} prepare", {}).get("launches") != 1
            or any("lib_init" in k for k in ng)):
        bad.append("nvtx groups %r" % {k: v["launches"] for k, v in ng.items()})
fx = [f for f in json.load(open("all.json")).get("fixes", []) if f["kernel"] == "transpose_naive"]
want = ["ocl_sites.c:%d " % lines[t] for t in ("SITE:prepare", "SITE:step")]
if not fx or not any((f.get("site") or "").startswith(w) for f in fx for w in want) or any(f.get("sites") != 2 for f in fx):
    bad.append("fix sites %r" % [(f.get("site"), f.get("sites")) for f in fx])
txt = open("all.txt").read()
if not any(("    at: " + w) in txt for w in want) or "(and 1 other call site)" not in txt:
    bad.append("the fix list names no call site")
if "model: \n" in txt: bad.append("an empty model line (a fix without an estimate)")
if bad: print("FAIL: " + "; ".join(bad)); sys.exit(1)
print("ok: sites named", sorted(groups))
PY
grep -q "SITE:prepare" site.txt
