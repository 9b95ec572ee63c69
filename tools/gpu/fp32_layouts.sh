#!/usr/bin/env bash
# FP32 in every layout: the SIMT SGEMMs' K-major shared tiles padded (as named) against swizzled
# (--k-major-tile swizzled), one build, in one call (about 3 minutes; every step bounded):
#   ab.txt     cute bench of sgemm-sm80 and the 256x128 / 128x256 tiles at 4096³ and 8192³,
#              NN/NT/TN/TT, each beside cuBLAS SGEMM (pedantic), padded and swizzled alternating
#              twice at 4096³, once at 8192³
#   suite.txt  cute bench sgemm --suite (the heuristic's picks, as named), and the chart
#              suite.svg (compare with a suite of swizzled tiles in the same call:
#              suite-swizzled.txt)
#   check.txt  cute check --k-major-tile swizzled of the SIMT SGEMMs in every layout (the named
#              ones are checked by verify.sh), memcheck at 300x17x1000 TN and racecheck at
#              127x129x65 TN and TT of sgemm-sm80 as named
# Usage (repository root, a release build carried): tools/gpu/fp32_layouts.sh [cute]
source "$(dirname "$0")/setup.sh" "$@"
KERNELS=${KERNELS:-sgemm-sm80 sgemm-sm80-256x128 sgemm-sm80-128x256}
L="--layout NN --layout NT --layout TN --layout TT"
X="--k-major-tile swizzled"
for run in "4096" "4096 $X" "4096" "4096 $X" "8192" "8192 $X"; do
  set -- $run
  echo "## $1³ ${2:+swizzled}${2:-padded (as named)}"
  timeout 90 "$CUTE" bench $KERNELS $L --m "$1" --n "$1" --k "$1" ${2:+$X} 2>&1 | grep -E "^\| sgemm|^#"
done > "$OUT/ab.txt"
grep -c "sgemm" "$OUT/ab.txt"
timeout 150 "$CUTE" bench sgemm --suite $X > "$OUT/suite-swizzled.txt" 2>&1
timeout 150 "$CUTE" bench sgemm --suite --chart "$OUT/suite.svg" > "$OUT/suite.txt" 2>&1
tail -n 2 "$OUT/suite-swizzled.txt" "$OUT/suite.txt"
SIMT="sgemm-sm80 sgemm-sm80-16x128 sgemm-sm80-64x128 sgemm-sm80-8x256 sgemm-sm80-256x128 sgemm-sm80-128x256 sgemm-sm80-128x32 sgemm-sm80-bias-relu simt-hier"
{
  timeout 200 "$CUTE" check $SIMT $L $X; echo "rc=$?"
  timeout 60 "$SAN" --tool memcheck "$CUTE" run sgemm-sm80 --layout TN --m 300 --n 17 --k 1000 2>&1 | tail -1
  for l in TN TT; do
    timeout 60 "$SAN" --tool racecheck "$CUTE" run sgemm-sm80 --layout $l --m 127 --n 129 --k 65 2>&1 | tail -1
  done
} > "$OUT/check.txt" 2>&1
grep -E "rc=|SUMMARY" "$OUT/check.txt"
date -u
