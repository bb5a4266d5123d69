#!/bin/sh
# bench_sweep.sh — configurations per minute for the default sweep, with the steady-state model and
# with the event simulation (1,000 requests per point). A benchmark: it prints figures and never
# fails on them. Usage: tests/bench_sweep.sh [AIFSIM] [JOBS] [SCENARIO]
set -eu
AIFSIM=${1:-./aifsim}
JOBS=${2:-$(nproc)}
SCENARIO=${3:-$(dirname "$0")/../scenarios/default.yaml}
out=$(mktemp -d "${TMPDIR:-/tmp}/aifsim-bench-XXXXXX")
trap 'rm -rf "$out"' EXIT
# the same sweep, simulated event by event
sed -e 's/^  parallelism: auto$/  parallelism: auto\n  engine: des/' \
    -e 's/^  arrival:$/  requests: 1000\n  arrival:/' "$SCENARIO" >"$out/des.yaml"
for engine in steady des; do
  scenario=$SCENARIO
  [ "$engine" = des ] && scenario=$out/des.yaml
  start=$(date +%s.%N)
  "$AIFSIM" run "$scenario" -j "$JOBS" -o "$out/$engine" >/dev/null
  end=$(date +%s.%N)
  points=$(($(wc -l <"$out/$engine/results.csv") - 1))
  ok=$(grep -c ',ok,' "$out/$engine/results.csv" || true)
  awk -v p="$points" -v ok="$ok" -v s="$start" -v e="$end" -v j="$JOBS" -v eng="$engine" 'BEGIN {
    t = e - s
    printf "%-6s default sweep: %d configurations (%d simulated, %d pruned) in %.2f s with %d workers: ", eng, p, ok, p - ok, t, j
    printf "%.0f configurations per minute (%.0f simulated per minute)\n", p / t * 60, ok / t * 60
  }'
done
