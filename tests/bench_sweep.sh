#!/bin/sh
# bench_sweep.sh — configurations per minute for the default sweep (a benchmark: it prints
# figures and never fails on them). Usage: tests/bench_sweep.sh [AIFSIM] [JOBS]
set -eu
AIFSIM=${1:-./aifsim}
JOBS=${2:-$(nproc)}
out=$(mktemp -d "${TMPDIR:-/tmp}/aifsim-bench-XXXXXX")
trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
"$AIFSIM" run -j "$JOBS" -o "$out" >/dev/null
end=$(date +%s.%N)
points=$(($(wc -l <"$out/results.csv") - 1))
ok=$(grep -c ',ok,' "$out/results.csv" || true)
awk -v p="$points" -v ok="$ok" -v s="$start" -v e="$end" -v j="$JOBS" 'BEGIN {
  t = e - s
  printf "default sweep: %d configurations (%d simulated, %d pruned) in %.2f s with %d workers\n", p, ok, p - ok, t, j
  printf "%.0f configurations per minute (%.0f simulated per minute)\n", p / t * 60, ok / t * 60
}'
