#!/bin/sh
# bench_sweep.sh — the default run's time by the event simulation (the default engine) against the
# steady-state model (--engine steady), peak memory, and event-simulated configurations per minute;
# then the same with one worker, for -j's speed-up. A benchmark: it prints figures and never fails
# on them. Usage: tests/bench_sweep.sh [AIFSIM] [JOBS] [SCENARIO]
set -eu
AIFSIM=${1:-./aifsim}
JOBS=${2:-$(nproc)}
SCENARIO=${3:-$(dirname "$0")/../scenarios/default.yaml}
out=$(mktemp -d "${TMPDIR:-/tmp}/aifsim-bench-XXXXXX")
trap 'rm -rf "$out"' EXIT
for jobs in "$JOBS" 1; do
  for engine in steady des; do
    dir=$out/$engine-$jobs
    start=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$out/mem" "$AIFSIM" run "$SCENARIO" -e "$engine" -j "$jobs" -o "$dir" >/dev/null
    end=$(date +%s.%N)
    points=$(($(wc -l <"$dir/results.csv") - 1))
    # rows the method itself computed (infeasible points stop at the memory check; queue-bound
    # ones take the steady state's figures: see evaluate.c)
    simulated=$(python3 -c 'import csv, sys
print(sum(r["engine"] == sys.argv[2] and r["status"] not in ("infeasible", "unsupported")
          for r in csv.DictReader(open(sys.argv[1]))))' "$dir/results.csv" "$engine")
    awk -v p="$points" -v n="$simulated" -v s="$start" -v e="$end" -v j="$jobs" -v eng="$engine" -v kb="$(cat "$out/mem")" 'BEGIN {
      t = e - s
      printf "%-6s -j %d: %d configurations (%d by %s) in %.2f s, peak %.0f MB: %.0f configurations per minute (%.0f by %s per minute)\n",
             eng, j, p, n, eng, t, kb / 1024, p / t * 60, n / t * 60, eng
    }'
    echo "$start $end" >"$out/t-$engine-$jobs"
  done
  awk -v j="$jobs" '{ t[NR] = $2 - $1 } END { printf "       -j %d: the event simulation takes %.1fx the steady state'"'"'s time\n", j, t[2] / t[1] }' \
    "$out/t-steady-$jobs" "$out/t-des-$jobs"
done
awk '{ t[FILENAME] = $2 - $1 } END { for (f in t) if (f ~ /des-1$/) one = t[f]; else if (f ~ /des-/) many = t[f]
     printf "       des: -j '"$JOBS"' runs %.2fx faster than -j 1\n", one / many }' "$out"/t-des-*
