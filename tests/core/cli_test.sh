#!/usr/bin/env bash
# cli_test.sh MEMHEAT -- the CLI end to end on synthetic traces: heat-map CSVs
# with known temperatures, every command's --help, and the damaged-input cases
# (each one error line on stderr and the documented exit code).
set -u
MH=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
expect_code() { # name want cmd...
  local name=$1 want=$2; shift 2
  "$@" >"$T/out" 2>"$T/err"; local got=$?
  if [ "$got" = "$want" ]; then ok "$name (exit $got)"; else bad "$name: exit $got, want $want"; cat "$T/err"; fi
}
one_error_line() { # name: stderr of the last expect_code is one line naming the problem
  local n; n=$(wc -l <"$T/err")
  if [ "$n" = 1 ] && grep -q "error" "$T/err"; then ok "$1 (one error line)"; else bad "$1: stderr was:"; cat "$T/err"; fi
}

expect_code "synth all shapes" 0 "$MH" synth -o "$T/s.mht" --shape all --warps 8 --iters 2
expect_code "info" 0 "$MH" info "$T/s.mht"
grep -q "launches   13" "$T/out" && ok "info counts 13 launches (one per synth shape)" || bad "info launch count"
expect_code "heatmap csv" 0 "$MH" heatmap "$T/s.mht" -o "$T/hm"
# launch 1 = false_sharing: every row words 1, sector 8
awk -F, 'NR>1 && ($3!=1 || $11!=8) {bad=1} END {exit bad || NR<2}' "$T/hm/launch1_global.csv" \
  && ok "false sharing csv rows are 1,...,1,8" || bad "false sharing csv"
head -2 "$T/hm/launch0_global.csv" | tail -1 | grep -q '^0,0x[0-9a-f]*,1,1,1,1,1,1,1,1,1,LLLLLLLL$' \
  && ok "coalesced csv row" || bad "coalesced csv row"
grep -q '"coalesced"' "$T/hm/launch0_global_regions.csv" && ok "region file names the object" || bad "region file"
[ -f "$T/hm/launch6_shared.csv" ] && ok "shared map written" || bad "shared map missing"
expect_code "heatmap terminal" 0 "$MH" heatmap "$T/s.mht" --launch 4 --no-color
grep -q "x" "$T/out" && grep -q "  32\|   8" "$T/out" && ok "terminal rendering folds rows" || bad "terminal rendering"

for c in run info heatmap synth; do expect_code "$c --help" 0 "$MH" "$c" --help; done
expect_code "unknown command" 2 "$MH" frobnicate
expect_code "bad flag" 2 "$MH" heatmap --bogus "$T/s.mht"
expect_code "bad number" 2 "$MH" heatmap "$T/s.mht" --launch x7
one_error_line "bad number"
expect_code "run without program" 2 "$MH" run --
one_error_line "run without program"
"$MH" run --help | grep -q -- "--passes separate  *default" && ok "run --help describes the passes" || bad "run --help passes"
expect_code "run bad --passes" 2 "$MH" run --passes twice -- true
one_error_line "run bad --passes"
expect_code "run timer as --backend" 2 "$MH" run --backend cupti -- true
one_error_line "run timer as --backend"
expect_code "run --counters --no-timing" 2 "$MH" run --counters --no-timing -- true
one_error_line "run --counters --no-timing"

# Command-line errors: one line naming the problem and where help is (issue 42)
usage_line() { # name option-or-word command: stderr is one line naming it and "see memheat CMD --help"
  if [ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$2" "$T/err" && grep -qF "see memheat${3:+ $3} --help" "$T/err"; then
    ok "$1 (one line)"; else bad "$1: stderr was:"; cat "$T/err"; fi
}
for c in run info heatmap synth analyze import report diff merge calibrate band; do
  expect_code "$c --bogus" 2 "$MH" "$c" --bogus
  usage_line "$c --bogus" "--bogus" "$c"
  expect_code "$c -Z" 2 "$MH" "$c" -Z
  usage_line "$c -Z" "-Z" "$c"
done
expect_code "option without its value" 2 "$MH" heatmap "$T/s.mht" --launch
usage_line "option without its value" "--launch" heatmap
for c in info heatmap analyze report band; do
  expect_code "$c without its input" 2 "$MH" "$c"
  usage_line "$c without its input" "error" "$c"
done
expect_code "diff of one profile" 2 "$MH" diff "$T/a.mhdb"; usage_line "diff of one profile" "error" diff
expect_code "import without -o" 2 "$MH" import "$T/s.mht"; usage_line "import without -o" "-o" import
expect_code "synth without -o" 2 "$MH" synth; usage_line "synth without -o" "-o" synth
expect_code "calibrate of nothing" 2 "$MH" calibrate; usage_line "calibrate of nothing" "error" calibrate
expect_code "no command" 2 "$MH"; usage_line "no command" "no command" ""
expect_code "run -o ''" 2 "$MH" run -o '' -- true; usage_line "run -o ''" "-o" run
( cd "$T" && "$MH" run -q -o '' -- true >/dev/null 2>&1; [ ! -e "$T/.mhdb" ] && [ ! -e "$T/.mht" ] ) \
  && ok "run -o '' writes nothing" || bad "run -o '' wrote a hidden file"
printf 'not a program\n' >"$T/notexec"; chmod 644 "$T/notexec"
expect_code "run of a file that is not executable" 2 "$MH" run -- "$T/notexec"
one_error_line "run of a file that is not executable"
grep -q "not executable" "$T/err" && ok "... says so" || bad "not-executable message: $(cat "$T/err")"
mkdir -p "$T/adir"
for b in cuda oclgrind; do
  expect_code "run of a folder ($b)" 2 "$MH" run --backend $b -- "$T/adir"
  one_error_line "run of a folder ($b)"
  grep -q "is a folder" "$T/err" && ok "... says so ($b)" || bad "folder message ($b): $(cat "$T/err")"
done

# Damaged traces: a clear single error line and a non-zero exit.
: >"$T/empty.mht"
expect_code "empty file" 1 "$MH" info "$T/empty.mht"; one_error_line "empty file"
printf 'NOTATRACE-------' >"$T/magic.mht"
expect_code "wrong magic" 1 "$MH" heatmap "$T/magic.mht"; one_error_line "wrong magic"
cp "$T/s.mht" "$T/ver.mht"; printf '\x07' | dd of="$T/ver.mht" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_code "future version" 1 "$MH" heatmap "$T/ver.mht"; one_error_line "future version"
grep -q "version 7" "$T/err" && ok "future version named" || bad "future version message"
"$MH" synth -o "$T/big.mht" --shape coalesced,hot --warps 32 --iters 4000 >/dev/null 2>&1
size=$(stat -c %s "$T/big.mht")
head -c $((size - 50)) "$T/big.mht" >"$T/cut.mht"
expect_code "truncated trace" 4 "$MH" heatmap "$T/cut.mht" -o "$T/cut"; one_error_line "truncated trace"
[ -s "$T/cut/launch0_global.csv" ] && ok "truncated trace still yields complete chunks' map" || bad "no map from truncated trace"
cp "$T/big.mht" "$T/flip.mht"
printf '\xff' | dd of="$T/flip.mht" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_code "flipped byte" 1 "$MH" heatmap "$T/flip.mht" -o "$T/flip"; one_error_line "flipped byte"
grep -q "checksum" "$T/err" && ok "flipped byte named as checksum mismatch" || bad "flip message"
expect_code "missing file" 1 "$MH" info "$T/nope.mht"; one_error_line "missing file"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
