#!/usr/bin/env bash
# The FP32 selector and parallel split-K on the GPU machine, in one call (about 4 minutes):
#   split_k.txt   per shape of the suite: `cute run sgemm --explain` (the selector's pick, checked
#                 with beta 0 and 0.5 against cuBLAS DGEMM, then timed beside cuBLAS SGEMM) and
#                 `cute bench sgemm-sm80` (the one-kernel baseline) at the same shape
#   layouts.txt   `cute bench sgemm` at the small-M shapes in all four layouts
#   sanitizer.txt compute-sanitizer memcheck and racecheck of split runs at ragged sizes
# Usage (from the repository root, a release build carried): tools/gpu/split_k.sh [cute]
set -uo pipefail
CUTE=${1:-target/release/cute}
OUT=${OUT:-reports/gpu}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=${CUTE_CACHE_DIR:-/tmp/cutecache}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SHAPES="256x256x256 512x512x512 1024x1024x1024 2048x2048x2048 4096x4096x4096 1x4096x4096 8x4096x4096 16x4096x4096 64x4096x4096 128x4096x4096 1x8192x8192 16x8192x8192 128x8192x8192 8192x8192x128 1000x17x300 64x1000x127 4096x4096x16384"
status=0
for s in $SHAPES; do
  IFS=x read -r m n k <<< "$s"
  "$CUTE" run sgemm --m "$m" --n "$n" --k "$k" --explain >> "$OUT/split_k.txt" 2>&1 || status=1
  "$CUTE" bench sgemm-sm80 --m "$m" --n "$n" --k "$k" 2>&1 | tail -1 >> "$OUT/split_k.txt" || status=1
done
echo "checks passed: $(grep -c 'check beta=.*: pass' "$OUT/split_k.txt"), failed or errors: $(grep -c 'FAIL\|^error' "$OUT/split_k.txt")"
for l in NN NT TN TT; do
  "$CUTE" bench sgemm --layout $l --m 16 --n 8192 --k 8192 | tail -1 >> "$OUT/layouts.txt" 2>&1 || status=1
  "$CUTE" bench sgemm --layout $l --m 128 --n 4096 --k 4096 | tail -1 >> "$OUT/layouts.txt" 2>&1 || status=1
done
for kern in sgemm-sm80 sgemm-sm80-16x128 sgemm-sm80-64x128; do
  for l in NN TN; do
    "$SAN" --tool memcheck "$CUTE" run "$kern" --layout $l --m 300 --n 17 --k 1000 --split-k 3 >> "$OUT/sanitizer.txt" 2>&1 || status=1
    "$SAN" --tool racecheck "$CUTE" run "$kern" --layout $l --m 127 --n 129 --k 650 --split-k 4 >> "$OUT/sanitizer.txt" 2>&1 || status=1
  done
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.txt" | sort | uniq -c
exit $status
