#!/usr/bin/env bash
# cli_analyze.sh -- `memheat analyze` end to end: findings text and JSON on a
# synthetic trace, and a one-line error with the documented exit code for a
# wrong flag, a missing file, an empty file, a cut file and a damaged file.
# usage: cli_analyze.sh MEMHEAT WORKDIR
set -u
M=$1; W=$2
rm -rf "$W"; mkdir -p "$W"
fail=0
check() { # name expected-rc actual-rc
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
"$M" synth -o "$W/all.mht" --shape all --iters 64 >/dev/null 2>&1
"$M" analyze "$W/all.mht" -o "$W/all.json" >"$W/all.txt" 2>"$W/all.err"; check analyze 0 $?
for k in false_sharing strided misaligned hot_spot random_hot smem_abuse_thread smem_abuse_warp; do
  grep -q "^#[0-9]* *$k " "$W/all.txt" || { echo "FAIL text output lacks $k"; fail=1; }
  grep -q "\"kind\": \"$k\"" "$W/all.json" || { echo "FAIL JSON lacks $k"; fail=1; }
done
grep -q "^Locality (AIWC)" "$W/all.txt" || { echo "FAIL no locality table"; fail=1; }
"$M" analyze "$W/all.mht" --json >"$W/stdout.json" 2>/dev/null; check json-stdout 0 $?
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['findings'] and d['locality']" "$W/stdout.json" \
  || { echo "FAIL --json is not the JSON document"; fail=1; }
# one finding per (launch, space, object, kind); each lists its pcs, the costliest (pc) among them
python3 - "$W/stdout.json" <<'PY' || { echo "FAIL findings not merged per object and pattern"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
keys = [(f["launch"], f["space"], f["object"], f["kind"]) for f in d["findings"]]
assert len(keys) == len(set(keys)), "duplicate findings"
for f in d["findings"]:
    pcs = [p["pc"] for p in f["pcs"]]
    assert pcs == sorted(pcs), "pcs not ascending"
    if f["pc"]:
        assert f["pc"] in pcs, "pc missing from pcs"
        best = max(f["pcs"], key=lambda p: p["cost"])
        assert abs(best["cost"] - next(p["cost"] for p in f["pcs"] if p["pc"] == f["pc"])) < 1e-9
        assert abs(sum(p["cost"] for p in f["pcs"]) - f["cost"]) < 1e-6 * max(1.0, f["cost"]), "cost != sum"
PY
# locality: "total" per launch, any other space only where the launch accessed it (shared and global both here)
python3 - "$W/stdout.json" <<'PY' || { echo "FAIL locality spaces: total missing or an untouched space listed"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
seen = set()
for l in d["locality"]:
    sp = l["spaces"]
    assert "total" in sp and sp["total"]["accesses"] > 0, l["launch"]
    assert all(v["accesses"] > 0 for v in sp.values()), l["launch"]
    assert sum(v["accesses"] for k, v in sp.items() if k != "total") == sp["total"]["accesses"], l["launch"]
    seen |= set(sp)
assert {"global", "shared"} <= seen, seen
PY
"$M" analyze "$W/all.mht" --bogus >/dev/null 2>"$W/e1"; check bad-flag 2 $?
"$M" analyze "$W/nope.mht" >/dev/null 2>"$W/e2"; check missing-file 1 $?
: >"$W/empty.mht"; "$M" analyze "$W/empty.mht" >/dev/null 2>"$W/e3"; check empty-file 1 $?
size=$(stat -c %s "$W/all.mht")
head -c $((size - 40)) "$W/all.mht" >"$W/cut.mht"
"$M" analyze "$W/cut.mht" >"$W/cut.txt" 2>"$W/e4"; check cut-file 4 $?
grep -q "cut short" "$W/cut.txt" || { echo "FAIL cut file: results not printed"; fail=1; }
cp "$W/all.mht" "$W/flip.mht"
printf '\377' | dd of="$W/flip.mht" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$M" analyze "$W/flip.mht" >/dev/null 2>"$W/e5"; check damaged-file 1 $?
for e in e2 e3 e4 e5; do
  n=$(grep -c "error" "$W/$e"); [ "$n" = 1 ] || { echo "FAIL $e: expected one error line, got $n"; cat "$W/$e"; fail=1; }
done
exit $fail
