#!/usr/bin/env bash
# Issue 17's measurements on the GPU machine, in one call (about 8 minutes; every step bounded):
#   examples.txt  examples/wgmma_tile (every GMMA family against float64, the FP16 and S32
#                 accumulators among them) and examples/gemm_auto (AutoGemm at three shapes)
#   tune_f32.txt  cute tune sgemm --suite (NN): each plan beside cuBLAS, the heuristic's pick
#                 against the fastest
#   tune_bf16.txt cute tune bgemm --suite (TN)
#   suite.txt     cute bench sgemm bgemm --suite, after the tunes (the tuned plans), and the
#                 chart suite.svg
#   checks.txt    compute-sanitizer memcheck / racecheck of tensor-core (SM80 and SM90) and 64x128 split-K,
#                 parallel and serial, cute check sgemm-sm80-64x128, split-K at K = 65536
# A fresh cache folder, so the tunes start from no tuning cache. Usage (from the repository
# root, a release build carried): tools/gpu/suite.sh [cute] [examples folder]
source "$(dirname "$0")/setup.sh" "$@"
{ timeout 30 "$EX/wgmma_tile"; echo "rc=$?"; timeout 90 "$EX/gemm_auto"; echo "rc=$?"; } > "$OUT/examples.txt" 2>&1
timeout 200 "$CUTE" tune sgemm --suite > "$OUT/tune_f32.txt" 2>&1; echo "rc=$?" >> "$OUT/tune_f32.txt"
timeout 240 "$CUTE" tune bgemm --suite > "$OUT/tune_bf16.txt" 2>&1; echo "rc=$?" >> "$OUT/tune_bf16.txt"
timeout 150 "$CUTE" bench sgemm bgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
echo "rc=$?" >> "$OUT/suite.txt"
cp "$CUTE_CACHE_DIR/tuning.txt" "$OUT/" 2>/dev/null
{
  timeout 60 "$SAN" --tool memcheck "$CUTE" run bgemm-sm80 --layout TN --m 300 --n 17 --k 1000 --split-k 3
  timeout 60 "$SAN" --tool memcheck "$CUTE" run hgemm-sm80 --layout NT --m 300 --n 17 --k 1000 --split-k 3
  timeout 60 "$SAN" --tool racecheck "$CUTE" run bgemm-sm80 --layout TN --m 127 --n 129 --k 650 --split-k 4
  timeout 60 "$SAN" --tool memcheck "$CUTE" run bgemm-sm90-128x128 --layout TN --m 300 --n 170 --k 1000 --split-k 3
  timeout 60 "$SAN" --tool racecheck "$CUTE" run bgemm-sm90 --layout NT --m 130 --n 267 --k 333 --split-k 2
  timeout 60 "$CUTE" check sgemm-sm80-64x128
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80-64x128 --layout TN --m 300 --n 17 --k 1000 --split-k 3
  timeout 60 "$SAN" --tool racecheck "$CUTE" run sgemm-sm80-64x128 --layout NN --m 127 --n 129 --k 650 --split-k 4
  timeout 30 "$CUTE" run sgemm-sm80 --m 64 --n 64 --k 65536 --split-k auto
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80-16x128 --layout TN --m 300 --n 17 --k 1000 --split-k 3 --serial
  timeout 60 "$SAN" --tool racecheck "$CUTE" run sgemm-sm80 --layout NT --m 127 --n 129 --k 650 --split-k 4 --serial
  timeout 60 "$SAN" --tool memcheck "$CUTE" run bgemm-sm80 --layout TN --m 127 --n 129 --k 650 --split-k 4 --serial
  timeout 60 "$SAN" --tool synccheck "$CUTE" run hgemm-sm80 --layout NT --m 300 --n 17 --k 1000 --split-k 3 --serial
  timeout 30 "$CUTE" run sgemm-sm80-16x128 --m 3 --n 64 --k 65536 --split-k 8 --serial
  timeout 60 "$CUTE" bench sgemm-sm80-16x128 --m 1 --n 4096 --k 4096 --split-k 4 --serial
  timeout 60 "$CUTE" bench sgemm-sm80-16x128 --m 1 --n 4096 --k 4096 --split-k 4
} > "$OUT/checks.txt" 2>&1
grep "^best" "$OUT/tune_f32.txt" "$OUT/tune_bf16.txt" | sed 's/.*pick runs at //' | tr '\n' ' '; echo
tail -4 "$OUT/suite.txt"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|passed, " "$OUT/checks.txt" | sort | uniq -c
