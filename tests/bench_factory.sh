#!/bin/sh
# bench_factory.sh — the factory simulation's speed: one simulated hour of scenarios/factory-day.yaml
# at its busiest (34,000 req/s into a 100 MW GB200 floor: 1.2 x 10^8 requests an hour, 64 of its
# 5,382 engines simulated in full), the whole simulated day, and the day of scenarios/factory-models.yaml
# (three models sharing a 30 MW floor, GPUs moving between them: its first point); wall time, events
# and requests simulated, events per second, peak memory. A benchmark: it prints figures and never
# fails on them. Usage: tests/bench_factory.sh [AIFSIM]
set -eu
AIFSIM=${1:-./aifsim}
SCENARIOS=$(dirname "$0")/../scenarios
out=$(mktemp -d "${TMPDIR:-/tmp}/aifsim-bench-XXXXXX")
trap 'rm -rf "$out"' EXIT
# the busiest hour: the day's scenario at its peak rate, for an hour
sed -e 's/^  duration: 24 h/  duration: 1 h/' -e '/^    curve:/d' -e '/^    period:/d' -e 's/^name: factory-day/name: factory-hour/' \
  "$SCENARIOS/factory-day.yaml" >"$out/factory-hour.yaml"
# the shared floor with its autoscaler on (the scenario's second point keeps the shares fixed)
sed -e 's/^  autoscale: {enabled: \[true, false\]/  autoscale: {enabled: true/' "$SCENARIOS/factory-models.yaml" >"$out/factory-models.yaml"
for run in factory-hour:"$out/factory-hour.yaml" factory-day:"$SCENARIOS/factory-day.yaml" \
  factory-models:"$out/factory-models.yaml"; do
  name=${run%%:*} file=${run#*:}
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$out/mem" "$AIFSIM" run "$file" -j 1 -q -o "$out/$name" >/dev/null
  end=$(date +%s.%N)
  python3 - "$out/$name/results.csv" "$start" "$end" "$(cat "$out/mem")" "$name" <<'ZZPY'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
t = float(sys.argv[3]) - float(sys.argv[2])
events, reqs = float(row["sim_events"]), float(row["sim_requests"])
scale = float(row["floor_engines"]) / float(row["simulated_engines"])
print(f"{sys.argv[5]}: {t:.1f} s wall, peak {float(sys.argv[4]) / 1024:.0f} MB; {reqs:.3g} requests simulated "
      f"standing for {reqs * scale:.3g} on the floor ({row['simulated_engines']} of {row['floor_engines']} engines); "
      f"{events:.3g} events, {events / t:.3g} events/s")
ZZPY
done
