#!/usr/bin/env bash
# verdicts_recorded.sh MEMHEAT INPUTS WORKDIR -- issue 15's "the verdict of
# each example kernel is right by the figures it prints", on the CPU: the
# timing files of the CUDA examples recorded on the H100 (memheat run
# --counters) are imported again and each kernel's verdict is judged against
# Nsight Compute's figures of the same kernels, recorded in the same session
# (scripts/verdict_vs_ncu.py; INPUTS = <case>.timing.json + <case>.ncu.csv).
# Negative control: the smem_private kernel's one launch doubled (a second
# launch, same 7.9 us) must be called launch-bound and judged wrong (ncu:
# 8.6 us, latency).
set -uo pipefail
M=$1 IN=$2 W=$3
HERE=$(cd "$(dirname "$0")" && pwd)
JUDGE=$HERE/../../scripts/verdict_vs_ncu.py
mkdir -p "$W"
"$M" synth --shape coalesced -o "$W/s.mht" >/dev/null || { echo "FAIL synth"; exit 1; }
fail=0 n=0
for t in "$IN"/*.timing.json; do
  c=$(basename "$t" .timing.json)
  "$M" import "$W/s.mht" --timing "$t" -o "$W/$c.mhdb" -f -q || { echo "FAIL import $c"; fail=1; continue; }
  python3 "$JUDGE" "$c" "$W/$c.mhdb" "$IN/$c.ncu.csv" | grep -v "^    note:" || fail=1
  n=$((n + 1))
done
[ $n -ge 6 ] || { echo "FAIL only $n recorded cases"; fail=1; }
python3 - "$IN/smem_private.timing.json" "$W/twice.timing.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = [x for x in d["kernels"] if "smem_private" in x["name"]][0]
k2 = dict(k, seq=len(d["kernels"]), start_ns=k["end_ns"] + 1000, end_ns=k["end_ns"] + 1000 + (k["end_ns"] - k["start_ns"]))
d["kernels"].append(k2)
d.pop("analysis", None)
json.dump(d, open(sys.argv[2], "w"))
PY
"$M" import "$W/s.mht" --timing "$W/twice.timing.json" -o "$W/twice.mhdb" -f -q || { echo "FAIL import twice"; fail=1; }
if python3 "$JUDGE" twice "$W/twice.mhdb" "$IN/smem_private.ncu.csv" >"$W/twice.out"; then
  echo "FAIL negative control: a doubled 7.9 us launch was not judged wrong"; cat "$W/twice.out"; fail=1
else
  grep -q "launch-bound.*DISAGREES" "$W/twice.out" && echo "ok   negative control judged wrong (launch-bound)" ||
    { echo "FAIL negative control: unexpected output"; cat "$W/twice.out"; fail=1; }
fi
exit $fail
