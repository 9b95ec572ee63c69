#!/usr/bin/env bash
# Issue 16, a 16-bit C of the SM90 GEMMs stored by stmatrix, in one device call: checks of
# hgemm-sm90 (FP16 C) and bgemm-sm90 (BF16 C) in every layout and fp8gemm-sm90 (BF16 C) at the
# default sizes (and 8192^3 of the FP32-C layouts the other script leaves out), compute-sanitizer memcheck / racecheck / synccheck of them, examples/gemm_tensor_core
# (the Gemm API on hgemm-sm90 and fp8gemm-sm90), then cute bench of the 16-bit-C kernels for
# each binary given (the first the one checked; the others, builds before a change, for an A/B).
# usage: tools/gpu/sm90_16bit_c.sh CUTE [CUTE_B ...]   (writes under $OUT)
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=/tmp/cutecache
CUTE=$1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
L="--layout NN --layout NT --layout TN --layout TT"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; } > $OUT/gpu.txt 2>&1
cat $OUT/gpu.txt
timeout 150 $CUTE check hgemm-sm90 $L --out-dtype f16 > $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 150 $CUTE check bgemm-sm90 $L --out-dtype bf16 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 60 $CUTE check fp8gemm-sm90 --layout TN >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 60 $CUTE check hgemm-sm90 fp8gemm-sm90 --layout TN --out-dtype bf16 --m 8192 --n 8192 --k 8192 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
# 8192^3 in the layouts and types sm90_persistent.sh leaves out (FP32 C)
timeout 120 $CUTE check hgemm-sm90 bgemm-sm90 --layout NT --layout TT --m 8192 --n 8192 --k 8192 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 60 $CUTE check tf32gemm-sm90 --layout TN --m 8192 --n 8192 --k 8192 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 120 $SAN --tool memcheck --error-exitcode 3 $CUTE check hgemm-sm90 $L --out-dtype f16 --m 300 --n 17 --k 1000 > $OUT/san.txt 2>&1; echo "memcheck rc=$?"
timeout 60 $SAN --tool memcheck --error-exitcode 3 $CUTE check fp8gemm-sm90 --layout TN --m 300 --n 300 --k 1000 >> $OUT/san.txt 2>&1; echo "memcheck fp8 rc=$?"
timeout 90 $SAN --tool racecheck --error-exitcode 3 $CUTE check hgemm-sm90 --layout TN --out-dtype f16 --m 300 --n 300 --k 200 >> $OUT/san.txt 2>&1; echo "racecheck rc=$?"
timeout 60 $SAN --tool synccheck --error-exitcode 3 $CUTE check bgemm-sm90 --layout NT --out-dtype bf16 --m 1000 --n 1000 --k 65 >> $OUT/san.txt 2>&1; echo "synccheck rc=$?"
grep SUMMARY $OUT/san.txt
[ -x gpubin/gemm_tensor_core ] && { timeout 120 gpubin/gemm_tensor_core > $OUT/example.txt 2>&1; echo "example rc=$?"; tail -4 $OUT/example.txt; }
for bin in "$@"; do
  for s in "4096 4096 4096" "8192 8192 8192"; do
    set -- $s
    echo "## $bin" >> $OUT/bench.txt
    timeout 60 $bin bench hgemm-sm90 --layout TN --layout NN --out-dtype f16 --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
    timeout 60 $bin bench fp8gemm-sm90 --layout TN --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
  done
done
grep -E "^##|\|" $OUT/bench.txt | grep -v "^| kernel\|---"
