#!/usr/bin/env bash
# Issue 16, the persistent SM90 GEMMs in one device call: checks (fresh random operands, output
# poisoned, float64 reference), compute-sanitizer, then cute bench (cublasGemmEx of the same
# types in the same process) of the persistent kernels beside hgemm-sm90-tma (a CTA per tile),
# for every binary given (builds that differ in one plan constant, for an A/B; the first is
# checked in full, the others in TN and NN), then C++ CuTe's tutorials (anchor/, when carried).
# usage: tools/gpu/sm90_persistent.sh CUTE [CUTE_B ...]   (writes under $OUT)
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=/tmp/cutecache
CUTE=$1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
L="--layout NN --layout NT --layout TN --layout TT"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; } > $OUT/gpu.txt 2>&1
cat $OUT/gpu.txt
timeout 60 $CUTE check hgemm-sm90 --layout TN --m 300 --n 17 --k 1000 > $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 300 $CUTE check hgemm-sm90 bgemm-sm90 $L >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 100 $CUTE check tf32gemm-sm90 --layout TN >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 100 $CUTE check hgemm-sm90 --layout TN --out-dtype f16 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 100 $CUTE check hgemm-sm90 bgemm-sm90 --layout TN --layout NN --m 8192 --n 8192 --k 8192 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 120 $SAN --tool memcheck --error-exitcode 3 $CUTE check hgemm-sm90 $L --m 300 --n 300 --k 1000 > $OUT/san.txt 2>&1; echo "memcheck rc=$?"
timeout 120 $SAN --tool synccheck --error-exitcode 3 $CUTE check hgemm-sm90 --layout TN --m 1000 --n 1000 --k 65 >> $OUT/san.txt 2>&1; echo "synccheck rc=$?"
timeout 120 $SAN --tool racecheck --error-exitcode 3 $CUTE check hgemm-sm90 --layout TN --m 300 --n 300 --k 200 >> $OUT/san.txt 2>&1; echo "racecheck rc=$?"
grep SUMMARY $OUT/san.txt
for bin in "${@:2}"; do
  timeout 200 $bin check hgemm-sm90 bgemm-sm90 --layout TN --layout NN >> $OUT/check.txt 2>&1; echo "$bin: $(tail -1 $OUT/check.txt)"
done
for bin in "$@"; do
  echo "## $bin" >> $OUT/bench.txt
  for s in "4096 4096 4096" "8192 8192 8192" "8192 8192 1024" "2048 2048 2048"; do
    set -- $s
    timeout 120 $bin bench hgemm-sm90 bgemm-sm90 --layout TN --layout NN --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
    [ "$bin" = "$CUTE" ] && timeout 120 $bin bench hgemm-sm90-tma --layout TN --layout NN --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
  done
done
grep -E "^##|\|" $OUT/bench.txt | grep -v "^| kernel\|---"
if [ -d anchor ]; then timeout 150 bash anchor/run.sh > /dev/null 2>&1; grep -A1 "wgmma_tma\|sgemm_sm80 (FP16" $OUT/anchors.txt; tail -4 $OUT/anchors.txt; fi
