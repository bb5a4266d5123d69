#!/bin/sh
# held-out.sh — the model's error on measured rows the fit never saw, the headline figure
# (docs/validation.md, "Held out").
#
# The measured file is split in two by row id, twice (ids are hashes): split 1 by the id's first
# character (halfA 0-7, halfB 8-f), split 2 by its second (halfC 0-7, halfD 8-f). Each half has a
# profile fitted on it alone (calibration/profiles/held-out/: split1 on halfA, split1-reverse on
# halfB, split2 on halfC, split2-reverse on halfD), which predicts the other half. With --refit
# each half's profile is first refitted on its half from the shipped one (the protocol of a round:
# docs/validation.md). Prints, per half, the rows predicted and the median errors (throughput per
# GPU, tokens/s per user, TTFT, and the first two pooled), then the means over the four halves.
#
#   calibration/held-out.sh [-a AIFSIM] [-o DIR] [-e des|steady] [-r ROUNDS -s STARTS [-j N] [-H KEYS] [-S des]]
#                           [-t TABLE.csv] [-c CONTROL] [MEASURED.csv]
#
# -H KEYS holds those stack-layer keys in the refits, as `aifsim fit --hold` does; -S des picks each
# refit's start by the event simulation's loss, as `aifsim fit --select des` does.
# After the means over the halves it prints, per system and mode, the rows and the mean over the
# four halves of the pooled and the TTFT median errors. -t TABLE.csv writes the same per system and
# mode, and per system, mode and model and per GPU architecture, mode and model: the measured rows
# and the mean over the four halves of each metric's median error, and of the pooled one
# (fractions; empty where no half has the metric): the table `run` and `plan` quote beside each
# pick, the nearest evidence for its model first (sim/held_out.h; calibration/profiles/held-out/
# errors.csv is the shipped profile's).
# -c CONTROL runs the same protocol again with the aifsim CONTROL (a build of the code before a
# change) into DIR/control and prints its means last: a change is judged against that control, not
# against the shipped figures, because refitting the shipped halves drifts on its own (the same
# code refitted from them moved 7.70% / 15.95% to 7.88% / 15.57%: docs/validation.md).
#
# Exit status: 0 done, 1 an aifsim run failed, 2 bad usage.
set -u
here=$(dirname "$0")
aifsim=${AIFSIM:-./aifsim}
dir=""
engine=des
rounds=0
starts=1
jobs=1
hold=""
select=""
table=""
control=""

usage() {
  echo "usage: $0 [-a AIFSIM] [-o DIR] [-e des|steady] [-r ROUNDS -s STARTS [-j N] [-H KEYS] [-S des]] [-t TABLE.csv] [-c CONTROL] [MEASURED.csv]" >&2
  exit 2
}
whole() { case $1 in '' | *[!0-9]*) usage ;; esac; }

while getopts a:o:e:r:s:j:H:S:t:c:h opt; do
  case $opt in
  a) aifsim=$OPTARG ;;
  o) dir=$OPTARG ;;
  e) case $OPTARG in des | steady) engine=$OPTARG ;; *) usage ;; esac ;;
  r) whole "$OPTARG"; rounds=$OPTARG ;;
  s) whole "$OPTARG"; starts=$OPTARG ;;
  j) whole "$OPTARG"; jobs=$OPTARG ;;
  H) hold=$OPTARG ;;
  S) case $OPTARG in des | steady) select=$OPTARG ;; *) usage ;; esac ;;
  t) table=$OPTARG ;;
  c) control=$OPTARG ;;
  *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
measured=${1:-$here/measured/measured-dev.csv}
[ -r "$measured" ] || { echo "$0: cannot read $measured" >&2; exit 2; }
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/aifsim-held-out-XXXXXX") || exit 1
else
  mkdir -p "$dir" || exit 1
fi

# The four halves, each with the file's header. Ids are the first column and hold no commas.
awk -v d="$dir" 'NR == 1 { for (h = 0; h < 4; h++) print > (d "/half" substr("ABCD", h + 1, 1) ".csv"); next }
  { print > (d "/half" (substr($0, 1, 1) ~ /[0-7]/ ? "A" : "B") ".csv")
    print > (d "/half" (substr($0, 2, 1) ~ /[0-7]/ ? "C" : "D") ".csv") }' "$measured" || exit 1

printf '%-16s %-7s %5s %11s %9s %7s %7s\n' "profile" "fit->on" "rows" "throughput" "per-user" "TTFT" "pooled"
sum_pooled=0
sum_ttft=0
for run in "split1 A B" "split1-reverse B A" "split2 C D" "split2-reverse D C"; do
  set -- $run
  name=$1 train=$2 test=$3
  profile=$here/profiles/held-out/$name.yaml
  if [ "$rounds" -gt 0 ]; then
    "$aifsim" fit "$dir/half$train.csv" -p "$profile" -o "$dir/$name.yaml" --rounds "$rounds" \
      --starts "$starts" -j "$jobs" ${hold:+-H "$hold"} ${select:+--select "$select"} -q >"$dir/$name.fit.txt" 2>&1 ||
      { cat "$dir/$name.fit.txt" >&2; exit 1; }
    profile=$dir/$name.yaml
  fi
  "$aifsim" validate "$dir/half$test.csv" -p "$profile" -e "$engine" -q -o "$dir/$name.predictions.csv" \
    -g "$dir/$name.groups.csv" >"$dir/$name.txt" 2>&1 || { cat "$dir/$name.txt" >&2; exit 1; }
  # the summary's 'all' line: rows, then per metric n, median, p90; and the pooled median
  line=$(awk '$1 == "all" { print $2, $7, $10, $13 }' "$dir/$name.txt")
  pooled=$(sed -n 's/^pooled: .* median \([0-9.]*\)% over.*/\1/p' "$dir/$name.txt")
  [ -n "$line" ] && [ -n "$pooled" ] || { echo "$0: no summary in $dir/$name.txt" >&2; exit 1; }
  set -- $line
  printf '%-16s %-7s %5s %11s %9s %7s %6s%%\n' "$name" "$train->$test" "$1" "$2" "$3" "$4" "$pooled"
  sum_pooled=$(echo "$sum_pooled $pooled" | awk '{ print $1 + $2 }')
  sum_ttft=$(echo "$sum_ttft $4" | awk '{ sub("%", "", $2); print $1 + $2 }')
done
echo "$sum_pooled $sum_ttft" | awk '{ printf "mean over the four halves: pooled %.2f%%, TTFT %.2f%%\n", $1 / 4, $2 / 4 }'
# Per system and mode, and by model: each row is in one half of each split, so the four halves hold
# it twice. Groups' columns (aifsim validate --groups): 1 field, 2 value, 3 rows, then n, median, p90
# of throughput per GPU (6-8), tokens/s per user (9-11), TTFT (12-14), ..., and the pooled figures'
# n and median (21-22). Each error is the mean over the halves that have it of their medians. The
# table's lines (columns system, arch, mode, model, rows, the four errors): a system and mode over
# every model (model empty), a system, mode and model, and an architecture, mode and model over its
# systems (system empty); system+arch gives each system's GPU architecture.
awk -F, 'FNR == 1 { next }
  $1 == "system+arch" { split($2, sa, "/"); arch[sa[1]] = sa[2]; next }
  $1 == "system+mode" || $1 == "system+mode+model" || $1 == "arch+mode+model" {
    k = $1 "|" $2; rows[k] += $3
    for (m = 0; m < 3; m++) if ($(6 + 3 * m) > 0) { sum[k, m] += $(7 + 3 * m); n[k, m]++ }
    if ($21 > 0) { sum[k, 3] += $22; n[k, 3]++ }
  }
  function long_mode(m) { return m == "agg" ? "aggregated" : m == "disagg" ? "disaggregated" : m }
  END {
    for (k in rows) {
      split(k, fv, "|"); split(fv[2], v, "/")
      if (fv[1] == "system+mode") line = v[1] "," arch[v[1]] "," long_mode(v[2]) ","
      else if (fv[1] == "system+mode+model") line = v[1] "," arch[v[1]] "," long_mode(v[2]) "," v[3]
      else line = "," v[1] "," long_mode(v[2]) "," v[3]
      line = line "," rows[k] / 2
      for (m = 0; m < 4; m++) line = line "," (n[k, m] ? sprintf("%.4f", sum[k, m] / n[k, m]) : "")
      print line
    }
  }' "$dir"/split1.groups.csv "$dir"/split1-reverse.groups.csv "$dir"/split2.groups.csv \
  "$dir"/split2-reverse.groups.csv | LC_ALL=C sort >"$dir/by-model.csv" || exit 1
# the system-and-mode lines over every model, as the summary below prints them
awk -F, '$1 != "" && $4 == "" { print $1 "," $3 "," $5 "," $6 "," $7 "," $8 "," $9 }' "$dir/by-model.csv" \
  >"$dir/per-system.csv" || exit 1
echo "per system and mode (means over the halves of their medians):"
awk -F, 'BEGIN { printf "%-32s %5s %7s %7s\n", "system, mode", "rows", "pooled", "TTFT" }
  function pct(x) { return x == "" ? "-" : sprintf("%.1f%%", 100 * x) }
  { printf "%-32s %5s %7s %7s\n", $1 ", " $2, $3, pct($7), pct($6) }' "$dir/per-system.csv"
if [ -n "$table" ]; then
  { echo "system,arch,mode,model,rows,out_tok_s_per_gpu,tok_s_per_user,ttft_ms,pooled"
    cat "$dir/by-model.csv"; } >"$table.tmp" && mv "$table.tmp" "$table" || exit 1
  echo "table: $table"
fi
if [ -n "$control" ]; then
  sh "$0" -a "$control" -o "$dir/control" -e "$engine" -r "$rounds" -s "$starts" -j "$jobs" ${hold:+-H "$hold"} \
    ${select:+-S "$select"} "$measured" >"$dir/control.txt" 2>&1 || { cat "$dir/control.txt" >&2; exit 1; }
  means=$(sed -n 's/^mean over the four halves: //p' "$dir/control.txt")
  [ -n "$means" ] || { echo "$0: no means in $dir/control.txt" >&2; exit 1; }
  echo "control (the same protocol by $control): $means"
fi
echo "files: $dir"
