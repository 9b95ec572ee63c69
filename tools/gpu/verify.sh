#!/usr/bin/env bash
# Correctness of every generated kernel on the GPU machine, in one call; writes reports under $OUT
# (or ./reports/gpu when $OUT is unset):
#   check.txt      every named kernel x NN/NT/TN/TT x sizes 1, 17, 127, 1000, 1024, 4096 (not the
#                  naive kernels), 300x17x1000, 64x1000x127, beta 0 and 0.5 (64 checks a
#                  kernel; 432 before the 16x128 and 64x128 tiles), against a
#                  float64 cuBLAS DGEMM reference
#   memcheck.txt   compute-sanitizer memcheck of every kernel and layout at 300x17x1000 (ragged tiles)
#   racecheck.txt  compute-sanitizer racecheck of every kernel and layout at 127x129x65
#   each file then the recipes (transpose, transpose-f16, row-softmax): check at 8 sizes from 1x1
#   to 4096x4096 against their float64 references, memcheck and racecheck at 130x67; then the
#   tensor-core GEMMs (hgemm-sm80, bgemm-sm80, tf32gemm-sm80, hgemm-sm80-bias-relu, all four
#   layouts): check at the same sizes as the SIMT GEMMs against cuBLAS DGEMM of the rounded
#   operands (256 checks), memcheck at 300x17x1000, racecheck at 127x129x65; then the SM90
#   GEMMs (hgemm-sm90, bgemm-sm90 and their 128x128 tiles in all four layouts, tf32gemm-sm90 in
#   TN, and the earlier steps of their recipe hgemm-sm90-tma and hgemm-sm90-cpasync in TN: 304
#   checks), memcheck
#   at 300x17x1000, racecheck and synccheck at 127x129x65; then
#   hgemm-sm80 with an FP16 C and bgemm-sm80 with a BF16 C (--out-dtype), all four layouts at the
#   same sizes (128 checks), memcheck at 300x17x1000, racecheck (hgemm) at 127x129x65
# Usage (from the repository root, after `cargo build --release` on the build machine):
#   tools/gpu/verify.sh [path/to/cute]
set -uo pipefail
CUTE=${1:-target/release/cute}
OUT=${OUT:-reports/gpu}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=${CUTE_CACHE_DIR:-/tmp/cutecache}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
status=0
"$CUTE" check > "$OUT/check.txt" 2>&1 || status=1
tail -1 "$OUT/check.txt"
RECIPES="transpose transpose-f16 row-softmax"
"$CUTE" check $RECIPES >> "$OUT/check.txt" 2>&1 || status=1
tail -1 "$OUT/check.txt"
TC="hgemm-sm80 bgemm-sm80 tf32gemm-sm80 hgemm-sm80-bias-relu"
TCL="--layout NN --layout NT --layout TN --layout TT"
"$CUTE" check $TC $TCL >> "$OUT/check.txt" 2>&1 || status=1
tail -1 "$OUT/check.txt"
SM90="hgemm-sm90 bgemm-sm90 hgemm-sm90-128x128 bgemm-sm90-128x128"
"$CUTE" check $SM90 $TCL >> "$OUT/check.txt" 2>&1 || status=1
tail -1 "$OUT/check.txt"
"$CUTE" check tf32gemm-sm90 hgemm-sm90-tma hgemm-sm90-cpasync --layout TN >> "$OUT/check.txt" 2>&1 || status=1
tail -1 "$OUT/check.txt"
"$CUTE" check hgemm-sm80 $TCL --out-dtype f16 >> "$OUT/check.txt" 2>&1 || status=1
tail -1 "$OUT/check.txt"
"$CUTE" check bgemm-sm80 $TCL --out-dtype bf16 >> "$OUT/check.txt" 2>&1 || status=1
tail -1 "$OUT/check.txt"
if [ -x "$SAN" ]; then
  "$SAN" --tool memcheck --error-exitcode 3 "$CUTE" check --m 300 --n 17 --k 1000 \
    > "$OUT/memcheck.txt" 2>&1 || status=1
  "$SAN" --tool memcheck --error-exitcode 3 "$CUTE" check $RECIPES --m 130 --n 67 \
    >> "$OUT/memcheck.txt" 2>&1 || status=1
  "$SAN" --tool memcheck --error-exitcode 3 "$CUTE" check $TC $TCL --m 300 --n 17 --k 1000 \
    >> "$OUT/memcheck.txt" 2>&1 || status=1
  "$SAN" --tool memcheck --error-exitcode 3 "$CUTE" check $SM90 $TCL --m 300 --n 17 --k 1000 \
    >> "$OUT/memcheck.txt" 2>&1 || status=1
  "$SAN" --tool memcheck --error-exitcode 3 "$CUTE" check tf32gemm-sm90 --layout TN --m 300 \
    --n 17 --k 1000 >> "$OUT/memcheck.txt" 2>&1 || status=1
  for o in "hgemm-sm80 --out-dtype f16" "bgemm-sm80 --out-dtype bf16"; do
    "$SAN" --tool memcheck --error-exitcode 3 "$CUTE" check $o $TCL --m 300 --n 17 --k 1000 \
      >> "$OUT/memcheck.txt" 2>&1 || status=1
  done
  echo "memcheck: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.txt" | tr '\n' ' ')"
  "$SAN" --tool racecheck --racecheck-report hazard --error-exitcode 3 "$CUTE" check \
    --m 127 --n 129 --k 65 > "$OUT/racecheck.txt" 2>&1 || status=1
  "$SAN" --tool racecheck --racecheck-report hazard --error-exitcode 3 "$CUTE" check $RECIPES \
    --m 130 --n 67 >> "$OUT/racecheck.txt" 2>&1 || status=1
  "$SAN" --tool racecheck --racecheck-report hazard --error-exitcode 3 "$CUTE" check $TC \
    $TCL --m 127 --n 129 --k 65 >> "$OUT/racecheck.txt" 2>&1 || status=1
  "$SAN" --tool racecheck --racecheck-report hazard --error-exitcode 3 "$CUTE" check \
    hgemm-sm80 --out-dtype f16 $TCL --m 127 --n 129 --k 65 >> "$OUT/racecheck.txt" 2>&1 || status=1
  "$SAN" --tool racecheck --racecheck-report hazard --error-exitcode 3 "$CUTE" check $SM90 \
    $TCL --m 127 --n 129 --k 65 >> "$OUT/racecheck.txt" 2>&1 || status=1
  "$SAN" --tool synccheck --error-exitcode 3 "$CUTE" check $SM90 $TCL --m 127 --n 129 --k 65 \
    > "$OUT/synccheck.txt" 2>&1 || status=1
  echo "synccheck: $(grep -E 'ERROR SUMMARY' "$OUT/synccheck.txt" | tr '\n' ' ')"
  echo "racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.txt" | tr '\n' ' ')"
else
  echo "compute-sanitizer not found: memcheck and racecheck skipped"
  status=1
fi
exit $status
