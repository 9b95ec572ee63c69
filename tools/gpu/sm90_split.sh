#!/usr/bin/env bash
# Parallel split-K of the SM90 GEMMs on the GPU, in one call (about 9 minutes; every step
# bounded):
#   checks.txt  compute-sanitizer memcheck (TN, ragged) and racecheck (NT: an N-major B) of
#               bgemm-sm90-128x128 split K ways; cute run (checked against float64) of both SM90
#               tiles in every layout at 128 x 4096² in 4 slices, and at K = 65536
#   suite.txt   cute bench bgemm --suite with no tuning cache: the heuristic's picks (the
#               selector before the SM90 split is among them) beside cuBLAS
#   tune.txt    cute tune bgemm --suite (TN): every candidate, the SM90 splits among them,
#               beside cuBLAS, and the heuristic's pick against the fastest
# Usage (from the repository root, a release build carried): tools/gpu/sm90_split.sh [cute]
source "$(dirname "$0")/setup.sh" "$@"
{
  timeout 60 "$SAN" --tool memcheck "$CUTE" run bgemm-sm90-128x128 --layout TN --m 300 --n 170 --k 1000 --split-k 3
  timeout 60 "$SAN" --tool racecheck "$CUTE" run bgemm-sm90-128x128 --layout NT --m 130 --n 267 --k 333 --split-k 2
  timeout 60 "$SAN" --tool memcheck "$CUTE" run hgemm-sm90 --layout NN --m 65 --n 300 --k 777 --split-k 4
  for l in NN NT TN TT; do
    for k in bgemm-sm90 bgemm-sm90-128x128; do
      timeout 30 "$CUTE" run $k --layout $l --m 128 --n 4096 --k 4096 --split-k 4
    done
  done
  timeout 30 "$CUTE" run bgemm-sm90-128x128 --layout TN --m 64 --n 64 --k 65536 --split-k 8
} > "$OUT/checks.txt" 2>&1
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|rror:" "$OUT/checks.txt" | sort | uniq -c
grep -E "check beta" "$OUT/checks.txt" | cut -d"(" -f1 | sort | uniq -c
timeout 150 "$CUTE" bench bgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
echo "rc=$?" >> "$OUT/suite.txt"
tail -4 "$OUT/suite.txt"
timeout 330 "$CUTE" tune bgemm --suite > "$OUT/tune.txt" 2>&1; echo "rc=$?" >> "$OUT/tune.txt"
grep -E "^best|rc=" "$OUT/tune.txt"
date -u
