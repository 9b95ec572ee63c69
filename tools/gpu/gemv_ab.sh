#!/usr/bin/env bash
# The GEMVs with B K-major (NN, TN): as on main against a second build (the first argument after
# the main binary), alternating twice, each beside cuBLAS of the same dtype; M = 1 and 4 against
# 4096² and 8192², FP32 and BF16, every layout (NT/TT as controls). About 2 minutes.
#   gemv_ab.txt
# Usage (repository root, both release builds carried): tools/gpu/gemv_ab.sh A B
set -uo pipefail
A=$1 B=$2
OUT=${OUT:-reports/gpu}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=${CUTE_CACHE_DIR:-$(mktemp -d)}
L="--layout NN --layout NT --layout TN --layout TT"
for round in 1 2; do
  for bin in "$A" "$B"; do
    for mnk in "1 4096" "4 4096" "1 8192"; do
      set -- $mnk
      # one dtype a bench: cute refuses kernels of two types in one
      for k in sgemm-gemv bgemm-gemv; do
        echo "## $bin $round $k M=$1 N=K=$2"
        timeout 40 "$bin" bench $k $L --m "$1" --n "$2" --k "$2" 2>&1 | grep -E "^\| |rror"
      done
    done
  done
done > "$OUT/gemv_ab.txt"
grep -c "gemv |" "$OUT/gemv_ab.txt"
