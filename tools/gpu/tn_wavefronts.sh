#!/usr/bin/env bash
# Checks the wavefront model of docs/performance.md ("K-major operands through registers"):
# ncu's counts of the L1/shared pipe's wavefronts, LSU instructions and FMA-pipe activity for
# one launch of the 256x128 SIMT tile at 4096^3 in NT (128-bit cp.async) and TN (32-bit
# cp.async), and the 128x128 tile in both. About a minute; written 2026-12-08, not yet run.
#   wavefronts.txt   ncu's metrics (falling back to its compute and memory sections when a
#                    metric name is not known to this ncu)
# Usage (repository root, a release build carried): tools/gpu/tn_wavefronts.sh [cute]
source "$(dirname "$0")/setup.sh" "$@"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
METRICS=l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
{
  for k in sgemm-sm80-256x128 sgemm-sm80; do
    for l in NT TN; do
      echo "## $k $l 4096^3"
      # the first launch of the kernel (cute run verifies, then times)
      timeout 120 "$NCU" --clock-control none --launch-count 1 --kernel-name "regex:sgemm_sm80" \
        --metrics "$METRICS" "$CUTE" run "$k" --layout "$l" --m 4096 --n 4096 --k 4096 2>&1 \
        | grep -E "^\s+(l1tex|sm__|smsp__|gpu__)|==ERROR==" \
        || timeout 120 "$NCU" --clock-control none --launch-count 1 --kernel-name "regex:sgemm_sm80" \
          --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis "$CUTE" run "$k" \
          --layout "$l" --m 4096 --n 4096 --k 4096 2>&1 | grep -vE "^\s*$" | tail -40
    done
  done
} > "$OUT/wavefronts.txt" 2>&1
grep -cE "l1tex|Section" "$OUT/wavefronts.txt"
date -u
