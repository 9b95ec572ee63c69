#!/usr/bin/env bash
# The SM90 GEMM's 128x128 tile (bgemm-/hgemm-sm90-128x128) on the GPU, in one call (about 5
# minutes; every step bounded):
#   checks.txt  compute-sanitizer memcheck (TN, ragged) and racecheck (NT: an N-major B) of
#               bgemm-sm90-128x128; cute check of both 128x128 kernels in every layout
#   bench.txt   bgemm-sm90 (128x256) and bgemm-sm90-128x128 beside cuBLAS at the BF16 suite's
#               shapes where the 128x256 tiles leave SMs idle (256³ to 2048³, M = 64 and 128
#               against 4096² and 8192², 64x1000x127)
#   tune.txt    cute tune bgemm (TN) at 1024³, 512³, 128 x 4096² and 128 x 8192² (the SM80
#               candidates and the selector's pick, for comparison)
# Usage (from the repository root, a release build carried): tools/gpu/sm90_square.sh [cute]
source "$(dirname "$0")/setup.sh" "$@"
{
  timeout 60 "$SAN" --tool memcheck "$CUTE" run bgemm-sm90-128x128 --layout TN --m 300 --n 170 --k 1000
  timeout 60 "$SAN" --tool racecheck "$CUTE" run bgemm-sm90-128x128 --layout NT --m 130 --n 267 --k 333
  timeout 90 "$CUTE" check bgemm-sm90-128x128 hgemm-sm90-128x128
} > "$OUT/checks.txt" 2>&1
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|error|passed" "$OUT/checks.txt" | sort | uniq -c
{
  for mnk in "256 256 256" "512 512 512" "1024 1024 1024" "2048 2048 2048" "64 4096 4096" \
    "128 4096 4096" "64 8192 8192" "128 8192 8192" "64 1000 127" "4096 4096 4096"; do
    set -- $mnk
    timeout 40 "$CUTE" bench bgemm-sm90 bgemm-sm90-128x128 --layout TN --m "$1" --n "$2" --k "$3" | grep -E "^\| [bh]gemm"
  done
} > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
{
  for mnk in "1024 1024 1024" "512 512 512" "128 4096 4096" "128 8192 8192"; do
    set -- $mnk
    timeout 60 "$CUTE" tune bgemm --layout TN --m "$1" --n "$2" --k "$3"; echo "rc=$?"
  done
} > "$OUT/tune.txt" 2>&1
grep -E "^best|rc=" "$OUT/tune.txt"
date -u
