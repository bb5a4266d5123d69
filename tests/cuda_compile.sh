#!/bin/sh
# cuda_compile.sh — compiles every CUDA source in calibration/ with the nvcc configure found
# (skipped, exit 77, when there is none): the kernels must build wherever nvcc exists, even on a
# machine without a GPU, so that `aifsim calibrate` works where one is.
[ -n "$NVCC" ] || { echo "no nvcc: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
for f in "${AIF_SRCDIR:-.}"/calibration/*.cu; do
  "$NVCC" -O2 -gencode arch=compute_90,code=sm_90 -o "$tmp/a.out" "$f" -lcublas -lcublasLt -ldl ${NCCL_FLAGS:-} || { echo "FAIL: $f"; exit 1; }
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no CUDA sources"; exit 1; }
echo "cuda: compiled $n CUDA sources"
