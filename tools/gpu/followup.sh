#!/usr/bin/env bash
# What tools/gpu/suite.sh's second run (2026-12-06, an H100) left to measure, in one call (about
# 5 minutes; every step bounded): serial split-K of the SIMT GEMMs (its launch check then read Kc
# from the problem, and refused every NN/NT launch), the 8x256 tile, and the suite as selector v3
# picks it with only the few-row classes tuned.
#   examples.txt  examples/gemm_auto (FP32, BF16 and FP16 through AutoGemm)
#   tune_rows.txt cute tune sgemm at 1, 8 and 16 rows against 4096² and 8192² (NN): every tile,
#                 the 8x256 one among them, parallel and serial split-K
#   suite.txt     cute bench sgemm bgemm --suite after those tunes (the other classes: the
#                 heuristic's pick), and the chart suite.svg
#   checks.txt    compute-sanitizer memcheck / racecheck / synccheck of the SIMT serial split-K in
#                 NN and NT, serial split-K at K = 65536, serial against parallel at 1x4096²;
#                 stream-K under memcheck and racecheck, and beside the one-kernel plan where the
#                 tiles leave a part wave (3072³: 576 tiles on 264 slots; 1000x17x300)
# A fresh cache folder, so the tunes start from no tuning cache. Usage (from the repository
# root, a release build carried): tools/gpu/followup.sh [cute] [examples folder]
source "$(dirname "$0")/setup.sh" "$@"
{ timeout 90 "$EX/gemm_auto"; echo "rc=$?"; } > "$OUT/examples.txt" 2>&1
{
  for mnk in "1 4096 4096" "8 4096 4096" "16 4096 4096" "1 8192 8192" "8 8192 8192"; do
    set -- $mnk
    timeout 60 "$CUTE" tune sgemm --m "$1" --n "$2" --k "$3"; echo "rc=$?"
  done
} > "$OUT/tune_rows.txt" 2>&1
timeout 150 "$CUTE" bench sgemm bgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
echo "rc=$?" >> "$OUT/suite.txt"
cp "$CUTE_CACHE_DIR/tuning.txt" "$OUT/" 2>/dev/null
{
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80 --layout NN --m 300 --n 17 --k 1000 --split-k 3 --serial
  timeout 60 "$SAN" --tool racecheck "$CUTE" run sgemm-sm80 --layout NT --m 127 --n 129 --k 650 --split-k 4 --serial
  timeout 60 "$SAN" --tool synccheck "$CUTE" run sgemm-sm80-64x128 --layout NN --m 127 --n 129 --k 650 --split-k 4 --serial
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80-8x256 --layout TN --m 5 --n 300 --k 1000 --split-k 3 --serial
  timeout 60 "$CUTE" run sgemm-sm80-8x256 --layout NN --m 1 --n 4096 --k 4096
  timeout 30 "$CUTE" run sgemm-sm80-16x128 --m 3 --n 64 --k 65536 --split-k 8 --serial
  timeout 60 "$CUTE" bench sgemm-sm80-16x128 --m 1 --n 4096 --k 4096 --split-k 4 --serial
  timeout 60 "$CUTE" bench sgemm-sm80-16x128 --m 1 --n 4096 --k 4096 --split-k 4
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80 --layout NN --m 300 --n 170 --k 1000 --stream-k
  timeout 60 "$SAN" --tool racecheck "$CUTE" run sgemm-sm80-16x128 --layout TN --m 37 --n 300 --k 650 --stream-k
  timeout 60 "$CUTE" run sgemm-sm80 --layout TN --m 3072 --n 3072 --k 3072 --stream-k
  timeout 60 "$CUTE" bench sgemm-sm80 --m 3072 --n 3072 --k 3072
  timeout 60 "$CUTE" bench sgemm-sm80 --m 1000 --n 17 --k 300 --stream-k
} > "$OUT/checks.txt" 2>&1
grep "^best" "$OUT/tune_rows.txt"
tail -4 "$OUT/suite.txt"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK|FAIL|error:" "$OUT/checks.txt" | sort | uniq -c
