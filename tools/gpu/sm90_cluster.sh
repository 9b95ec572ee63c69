#!/usr/bin/env bash
# Issue 16, 2-CTA clusters with TMA multicast (hgemm/bgemm/fp8gemm-sm90-cluster) and the
# elect.sync producer, and the RS wgmma tiles, in one device call (about 7 minutes on an H100):
#   gpu.txt    the card, driver and clock
#   check.txt  at the default sizes (1, 17, 127, 1000, 1024, 4096, 300x17x1000, 64x1000x127,
#              beta 0 and 0.5): hgemm-sm90-cluster in all four layouts, bgemm-sm90-cluster and
#              hgemm-sm90 in TN and TT, fp8gemm-sm90(-cluster) and bgemm-sm90 in TN; 8192³ of the
#              clustered hgemm and bgemm in TN; fresh random operands, C poisoned, float64
#   san.txt    compute-sanitizer memcheck (TN, TT; ragged: 3 M-blocks, a CTA past C),
#              synccheck and racecheck
#   tile.txt   examples/wgmma_tile (when its binary is beside CUTE): SS and RS (A from
#              registers) wgmma tiles on fresh random values against float64
#   bench.txt  cute bench (cuBLAS of the same types in the same process, events, warm-up,
#              median): each clustered kernel beside its one-CTA persistent kernel, same call,
#              at 4096³ and 8192³ (TN, NN), 8192x8192x1024 and 2048³ (TN); with BASE (an
#              earlier build) its hgemm/bgemm-sm90 too, for the A/B of everything else that
#              changed (the elect.sync producer)
# usage: tools/gpu/sm90_cluster.sh CUTE [BASE]   (writes under $OUT)
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=/tmp/cutecache
CUTE=$1
BASE=${2:-}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
L="--layout NN --layout NT --layout TN --layout TT"
SIZES=("4096 4096 4096" "8192 8192 8192" "8192 8192 1024" "2048 2048 2048")
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; } > $OUT/gpu.txt 2>&1
cat $OUT/gpu.txt
TILE=$(dirname $CUTE)/wgmma_tile
if [ -x $TILE ]; then timeout 60 $TILE > $OUT/tile.txt 2>&1; echo "wgmma_tile rc=$?"; cat $OUT/tile.txt; fi
timeout 120 $CUTE check hgemm-sm90-cluster $L > $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 90 $CUTE check bgemm-sm90-cluster hgemm-sm90 --layout TN --layout TT >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 60 $CUTE check fp8gemm-sm90-cluster fp8gemm-sm90 bgemm-sm90 --layout TN >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 60 $CUTE check hgemm-sm90-cluster bgemm-sm90-cluster --layout TN --m 8192 --n 8192 --k 8192 >> $OUT/check.txt 2>&1; tail -1 $OUT/check.txt
timeout 80 $SAN --tool memcheck --error-exitcode 3 $CUTE check hgemm-sm90-cluster --layout TN --layout TT --m 300 --n 17 --k 1000 > $OUT/san.txt 2>&1; echo "memcheck rc=$?"
timeout 50 $SAN --tool synccheck --error-exitcode 3 $CUTE check hgemm-sm90-cluster hgemm-sm90 --layout TN --m 1000 --n 1000 --k 65 >> $OUT/san.txt 2>&1; echo "synccheck rc=$?"
timeout 60 $SAN --tool racecheck --error-exitcode 3 $CUTE check hgemm-sm90-cluster --layout TN --m 300 --n 300 --k 200 >> $OUT/san.txt 2>&1; echo "racecheck rc=$?"
grep SUMMARY $OUT/san.txt
for s in "${SIZES[@]}"; do
  set -- $s
  if [ "$3" = 8192 ] || [ "$1" = 4096 ]; then LL="--layout TN --layout NN"; else LL="--layout TN"; fi
  [ -n "$BASE" ] && { echo "## base" >> $OUT/bench.txt; timeout 40 $BASE bench hgemm-sm90 bgemm-sm90 $LL --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1; }
  echo "## this build" >> $OUT/bench.txt
  timeout 70 $CUTE bench hgemm-sm90 hgemm-sm90-cluster bgemm-sm90 bgemm-sm90-cluster $LL --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
  timeout 40 $CUTE bench fp8gemm-sm90 fp8gemm-sm90-cluster --layout TN --m $1 --n $2 --k $3 >> $OUT/bench.txt 2>&1
done
grep -E "^##|\|" $OUT/bench.txt | grep -v "^| kernel\|---"
