#!/usr/bin/env bash
# The few-row GEMMs on the GPU: the SM80 tensor-core GEMMs' 16x128 and 64x128 tiles and the
# GEMVs (sgemm-gemv, bgemm-gemv, hgemm-gemv), in one call (about 8 minutes; every step bounded):
#   checks.txt    compute-sanitizer memcheck / racecheck / synccheck of both tiles, one kernel
#                 and split-K (parallel and serial), TN and the MN-major layouts; split-K at
#                 K = 65536; the GEMVs checked (NN, TN, rows past a warp's 4) under memcheck and
#                 racecheck, at K = 65536, and timed at 1 x 4096² and 1 x 8192²
#   tune_bf16.txt cute tune bgemm (TN) at M = 1, 16, 64, 128 against 4096² and 8192² and at
#                 1000x17x300: every SM80 tile (the 128x32 one where N <= 128) one-kernel and
#                 split, the SM90 GEMM, the GEMV where M <= 4, beside cuBLAS
#   suite.txt     cute bench bgemm --suite after the tunes (the tuned plans on those shapes, the
#                 heuristic's pick elsewhere), and the chart suite.svg
# A fresh cache folder, so the tune starts from no tuning cache. Usage (from the repository
# root, a release build carried): tools/gpu/narrow.sh [cute] [examples folder]
source "$(dirname "$0")/setup.sh" "$@"
{
  timeout 60 "$SAN" --tool memcheck "$CUTE" run bgemm-sm80-16x128 --layout TN --m 300 --n 17 --k 1000
  timeout 60 "$SAN" --tool memcheck "$CUTE" run bgemm-sm80-16x128 --layout NT --m 5 --n 300 --k 1000 --split-k 3
  timeout 60 "$SAN" --tool racecheck "$CUTE" run hgemm-sm80-64x128 --layout TN --m 127 --n 129 --k 650 --split-k 4
  timeout 60 "$SAN" --tool synccheck "$CUTE" run bgemm-sm80-64x128 --layout NN --m 65 --n 129 --k 650 --split-k 2 --serial
  timeout 60 "$SAN" --tool memcheck "$CUTE" run hgemm-sm80-64x128 --layout TT --m 70 --n 300 --k 333
  timeout 60 "$SAN" --tool memcheck "$CUTE" run bgemm-sm80-128x32 --layout NT --m 300 --n 17 --k 1000 --split-k 3
  timeout 60 "$SAN" --tool racecheck "$CUTE" run sgemm-sm80-128x32 --layout TT --m 300 --n 17 --k 1000 --split-k 2
  timeout 60 "$CUTE" check sgemm-sm80-128x32
  timeout 60 "$CUTE" run bgemm-sm80-16x128 --layout TN --m 3 --n 64 --k 65536 --split-k 8
  timeout 60 "$CUTE" bench bgemm-sm80-16x128 --layout TN --m 16 --n 8192 --k 8192 --split-k 4
  timeout 60 "$CUTE" bench bgemm-sm80-64x128 --layout TN --m 64 --n 8192 --k 8192 --split-k 4
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-gemv --layout NN --m 3 --n 300 --k 1000
  timeout 60 "$SAN" --tool racecheck "$CUTE" run bgemm-gemv --layout TN --m 5 --n 129 --k 520
  timeout 60 "$SAN" --tool memcheck "$CUTE" run hgemm-gemv --layout NN --m 1 --n 77 --k 4104
  timeout 60 "$CUTE" run sgemm-gemv --layout TN --m 2 --n 64 --k 65536
  for n in 4096 8192; do
    timeout 60 "$CUTE" bench sgemm-gemv --layout NN --m 1 --n $n --k $n
    timeout 60 "$CUTE" bench bgemm-gemv --layout TN --m 1 --n $n --k $n
  done
} > "$OUT/checks.txt" 2>&1
{
  for mnk in "1 4096 4096" "16 4096 4096" "64 4096 4096" "128 4096 4096" \
    "1 8192 8192" "16 8192 8192" "64 8192 8192" "128 8192 8192"; do
    set -- $mnk
    timeout 50 "$CUTE" tune bgemm --layout TN --m "$1" --n "$2" --k "$3"; echo "rc=$?"
  done
  timeout 50 "$CUTE" tune bgemm --layout TN --m 1000 --n 17 --k 300; echo "rc=$?"
} > "$OUT/tune_bf16.txt" 2>&1
timeout 90 "$CUTE" bench bgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
echo "rc=$?" >> "$OUT/suite.txt"
cp "$CUTE_CACHE_DIR/tuning.txt" "$OUT/" 2>/dev/null
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK|FAIL|error" "$OUT/checks.txt" | sort | uniq -c
grep -E "^best|^## " "$OUT/tune_bf16.txt"
tail -4 "$OUT/suite.txt"
