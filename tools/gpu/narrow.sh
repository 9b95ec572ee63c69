#!/usr/bin/env bash
# The few-row and few-column GEMMs and stream-K on the GPU, in one call (about 8 minutes; every
# step bounded):
#   checks.txt    compute-sanitizer memcheck / racecheck of the GEMVs (sgemm-gemv, bgemm-gemv;
#                 B K-major, and N-major: its warps meet in shared memory),
#                 the SM80 tensor-core GEMMs' 16x128, 64x128 and 128x32 tiles split K ways, and
#                 stream-K; cute check of sgemm-sm80-128x32 (every layout); the GEMV, split-K
#                 of the 16x128 tile at K = 65536; stream-K at 3072³
#   tune.txt      cute tune bgemm (TN) at M = 1, 16, 64, 128 against 4096² and 8192² and at
#                 1000x17x300, and cute tune sgemm (NN) at 1 x 4096², 1 x 8192², 64 and 128 x
#                 8192², 1000x17x300: every tile (the few-row ones where M <= 128, the 128x32
#                 one where N <= 128) one-kernel and split, stream-K (FP32), the SM90 GEMM
#                 (BF16), the GEMV where M <= 4, each beside cuBLAS; cute tune sgemm and bgemm
#                 at 1 x 4096² with B N-major (NT, TT: the N-major GEMV against the tiles)
#   suite.txt     cute bench sgemm bgemm --suite after the tunes (the tuned plans on those
#                 shapes, the heuristic's pick elsewhere), and the chart suite.svg
# A fresh cache folder, so the tunes start from no tuning cache. Usage (from the repository
# root, a release build carried): tools/gpu/narrow.sh [cute] [examples folder]
source "$(dirname "$0")/setup.sh" "$@"
{
  timeout 40 "$SAN" --tool memcheck "$CUTE" run sgemm-gemv --layout NN --m 3 --n 300 --k 1000
  timeout 40 "$SAN" --tool racecheck "$CUTE" run bgemm-gemv --layout TN --m 5 --n 129 --k 520
  timeout 40 "$SAN" --tool memcheck "$CUTE" run sgemm-gemv --layout NT --m 3 --n 296 --k 1000
  timeout 40 "$SAN" --tool racecheck "$CUTE" run bgemm-gemv --layout TT --m 5 --n 136 --k 523
  timeout 40 "$SAN" --tool memcheck "$CUTE" run bgemm-sm80-16x128 --layout NT --m 5 --n 300 --k 1000 --split-k 3
  timeout 40 "$SAN" --tool racecheck "$CUTE" run hgemm-sm80-64x128 --layout TN --m 127 --n 129 --k 650 --split-k 4
  timeout 40 "$SAN" --tool memcheck "$CUTE" run bgemm-sm80-128x32 --layout NT --m 300 --n 17 --k 1000 --split-k 3
  timeout 40 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80 --layout NN --m 300 --n 170 --k 1000 --stream-k
  timeout 40 "$SAN" --tool racecheck "$CUTE" run sgemm-sm80-16x128 --layout TN --m 37 --n 300 --k 650 --stream-k
  timeout 40 "$CUTE" check sgemm-sm80-128x32
  timeout 20 "$CUTE" run sgemm-gemv --layout TN --m 2 --n 64 --k 65536
  timeout 20 "$CUTE" run bgemm-sm80-16x128 --layout TN --m 3 --n 64 --k 65536 --split-k 8
  timeout 30 "$CUTE" run sgemm-sm80 --layout TN --m 3072 --n 3072 --k 3072 --stream-k
} > "$OUT/checks.txt" 2>&1
{
  for mnk in "1 4096 4096" "16 4096 4096" "64 4096 4096" "128 4096 4096" \
    "1 8192 8192" "16 8192 8192" "64 8192 8192" "128 8192 8192" "1000 17 300"; do
    set -- $mnk
    timeout 30 "$CUTE" tune bgemm --layout TN --m "$1" --n "$2" --k "$3"; echo "rc=$?"
  done
  for mnk in "1 4096 4096" "1 8192 8192" "64 8192 8192" "128 8192 8192" "1000 17 300"; do
    set -- $mnk
    timeout 25 "$CUTE" tune sgemm --layout NN --m "$1" --n "$2" --k "$3"; echo "rc=$?"
  done
  timeout 25 "$CUTE" tune sgemm --layout NT --m 1 --n 4096 --k 4096; echo "rc=$?"
  timeout 30 "$CUTE" tune bgemm --layout TT --m 1 --n 4096 --k 4096; echo "rc=$?"
} > "$OUT/tune.txt" 2>&1
timeout 100 "$CUTE" bench sgemm bgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
echo "rc=$?" >> "$OUT/suite.txt"
cp "$CUTE_CACHE_DIR/tuning.txt" "$OUT/" 2>/dev/null
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|error|passed" "$OUT/checks.txt" | sort | uniq -c
grep -E "^best|^## " "$OUT/tune.txt"
tail -4 "$OUT/suite.txt"
