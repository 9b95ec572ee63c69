#!/usr/bin/env bash
# Issue 16, the persistent SM90 GEMMs in one device call (about 8 minutes on an H100/H200):
#   gpu.txt    the card, driver and clock
#   check.txt  hgemm-sm90 and bgemm-sm90 in all four layouts at the default sizes (1, 17, 127,
#              1000, 1024, 4096, 300x17x1000, 64x1000x127, beta 0 and 0.5), 8192³ in TN and NN,
#              tf32gemm-sm90 and the earlier steps (hgemm-sm90-tma, hgemm-sm90-cpasync) in TN,
#              hgemm-sm90 with an FP16 C: fresh random operands, C poisoned, float64 reference
#   san.txt    compute-sanitizer memcheck (all layouts, ragged), synccheck and racecheck
#   bench.txt  cute bench (cublasGemmEx of the same types in the same process, events, warm-up,
#              median) at 4096³, 8192³, 8192x8192x1024, 2048³: the persistent kernels in all four
#              layouts, then the recipe's earlier steps in TN; every further binary given (a build
#              that differs in one change, for an A/B) in TN and NN after the first
#   anchors.txt C++ CuTe's tutorials and cuBLAS through torch (anchor/, when carried)
# usage: tools/gpu/sm90_persistent.sh CUTE [CUTE_B ...]   (writes under $OUT)
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=/tmp/cutecache
CUTE=$1
EXTRA=("${@:2}")
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
L="--layout NN --layout NT --layout TN --layout TT"
SIZES=("4096 4096 4096" "8192 8192 8192" "8192 8192 1024" "2048 2048 2048")
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; } > $OUT/gpu.txt 2>&1
cat $OUT/gpu.txt
timeout 200 $CUTE check hgemm-sm90 bgemm-sm90 $L > $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 100 $CUTE check tf32gemm-sm90 fp8gemm-sm90 hgemm-sm90-tma hgemm-sm90-cpasync --layout TN >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 60 $CUTE check fp8gemm-sm90 --layout TN --m 8192 --n 8192 --k 8192 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 60 $CUTE check hgemm-sm90 --layout TN --out-dtype f16 --m 1000 --n 1000 --k 1000 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 100 $CUTE check hgemm-sm90 bgemm-sm90 --layout TN --layout NN --m 8192 --n 8192 --k 8192 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 120 $SAN --tool memcheck --error-exitcode 3 $CUTE check hgemm-sm90 bgemm-sm90 $L --m 300 --n 17 --k 1000 > $OUT/san.txt 2>&1; echo "memcheck rc=$?"
timeout 60 $SAN --tool memcheck --error-exitcode 3 $CUTE check fp8gemm-sm90 --layout TN --m 300 --n 17 --k 1000 >> $OUT/san.txt 2>&1; echo "memcheck fp8 rc=$?"
timeout 60 $SAN --tool synccheck --error-exitcode 3 $CUTE check hgemm-sm90 --layout TN --m 1000 --n 1000 --k 65 >> $OUT/san.txt 2>&1; echo "synccheck rc=$?"
timeout 90 $SAN --tool racecheck --error-exitcode 3 $CUTE check hgemm-sm90 --layout TN --m 300 --n 300 --k 200 >> $OUT/san.txt 2>&1; echo "racecheck rc=$?"
grep SUMMARY $OUT/san.txt
for bin in "${EXTRA[@]}"; do
  timeout 100 $bin check hgemm-sm90 bgemm-sm90 --layout TN --layout NN >> $OUT/check.txt 2>&1; echo "$bin: $(tail -1 $OUT/check.txt)"
done
if [ -d anchor ]; then timeout 150 bash anchor/run.sh > /dev/null 2>&1; grep -A1 "wgmma_tma\|sgemm_sm80 (FP16" $OUT/anchors.txt; tail -4 $OUT/anchors.txt; fi
for s in "${SIZES[@]}"; do
  set -- $s
  echo "## $CUTE" >> $OUT/bench.txt
  timeout 120 $CUTE bench hgemm-sm90 bgemm-sm90 $L --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
  timeout 60 $CUTE bench tf32gemm-sm90 fp8gemm-sm90 hgemm-sm90-tma hgemm-sm90-cpasync --layout TN --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
done
for bin in "${EXTRA[@]}"; do
  for s in "${SIZES[@]:0:2}"; do
    set -- $s
    echo "## $bin" >> $OUT/bench.txt
    timeout 60 $bin bench hgemm-sm90 bgemm-sm90 --layout TN --layout NN --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
  done
done
grep -E "^##|\|" $OUT/bench.txt | grep -v "^| kernel\|---"
