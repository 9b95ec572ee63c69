#!/usr/bin/env bash
# Issue 17's figures in one call, no tuning (about 4 minutes; every step bounded), for a GPU
# where they have not been taken (the H200: none of 2026-12-07/08's figures are from one):
#   suite_f32_{1,2}.txt   cute bench sgemm --suite (NN, the heuristic's picks), twice, and the
#                         chart suite_f32.svg
#   suite_bf16_{1,2}.txt  cute bench bgemm --suite (TN), twice, and suite_bf16.svg
#   layouts.txt           the SIMT tiles (128x128, 256x128, 128x256) in every layout at 4096³
#                         and 8192³, beside cuBLAS SGEMM (the FP32-in-every-layout bar)
#   gemv.txt              the GEMVs against the selectors' picks at 1 and 4 rows against 4096²
#                         and 8192², FP32 in every layout, BF16 in NN and TN (the GEMV caps,
#                         and whether the BF16 selector should take the staged NN GEMV)
#   wavefronts.txt        tools/gpu/tn_wavefronts.sh (ncu; the TN model)
# Usage (repository root, a release build carried): tools/gpu/issue17_figures.sh [cute]
source "$(dirname "$0")/setup.sh" "$@"
for r in 1 2; do
  timeout 90 "$CUTE" bench sgemm --suite --chart "$OUT/suite_f32.svg" > "$OUT/suite_f32_$r.txt" 2>&1
  timeout 120 "$CUTE" bench bgemm --suite --chart "$OUT/suite_bf16.svg" > "$OUT/suite_bf16_$r.txt" 2>&1
done
tail -qn 1 "$OUT"/suite_f32_*.txt "$OUT"/suite_bf16_*.txt
L="--layout NN --layout NT --layout TN --layout TT"
for s in 4096 8192; do
  timeout 90 "$CUTE" bench sgemm-sm80 sgemm-sm80-256x128 sgemm-sm80-128x256 $L --m $s --n $s --k $s 2>&1 \
    | grep -E "^\| sgemm|^#"
done > "$OUT/layouts.txt"
{
  for n in 4096 8192; do
    for m in 1 4; do
      for l in NN NT TN TT; do
        for k in sgemm-gemv sgemm; do
          timeout 30 "$CUTE" bench $k --layout $l --m $m --n $n --k $n 2>&1 | grep -E "^\| sgemm"
        done
      done
      for l in NN TN; do
        for k in bgemm-gemv bgemm; do
          timeout 30 "$CUTE" bench $k --layout $l --m $m --n $n --k $n 2>&1 | grep -E "^\| bgemm"
        done
      done
    done
  done
} > "$OUT/gemv.txt"
grep -c "gemm" "$OUT/layouts.txt" "$OUT/gemv.txt"
"$(dirname "$0")/tn_wavefronts.sh" "$CUTE"
date -u
