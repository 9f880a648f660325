#!/usr/bin/env bash
# cli_band.sh MEMHEAT MAKE_PROFILE MODEL -- `memheat band` on a profile with
# counters and the measured H200 camping model: one placed row per kernel,
# bands stored in the profile (and not with --no-store), degrees in [0, 1],
# and the error cases (no model, no counters, bad flags) as one-line errors.
set -u
MH=$1 MK=$2 MODEL=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

"$MK" synth "$T/p.mhdb" >/dev/null || { echo "make_profile failed"; exit 1; }
before=$(sqlite3 "$T/p.mhdb" "SELECT count(*) FROM camp_band")
"$MH" band "$T/p.mhdb" --model "$MODEL" --no-store >"$T/out" 2>"$T/err" && ok "band --no-store runs" || { bad "band --no-store"; cat "$T/err"; }
[ "$(sqlite3 "$T/p.mhdb" "SELECT count(*) FROM camp_band")" = "$before" ] && ok "--no-store leaves the profile alone" || bad "--no-store wrote"
"$MH" band "$T/p.mhdb" --model "$MODEL" >"$T/out" 2>"$T/err" && ok "band runs" || { bad "band"; cat "$T/err"; }
rows=$(grep -c "^coalesced \|^strided \|^hot " "$T/out")
[ "$rows" = 3 ] && ok "kernels placed" || bad "kernels placed: $rows"
stored=$(sqlite3 "$T/p.mhdb" "SELECT count(*) FROM camp_band WHERE kernel IN ('coalesced','strided','hot')")
[ "$stored" -ge 3 ] && ok "bands stored" || bad "bands stored: $stored"
outside=$(sqlite3 "$T/p.mhdb" "SELECT count(*) FROM camp_band WHERE degree < 0 OR degree > 1 OR degree IS NULL")
[ "$outside" = 0 ] && ok "degrees in [0,1]" || bad "degrees out of range: $outside"
"$MH" band "$T/p.mhdb" --model "$MODEL" --kernel '^hot$' --no-store >"$T/out" 2>&1
[ "$(grep -c '^hot ' "$T/out")" = 1 ] && [ "$(grep -c '^coalesced ' "$T/out")" = 0 ] && ok "--kernel filters" || bad "--kernel filter"

MEMHEAT_MODEL_DIR="$T/none" "$MH" band "$T/p.mhdb" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "calibrate --camping" "$T/err" && ok "missing model: one line, exit 1" || { bad "missing model rc=$rc"; cat "$T/err"; }
"$MH" band "$T/p.mhdb" --word 3 >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && ok "bad --word is a usage error" || bad "bad --word rc=$rc"
"$MK" hostile "$T/h.mhdb" >/dev/null 2>&1
printf 'not a db' >"$T/bad.mhdb"
"$MH" band "$T/bad.mhdb" --model "$MODEL" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && ok "foreign file: one line, exit 1" || { bad "foreign file rc=$rc"; cat "$T/err"; }

# storing into a profile it may not write: one line in memheat's words, not SQLite's (issue 42)
mkdir -p "$T/ro"
ro=0
if [ "$(id -u)" != 0 ]; then
    cp "$T/p.mhdb" "$T/ro/p.mhdb" && chmod 444 "$T/ro/p.mhdb" && ro=1
elif mount -t tmpfs -o size=8m tmpfs "$T/ro" 2>/dev/null; then
    trap 'umount "$T/ro" 2>/dev/null; rm -rf "$T"' EXIT
    cp "$T/p.mhdb" "$T/ro/p.mhdb" && mount -o remount,ro "$T/ro" && ro=1
fi
if [ $ro = 1 ]; then
    "$MH" band "$T/ro/p.mhdb" --model "$MODEL" >/dev/null 2>"$T/err"; rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "ro/p.mhdb is read-only" "$T/err" && ok "read-only profile: one line, exit 1" \
        || { bad "read-only profile rc=$rc"; cat "$T/err"; }
else
    echo "skip read-only profile (root, and no read-only mount)"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
