#!/usr/bin/env bash
# The M-major-A GEMVs (NN) reading A from a CTA's shared copy, against a build that reads it
# from global memory, in one call (about 4 minutes; every step bounded):
#   gemv_ab.txt  tools/gpu/gemv_ab.sh OLD NEW (both builds alternating beside cuBLAS)
#   check.txt    cute check of the three GEMVs in every layout, memcheck and racecheck of the
#                FP32 and BF16 GEMV NN at ragged sizes
#   suite.txt    cute bench sgemm --suite (NEW), and its chart suite.svg
# Usage (repository root, both release builds carried): tools/gpu/gemv_staged.sh OLD NEW
set -uo pipefail
OLD=$1 NEW=$2
OUT=${OUT:-reports/gpu}
"$(dirname "$0")/gemv_ab.sh" "$OLD" "$NEW"
source "$(dirname "$0")/setup.sh" "$NEW"
L="--layout NN --layout NT --layout TN --layout TT"
{
  timeout 150 "$CUTE" check sgemm-gemv hgemm-gemv bgemm-gemv $L; echo "rc=$?"
  for k in sgemm-gemv bgemm-gemv; do
    for tool in memcheck racecheck; do
      timeout 60 "$SAN" --tool $tool "$CUTE" run $k --layout NN --m 3 --n 131 --k 1000 2>&1 | tail -n 1
    done
  done
} > "$OUT/check.txt" 2>&1
grep -E "rc=|SUMMARY|passed" "$OUT/check.txt"
timeout 150 "$CUTE" bench sgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
tail -n 3 "$OUT/suite.txt"
date -u
