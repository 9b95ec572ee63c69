#!/usr/bin/env bash
# Parallel split-K of the FP32 SIMT GEMMs on the GPU machine, in one call (about 3 minutes):
#   split_k.txt   `cute run --split-k auto` (checks with beta 0 and 0.5 against cuBLAS DGEMM, then
#                 the time beside cuBLAS SGEMM) at the small-M and long-K shapes of the suite, and
#                 `cute bench` of the same kernels without the split at the same shapes
#   sanitizer.txt compute-sanitizer memcheck and racecheck of a split run at ragged sizes
# Usage (from the repository root, a release build carried): tools/gpu/split_k.sh [cute] [kernels...]
set -uo pipefail
CUTE=${1:-target/release/cute}
shift || true
KERNELS=${*:-sgemm-sm80}
OUT=${OUT:-reports/gpu}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=${CUTE_CACHE_DIR:-/tmp/cutecache}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SHAPES="1x4096x4096 8x4096x4096 16x4096x4096 64x4096x4096 128x4096x4096 1x8192x8192 16x8192x8192 128x8192x8192 1000x17x300 64x1000x127 4096x4096x16384 256x256x256 512x512x512 1024x1024x1024"
status=0
for kern in $KERNELS; do
  for s in $SHAPES; do
    IFS=x read -r m n k <<< "$s"
    "$CUTE" run "$kern" --m "$m" --n "$n" --k "$k" --split-k auto >> "$OUT/split_k.txt" 2>&1 || status=1
    "$CUTE" bench "$kern" --m "$m" --n "$n" --k "$k" | tail -1 >> "$OUT/split_k.txt" 2>&1 || status=1
  done
done
grep -c "check beta=.*: pass" "$OUT/split_k.txt"
grep -c "FAIL\|error" "$OUT/split_k.txt"
for kern in $KERNELS; do
  for l in NN TN; do
    "$SAN" --tool memcheck "$CUTE" run "$kern" --layout $l --m 300 --n 17 --k 1000 --split-k 3 >> "$OUT/sanitizer.txt" 2>&1 || status=1
    "$SAN" --tool racecheck "$CUTE" run "$kern" --layout $l --m 127 --n 129 --k 650 --split-k 4 >> "$OUT/sanitizer.txt" 2>&1 || status=1
  done
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.txt"
exit $status
