#!/bin/sh
# The heat-map checker of scripts/gpu-check.sh must pass maps with the paper's
# patterns and fail maps without them (here: hand-made CSVs of one launch).
PY=$1 CHK=$2
D=${TMPDIR:-/tmp}/mh_heat_checker_$$
mkdir -p "$D/good" "$D/bad"
row() { echo "$1,0x$2,$3"; }
{
  echo "region,sector_tag,w0,w1,w2,w3,w4,w5,w6,w7,sector"
  i=0; while [ $i -lt 16 ]; do row 0 "10$i" "8,8,8,8,8,8,8,8,8"; i=$((i+1)); done     # A hot
  i=0; while [ $i -lt 16 ]; do row 1 "20$i" "1,1,1,1,1,1,1,1,4"; i=$((i+1)); done     # B false sharing
  i=0; while [ $i -lt 16 ]; do row 2 "30$i" "1,1,1,1,1,1,1,1,4"; i=$((i+1)); done     # C false sharing
} >"$D/good/launch0_global.csv"
{
  echo "region,sector_tag,w0,w1,w2,w3,w4,w5,w6,w7,sector"
  i=0; while [ $i -lt 16 ]; do row 0 "10$i" "8,8,8,8,8,8,8,8,8"; i=$((i+1)); done
  i=0; while [ $i -lt 16 ]; do row 1 "20$i" "1,1,1,1,1,1,1,1,1"; i=$((i+1)); done     # coalesced, not false sharing
  i=0; while [ $i -lt 16 ]; do row 2 "30$i" "1,1,1,1,1,1,1,1,4"; i=$((i+1)); done
} >"$D/bad/launch0_global.csv"
"$PY" "$CHK" gemm_v00 "$D/good" || { echo "checker rejected a correct gemm_v00 map"; rm -rf "$D"; exit 1; }
if "$PY" "$CHK" gemm_v00 "$D/bad"; then echo "checker accepted a wrong gemm_v00 map"; rm -rf "$D"; exit 1; fi
rm -rf "$D"
echo ok
