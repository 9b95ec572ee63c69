#!/usr/bin/env bash
# The few-row and few-column GEMMs and stream-K on the GPU in one short call (about 4 minutes,
# every step bounded; tools/gpu/narrow.sh is the longer one with the suite):
#   checks.txt  compute-sanitizer memcheck / racecheck of the FP32 GEMV, the 128x32 tensor-core
#               tile split K ways, stream-K; the 128x32 SIMT tile, the BF16 GEMV and stream-K at
#               3072³ checked against float64
#   tune.txt    cute tune bgemm (TN) at 1 x 4096², 16 x 4096², 64 x 4096², 1000x17x300 and cute
#               tune sgemm (NN) at 1 x 4096² and 1000x17x300: every
#               candidate (the GEMV where M <= 4, the few-row tiles where M <= 128, the 128x32
#               ones where N <= 128, stream-K for FP32) beside cuBLAS
# Usage (from the repository root, a release build carried): tools/gpu/short.sh [cute]
source "$(dirname "$0")/setup.sh" "$@"
{
  timeout 30 "$SAN" --tool memcheck "$CUTE" run sgemm-gemv --layout NN --m 3 --n 300 --k 1000
  timeout 30 "$SAN" --tool racecheck "$CUTE" run bgemm-sm80-128x32 --layout TN --m 300 --n 17 --k 1000 --split-k 2
  timeout 30 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80 --layout NN --m 300 --n 170 --k 1000 --stream-k
  timeout 15 "$CUTE" run sgemm-sm80-128x32 --layout TT --m 300 --n 17 --k 1000
  timeout 15 "$CUTE" run bgemm-gemv --layout TN --m 5 --n 129 --k 520
  timeout 20 "$CUTE" run sgemm-sm80 --layout TN --m 3072 --n 3072 --k 3072 --stream-k
} > "$OUT/checks.txt" 2>&1
{
  for mnk in "1 4096 4096" "16 4096 4096" "64 4096 4096" "1000 17 300"; do
    set -- $mnk
    timeout 22 "$CUTE" tune bgemm --layout TN --m "$1" --n "$2" --k "$3"; echo "rc=$?"
  done
  for mnk in "1 4096 4096" "1000 17 300"; do
    set -- $mnk
    timeout 22 "$CUTE" tune sgemm --layout NN --m "$1" --n "$2" --k "$3"; echo "rc=$?"
  done
} > "$OUT/tune.txt" 2>&1
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|fail|error|check beta" "$OUT/checks.txt" | sed "s/(worst.*//" | sort | uniq -c
grep -E "^best|^## " "$OUT/tune.txt"
