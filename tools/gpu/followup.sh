#!/usr/bin/env bash
# Stream-K on the GPU, in one call (about 7 minutes; every step bounded):
#   checks.txt    compute-sanitizer memcheck / racecheck / synccheck of stream-K (the 128x128,
#                 16x128 and 64x128 tiles, NN/TN/NT), stream-K at K = 65536, and stream-K beside
#                 the one-kernel plan where the tiles leave a part wave (3072³: 576 tiles on 264
#                 slots; 1000x17x300; 8192x8192x128)
#   tune_f32.txt  cute tune sgemm --suite (NN): every tile (the 128x32 one where N <= 128)
#                 one-kernel, split-K (parallel and serial) and stream-K, and the GEMV where
#                 M <= 4, beside cuBLAS; the heuristic's pick against the fastest
#   suite.txt     cute bench sgemm --suite after the tune, and the chart suite.svg
# A fresh cache folder, so the tune starts from no tuning cache. Usage (from the repository
# root, a release build carried): tools/gpu/followup.sh [cute] [examples folder]
source "$(dirname "$0")/setup.sh" "$@"
{
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80 --layout NN --m 300 --n 170 --k 1000 --stream-k
  timeout 60 "$SAN" --tool racecheck "$CUTE" run sgemm-sm80-16x128 --layout TN --m 37 --n 300 --k 650 --stream-k
  timeout 60 "$SAN" --tool synccheck "$CUTE" run sgemm-sm80-64x128 --layout NT --m 129 --n 300 --k 650 --stream-k
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80-64x128 --layout TT --m 65 --n 257 --k 333 --stream-k
  timeout 60 "$CUTE" run sgemm-sm80-16x128 --m 3 --n 64 --k 65536 --stream-k
  timeout 60 "$CUTE" run sgemm-sm80 --layout TN --m 3072 --n 3072 --k 3072 --stream-k
  timeout 60 "$CUTE" bench sgemm-sm80 --m 3072 --n 3072 --k 3072 --stream-k
  timeout 60 "$CUTE" bench sgemm-sm80 --m 3072 --n 3072 --k 3072
  timeout 60 "$CUTE" bench sgemm-sm80 --m 1000 --n 17 --k 300 --stream-k
  timeout 60 "$CUTE" bench sgemm-sm80 --m 8192 --n 8192 --k 128 --stream-k
} > "$OUT/checks.txt" 2>&1
timeout 300 "$CUTE" tune sgemm --suite > "$OUT/tune_f32.txt" 2>&1; echo "rc=$?" >> "$OUT/tune_f32.txt"
timeout 90 "$CUTE" bench sgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
echo "rc=$?" >> "$OUT/suite.txt"
cp "$CUTE_CACHE_DIR/tuning.txt" "$OUT/" 2>/dev/null
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK|FAIL|error" "$OUT/checks.txt" | sort | uniq -c
grep -E "^best|stream" "$OUT/tune_f32.txt" | head -40
tail -4 "$OUT/suite.txt"
