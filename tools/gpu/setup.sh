# Sourced by the one-call GPU scripts (suite.sh, followup.sh): the binary and examples folder
# (arguments 1 and 2, a release build by default), $OUT, the CUDA libraries, a fresh cache folder
# (so tunes start from no tuning cache), compute-sanitizer as $SAN, and $OUT/device.txt.
set -uo pipefail
CUTE=${1:-target/release/cute}
EX=${2:-target/release/examples}
OUT=${OUT:-reports/gpu}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUTE_CACHE_DIR=${CUTE_CACHE_DIR:-$(mktemp -d)}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; } > "$OUT/device.txt"
