#!/usr/bin/env bash
# cli_profile_in.sh -- `memheat heatmap` and `memheat analyze` open a profile
# as well as a trace (told by the first bytes, not the name): the heat maps of
# a profile are the trace's, byte for byte (terminal and CSV); analyze prints
# the same findings (kind, cost, object, evidence, fix) and locality; a file
# that is neither is one error line.
# usage: cli_profile_in.sh MEMHEAT PROFILE_OF WORKDIR
set -u
M=$1; P=$2; W=$3
rm -rf "$W"; mkdir -p "$W"
fail=0
check() { # name expected-rc actual-rc
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
"$M" synth -o "$W/t.mht" --shape all --iters 8 --warps 4 --blocks 2 >/dev/null 2>&1; check synth 0 $?
"$P" "$W/t.mht" "$W/p.mhdb"; check import 0 $?
# a profile under a trace's name is still a profile
cp "$W/p.mhdb" "$W/p-named.mht"
"$M" heatmap "$W/t.mht" --no-color --rows 0 >"$W/ht.txt" 2>/dev/null; check heatmap-trace 0 $?
"$M" heatmap "$W/p-named.mht" --no-color --rows 0 >"$W/hp.txt" 2>"$W/hp.err"; check heatmap-profile 0 $?
cmp -s "$W/ht.txt" "$W/hp.txt" || { echo "FAIL heatmap text differs between trace and profile"; diff "$W/ht.txt" "$W/hp.txt" | head; fail=1; }
[ -s "$W/hp.txt" ] || { echo "FAIL heatmap of the profile printed nothing"; fail=1; }
"$M" heatmap "$W/t.mht" -o "$W/csv_t" >/dev/null 2>&1; check heatmap-csv-trace 0 $?
"$M" heatmap "$W/p.mhdb" -o "$W/csv_p" >/dev/null 2>&1; check heatmap-csv-profile 0 $?
diff -r "$W/csv_t" "$W/csv_p" >/dev/null || { echo "FAIL heatmap CSV differs between trace and profile"; fail=1; }
"$M" heatmap "$W/p.mhdb" --launch 1 --space global --no-color >"$W/h1.txt" 2>/dev/null; check heatmap-filter 0 $?
[ "$(grep -c '^launch ' "$W/h1.txt")" = 1 ] || { echo "FAIL --launch 1 --space global gave $(grep -c '^launch ' "$W/h1.txt") maps"; fail=1; }
# analyze: same findings and locality
"$M" analyze "$W/t.mht" --max 0 --all >"$W/at.txt" 2>/dev/null; check analyze-trace 0 $?
"$M" analyze "$W/p.mhdb" --max 0 --all >"$W/ap.txt" 2>/dev/null; check analyze-profile 0 $?
grep -q "^note: a profile does not store" "$W/ap.txt" || { echo "FAIL analyze of a profile does not say what it lacks"; fail=1; }
for pat in '^#' '^     fix: ' '^     example sector' '^Locality' '^  entropy n=' '^  PSL n=' '^  accesses'; do
  a=$(grep "$pat" "$W/at.txt"); b=$(grep "$pat" "$W/ap.txt")
  [ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL analyze lines '$pat' differ (or are missing)"; diff <(echo "$a") <(echo "$b") | head -6; fail=1; }
done
"$M" analyze "$W/p.mhdb" --json >"$W/ap.json" 2>/dev/null; check analyze-profile-json 0 $?
"$M" analyze "$W/t.mht" --json >"$W/at.json" 2>/dev/null; check analyze-trace-json 0 $?
python3 - "$W/at.json" "$W/ap.json" <<'PY' || { echo "FAIL analyze JSON of the profile differs from the trace's"; fail=1; }
import json, sys
t, p = (json.load(open(x)) for x in sys.argv[1:3])
assert p["source"] == "profile" and p["format"] == t["format"]
key = lambda f: (f["launch"], f["space"], f["object"], f["kind"])
ft = {key(f): f for f in t["findings"]}; fp = {key(f): f for f in p["findings"]}
assert ft.keys() == fp.keys(), (ft.keys() ^ fp.keys())
for k in ft:
    a, b = ft[k], fp[k]
    assert abs(a["cost"] - b["cost"]) < 1e-6 * max(1, a["cost"]), k
    assert a["summary"] == b["summary"] and a["suggestion"] == b["suggestion"] and a["label"] == b["label"], k
assert [l["launch"] for l in t["locality"]] == [l["launch"] for l in p["locality"]]
for a, b in zip(t["locality"], p["locality"]):
    for s in a["spaces"]:
        assert a["spaces"][s]["accesses"] == b["spaces"][s]["accesses"]
        assert all(abs(x - y) < 1e-9 for x, y in zip(a["spaces"][s]["entropy"], b["spaces"][s]["entropy"]))
PY
# neither a trace nor a profile: one line, exit 1
printf 'SQLite format 3\0garbage' >"$W/bad.mhdb"
"$M" heatmap "$W/bad.mhdb" >/dev/null 2>"$W/e1"; check bad-profile-heatmap 1 $?
"$M" analyze "$W/bad.mhdb" >/dev/null 2>"$W/e2"; check bad-profile-analyze 1 $?
for e in e1 e2; do [ "$(wc -l <"$W/$e")" = 1 ] && grep -q "bad.mhdb" "$W/$e" || { echo "FAIL $e: not one line naming the file:"; cat "$W/$e"; fail=1; }; done
exit $fail
