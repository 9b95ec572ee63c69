#!/usr/bin/env bash
# The suites as the heuristics pick them, then `cute tune bgemm` at the BF16 shapes where the
# pick and the fastest plan were furthest apart, in one call (about 6 minutes; every step
# bounded; SHAPES="M N K;M N K" picks the tune's shapes):
#   suite.txt  cute bench sgemm bgemm --suite with no tuning cache (the heuristics' picks) beside
#              cuBLAS, and the chart suite.svg
#   tune.txt   cute tune bgemm (TN) at 256³, 512³, 1024³, 64 x 4096², 128 x 4096²: every
#              candidate beside cuBLAS, the heuristic's pick against the fastest
# Usage (from the repository root, a release build carried): tools/gpu/suite_tune.sh [cute]
source "$(dirname "$0")/setup.sh" "$@"
timeout 200 "$CUTE" bench sgemm bgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
echo "rc=$?" >> "$OUT/suite.txt"
tail -5 "$OUT/suite.txt"
{
  IFS=';' read -ra shapes <<< "${SHAPES:-256 256 256;512 512 512;1024 1024 1024;64 4096 4096;128 4096 4096}"
  for mnk in "${shapes[@]}"; do
    set -- $mnk
    timeout 70 "$CUTE" tune bgemm --layout TN --m "$1" --n "$2" --k "$3"; echo "rc=$?"
  done
} > "$OUT/tune.txt" 2>&1
grep -E "^best|rc=" "$OUT/tune.txt"
date -u
