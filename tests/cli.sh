#!/bin/sh
# cli.sh — end-to-end tests of the aifsim command line: exit codes, error messages, the default run,
# byte-identical reruns, atomic outputs. Run by `make check` with AIFSIM and AIF_SRCDIR set.
set -u
AIFSIM=${AIFSIM:-./aifsim}
SRC=${AIF_SRCDIR:-.}
out=$(mktemp -d "${TMPDIR:-/tmp}/aifsim-cli-XXXXXX")
trap 'rm -rf "$out"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# col FILE NAME: column NAME of a results CSV, a value per line (columns by name: reasons hold commas)
col() { python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])): print(r[sys.argv[2]])' "$1" "$2"; }

# expect_rc RC DESCRIPTION CMD...: the command exits with RC
expect_rc() {
  want=$1; what=$2; shift 2
  "$@" >"$out/stdout" 2>"$out/stderr"; rc=$?
  if [ "$rc" -eq "$want" ]; then ok; else fail "$what: exit $rc, want $want"; cat "$out/stderr"; fi
}
# expect_err TEXT DESCRIPTION: the last command's stderr contains TEXT
expect_err() {
  if grep -qF -- "$1" "$out/stderr"; then ok; else fail "$2: stderr lacks '$1'"; cat "$out/stderr"; fi
}

expect_rc 0 "--version" "$AIFSIM" --version
grep -q '^aifsim [0-9]' "$out/stdout" && ok || fail "--version prints the version"
expect_rc 0 "--help" "$AIFSIM" --help
grep -q 'run' "$out/stdout" && ok || fail "--help lists the commands"
expect_rc 2 "no command" "$AIFSIM"
expect_rc 2 "unknown command" "$AIFSIM" frobnicate
expect_err "unknown command 'frobnicate'" "unknown command named"
expect_rc 2 "unknown option" "$AIFSIM" --frobnicate
expect_rc 2 "unknown run option" "$AIFSIM" run --frobnicate
expect_err "Unknown option --frobnicate" "unknown run option named"
expect_rc 0 "run --help" "$AIFSIM" run --help
expect_rc 0 "help keys" "$AIFSIM" help keys
grep -q 'serving.aggregated.tp' "$out/stdout" && ok || fail "help keys lists serving.aggregated.tp"

# catalog
expect_rc 0 "catalog systems" "$AIFSIM" catalog systems
[ "$(grep -c -E '^(h100-sxm-hgx8|h200-sxm-hgx8|b200-hgx8|b300-hgx8|gb200-nvl72|gb300-nvl72|vr200-nvl144|rubin-ultra-nvl576) ' "$out/stdout")" -eq 8 ] && ok || fail "catalog systems lists the 8 systems"
expect_rc 0 "catalog models" "$AIFSIM" catalog models
expect_rc 0 "catalog show" "$AIFSIM" catalog show gb200-nvl72
grep -q 'gpu.hbm_bandwidth .*8 TB/s' "$out/stdout" && ok || fail "catalog show gives figures"
grep -q 'source: ' "$out/stdout" && ok || fail "catalog show gives sources"
expect_rc 2 "catalog show unknown" "$AIFSIM" catalog show nope
expect_rc 2 "catalog bad verb" "$AIFSIM" catalog list

# bad input: file:line:col and exit 2, nothing written
printf 'name: t\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\nserving:\n  aggregated:\n    tensor_paralel: 8\n' >"$out/bad.yaml"
expect_rc 2 "bad scenario" "$AIFSIM" run "$out/bad.yaml" -o "$out/bad"
expect_err "$out/bad.yaml:6:5: unknown key 'tensor_paralel' in 'serving.aggregated'" "bad scenario message"
[ ! -e "$out/bad" ] && ok || fail "a bad scenario writes nothing"
expect_rc 2 "missing scenario file" "$AIFSIM" run "$out/none.yaml"
expect_err "$out/none.yaml: cannot read" "missing file message"
expect_rc 2 "bad catalog folder" "$AIFSIM" run --catalog "$out/nowhere"

# the default scenario, twice: same bytes
expect_rc 0 "run default" "$AIFSIM" run -o "$out/a"
head -1 "$out/a/results.csv" >"$out/header"
for col in point system model config tok_s_per_user out_tok_s_per_gpu tok_s_per_mw ttft_p50_ms tpot_p50_ms on_frontier; do
  tr ',' '\n' <"$out/header" | grep -qx "$col" && ok || fail "results.csv has column $col"
done
# 3 systems x 13 concurrencies x 2 precisions x 7 TP x 7 EP x 2 attention-DP (parallelism: auto)
# 3 systems x 2 precisions x 13 user counts x 55 layouts: TP 1..64 (7 values) with EP <= TP (28
# pairs), attention-DP on or off except over one GPU (27 x 2 + 1 = 55) = 4,290
[ "$(wc -l <"$out/a/results.csv")" -eq 4291 ] && ok || fail "default scenario gives 4290 rows"
[ "$(wc -l <"$out/a/results.jsonl")" -eq 4290 ] && ok || fail "results.jsonl has 4290 lines"
[ -s "$out/a/chart.png" ] && [ -s "$out/a/chart.gp" ] && [ -s "$out/a/chart.dat" ] && ok || fail "a sweep writes chart.png, chart.gp and chart.dat"
[ ! -e "$out/a/results.partial.csv" ] && ok || fail "the journal is removed once results.csv is complete"
grep -q ',1$' "$out/a/results.csv" && ok || fail "some points are on the frontier"
[ -s "$out/a/scenario.resolved.yaml" ] && [ -s "$out/a/catalog/llm/deepseek-r1.yaml" ] && [ -s "$out/a/catalog/hardware/vr200-nvl144.yaml" ] && ok || fail "resolved scenario and catalog written"
ls -a "$out/a" | grep -q '\.[A-Z0-9]\{6\}$' && fail "temporary files left behind" || ok
expect_rc 0 "run default again" "$AIFSIM" run -o "$out/b"
cmp -s "$out/a/results.csv" "$out/b/results.csv" && cmp -s "$out/a/results.jsonl" "$out/b/results.jsonl" && ok || fail "same scenario + seed = same bytes"
expect_rc 0 "rerun from the resolved scenario" "$AIFSIM" run "$out/a/scenario.resolved.yaml" --catalog "$out/a/catalog" -o "$out/c"
cmp -s "$out/a/results.csv" "$out/c/results.csv" && ok || fail "the resolved scenario reproduces the results"
expect_rc 0 "run with --seed" "$AIFSIM" run "$SRC/scenarios/example-full.yaml" --seed 9 -o "$out/d"
grep -q '^seed: 9$' "$out/d/scenario.resolved.yaml" && ok || fail "--seed recorded in the resolved scenario"
expect_rc 2 "negative seed" "$AIFSIM" run --seed -3 -o "$out/e"

# the model fills the required columns of every ok point (columns by name: reasons may hold commas)
python3 - "$out/a/results.csv" <<'PY' && ok || fail "default run: points that ran have tok/s/user, tok/s/GPU, tok/s/MW, TTFT and TPOT"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ran = [r for r in rows if r["status"] in ("ok", "slo-violated", "queue-bound")]
assert sum(r["status"] == "ok" for r in rows) > 500
assert all(r["status"] in ("ok", "infeasible", "slo-violated", "queue-bound") for r in rows)
for r in ran:
    for c in ("tok_s_per_user", "out_tok_s_per_gpu", "tok_s_per_mw", "ttft_p50_ms", "tpot_p50_ms", "joules_per_token"):
        assert float(r[c]) > 0, (r["point"], c)
PY

# parallel workers, shards and resume give the same bytes as one process
expect_rc 0 "run -j 1" "$AIFSIM" run -j 1 -o "$out/j1"
cmp -s "$out/a/results.csv" "$out/j1/results.csv" && ok || fail "-j 1 and all cores give the same results"
expect_rc 0 "shard 1/3" "$AIFSIM" run --shard 1/3 -j 2 -o "$out/s1"
expect_rc 0 "shard 2/3" "$AIFSIM" run --shard 2/3 -j 2 -o "$out/s2"
expect_rc 0 "shard 3/3" "$AIFSIM" run --shard 3/3 -j 2 -o "$out/s3"
[ $(( $(wc -l <"$out/s1/results.csv") + $(wc -l <"$out/s2/results.csv") + $(wc -l <"$out/s3/results.csv") - 3 )) -eq 4290 ] && ok || fail "the shards split the points"
expect_rc 0 "merge the shards" "$AIFSIM" merge "$out/s1" "$out/s2" "$out/s3" -o "$out/m"
cmp -s "$out/a/results.csv" "$out/m/results.csv" && ok || fail "merged shards equal the full run"
expect_rc 2 "bad shard" "$AIFSIM" run --shard 4/3 -o "$out/bad-shard"
# an interrupted sweep: kill -9 once the journal holds 1000+ points, tear its last line as a full
# disk would, resume, get the same bytes
"$AIFSIM" run -j 1 -o "$out/r" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ "$(wc -l <"$out/r/results.partial.csv" 2>/dev/null || echo 0)" -gt 1000 ] && break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
[ -s "$out/r/results.partial.csv" ] && [ ! -e "$out/r/results.csv" ] && ok || fail "kill -9 leaves the journal and no results.csv"
printf '999999,h200-sxm-hg' >>"$out/r/results.partial.csv"
expect_rc 0 "resume" "$AIFSIM" run --resume -o "$out/r"
cmp -s "$out/a/results.csv" "$out/r/results.csv" && ok || fail "a resumed sweep gives the same results"
# a journal of another scenario (here: another seed) is refused, not mixed in
mkdir -p "$out/r2" && { echo "# aifsim journal 0000"; head -3001 "$out/a/results.csv"; } >"$out/r2/results.partial.csv"
expect_rc 2 "resume refuses another run's journal" "$AIFSIM" run --resume -o "$out/r2"
expect_err "journal of another run" "resume says whose journal it is"
# pareto and plot on a results file
cp "$out/a/results.csv" "$out/p.csv"
expect_rc 0 "pareto" "$AIFSIM" pareto "$out/p.csv"
cmp -s "$out/a/results.csv" "$out/p.pareto.csv" && ok || fail "pareto recomputes the same frontier"
cmp -s "$out/a/results.csv" "$out/p.csv" && ok || fail "pareto leaves its input as it was"
expect_rc 0 "pareto on a minimised cost" "$AIFSIM" pareto "$out/p.csv" -y usd_per_mtok -o "$out/cost.csv"
python3 - "$out/cost.csv" <<'PY' && ok || fail "a minimised axis: the frontier runs through the cheapest points"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
for system in {r["system"] for r in rows}:
    mine = [r for r in rows if r["system"] == system]
    cheapest = min(mine, key=lambda r: float(r["usd_per_mtok"]))
    dearest = max(mine, key=lambda r: float(r["usd_per_mtok"]))
    fastest = max(float(r["tok_s_per_user"]) for r in mine)
    assert any(r["on_frontier"] == "1" and float(r["usd_per_mtok"]) == float(cheapest["usd_per_mtok"]) for r in mine)
    assert dearest["on_frontier"] == "0" or float(dearest["tok_s_per_user"]) == fastest
PY
expect_rc 0 "pareto in place" "$AIFSIM" pareto "$out/cost.csv" --in-place
cmp -s "$out/a/results.csv" "$out/cost.csv" && ok || fail "pareto --in-place rewrites its input"
expect_rc 2 "pareto with a bad direction" "$AIFSIM" pareto "$out/p.csv" -y usd_per_mtok:least
expect_err "expected COLUMN, COLUMN:max or COLUMN:min" "pareto names the directions"
expect_rc 0 "plot svg" "$AIFSIM" plot "$out/a/results.csv" -o "$out/c.svg" --slo 50
grep -q '<svg' "$out/c.svg" && [ -s "$out/c.gp" ] && [ -s "$out/c.dat" ] && ok || fail "plot writes an SVG and its gnuplot twin"
expect_rc 0 "plot pdf" "$AIFSIM" plot "$out/a/results.csv" -o "$out/c.pdf"
head -c 4 "$out/c.pdf" | grep -q '%PDF' && ok || fail "plot writes a PDF"
expect_rc 2 "plot to an unknown format" "$AIFSIM" plot "$out/a/results.csv" -o "$out/c.bmp"
# GNU parallel across shards (skipped where parallel is not installed)
if command -v parallel >/dev/null 2>&1; then
  parallel --will-cite "$AIFSIM" run --shard {}/2 -j 1 -o "$out/gp{}" ::: 1 2 >/dev/null 2>&1
  "$AIFSIM" merge "$out/gp1" "$out/gp2" -o "$out/gpm" >/dev/null 2>&1
  cmp -s "$out/a/results.csv" "$out/gpm/results.csv" && ok || fail "GNU parallel shards merge to the full run"
else
  echo "SKIP: GNU parallel not installed: the shard run through parallel is not tested"
fi

# Hostile inputs (docs/hardening.md): nothing an input carries runs, nothing is written outside the
# output folder, and limits stop what would not end.
mkdir -p "$out/h"
cat >"$out/h/evil.yaml" <<'YAML'
name: "../../../evil'; system 'touch PWNED-name'; '"
description: "x'\n!touch PWNED-description\nset title 'y"
system: [h200-sxm-hgx8, b200-hgx8]
model: llama-3.1-8b
workload: {arrival: {users: [1, 16]}}
YAML
(cd "$out/h" && "$AIFSIM" run evil.yaml -j 1 >/dev/null 2>"$out/stderr"); rc=$?
[ $rc -eq 0 ] && ok || fail "a hostile scenario name runs: exit $rc"
evil="$out/h/results/evil___system__touch_PWNED-name____"
[ -s "$evil/results.csv" ] && [ "$(ls "$out/h/results")" = "$(basename "$evil")" ] &&
  [ -z "$(find "$out" -maxdepth 2 -name 'evil*' ! -path "$out/h/*")" ] && ok ||
  fail "a scenario name with ../ and quotes is one safe folder under results/: $(ls "$out/h/results")"
if command -v gnuplot >/dev/null 2>&1; then
  (cd "$evil" && gnuplot chart.gp >/dev/null 2>&1)
  [ -z "$(find "$out/h" -name 'PWNED*')" ] && [ -s "$evil/chart.gp.png" ] && ok ||
    fail "the gnuplot script runs nothing the scenario carried, and draws"
else
  echo "SKIP: gnuplot not installed: the generated script is not run"
fi
printf 'point,system,status,tok_s_per_user,tok_s_per_mw,on_frontier\n0,"a'"'"'\n!touch PWNED-system",ok,1,2,1\n1,b,ok,2,1,1\n' >"$out/h/evil.csv"
expect_rc 0 "plot a results file with a hostile system name" "$AIFSIM" plot "$out/h/evil.csv" -o "$out/h/evil.png"
if command -v gnuplot >/dev/null 2>&1; then
  (cd "$out/h" && gnuplot evil.gp >/dev/null 2>&1)
  [ -z "$(find "$out/h" -name 'PWNED*')" ] && ok || fail "a results file's system name runs nothing in the gnuplot script"
fi
# symlinks planted in an output folder are replaced or refused, never written through
mkdir -p "$out/h/o" && echo keep >"$out/h/target"
ln -s "$out/h/target" "$out/h/o/results.csv"; ln -s "$out/h/target" "$out/h/o/chart.png"
ln -s "$out/h/target" "$out/h/o/results.partial.csv"; ln -s "$out/h/target" "$out/h/o/chart.png.tmp"
"$AIFSIM" run "$SRC/scenarios/green-contexts.yaml" -o "$out/h/o" >/dev/null 2>&1
[ "$(cat "$out/h/target")" = keep ] && [ ! -L "$out/h/o/results.csv" ] && [ ! -L "$out/h/o/chart.png" ] && ok ||
  fail "links planted in the output folder are not written through"
mkdir -p "$out/h/elsewhere" "$out/h/o2" && ln -s "$out/h/elsewhere" "$out/h/o2/catalog"
expect_rc 1 "a catalog/ symlink in the output folder" "$AIFSIM" run "$SRC/scenarios/green-contexts.yaml" -o "$out/h/o2"
expect_err "a symlink, not a folder: refusing to write through it" "the run says why"
[ -z "$(ls "$out/h/elsewhere")" ] && ok || fail "nothing is written through a catalog/ symlink"
# one writer per folder: a second run into a folder another holds refuses at once
if command -v flock >/dev/null 2>&1; then
  mkdir -p "$out/h/busy"
  expect_rc 1 "a run into a folder another run holds" flock -n "$out/h/busy" "$AIFSIM" run "$SRC/scenarios/green-contexts.yaml" -o "$out/h/busy"
  expect_err "another aifsim is writing into this folder" "the run says the folder is busy"
fi
# limits: an endless input is refused at its limit, -j is clamped
AIFSIM_MAX_INPUT_BYTES=1048576 expect_rc 2 "/dev/zero as a scenario" "$AIFSIM" run /dev/zero -o "$out/h/z"
expect_err "larger than 1048576 bytes (raise the limit with AIFSIM_MAX_INPUT_BYTES)" "/dev/zero hits the input limit"
AIFSIM_MAX_INPUT_BYTES=1048576 expect_rc 2 "/dev/zero as measured results" "$AIFSIM" validate /dev/zero
expect_rc 0 "-j 100000" "$AIFSIM" run "$SRC/scenarios/green-contexts.yaml" -j 100000 -o "$out/h/j"
expect_err "more than 4 per core: using" "-j is clamped to 4 per core"
AIFSIM_MAX_REQUESTS=100 expect_rc 2 "a limit lowered through its variable" "$AIFSIM" run "$SRC/scenarios/planner-shift.yaml" -o "$out/h/l"
expect_err "(raise it with AIFSIM_MAX_REQUESTS=N)" "a limit names its variable"
# merge: shards that disagree are refused (this once freed rows twice), a missing shard is named
cp -r "$out/s1" "$out/h/s1b" && awk -F, -v OFS=, 'NR == 2 { $4 = "changed" } 1' "$out/s1/results.csv" >"$out/h/s1b/results.csv"
expect_rc 2 "merge shards that disagree on a point" "$AIFSIM" merge "$out/s1" "$out/h/s1b" -o "$out/h/m1"
expect_err "differs from the same point in another shard" "merge names the point"
expect_rc 2 "merge 2 of 3 shards" "$AIFSIM" merge "$out/s1" "$out/s2" -o "$out/h/m2"
expect_err "points are in no folder given" "merge says points are missing"
expect_rc 0 "merge 2 of 3 shards with --partial" "$AIFSIM" merge "$out/s1" "$out/s2" --partial -o "$out/h/m3"
# measured rows that describe no deployment are bad input at their line and column
sed '2s/,agg,8,8,0,/,agg,0,8,0,/' "$SRC/tests/fuzz/corpus/measured/agg-concurrency.csv" >"$out/h/tp0.csv"
grep -q ',agg,0,' "$out/h/tp0.csv" || sed -i '2s/,agg,[0-9]*,/,agg,0,/' "$out/h/tp0.csv"
expect_rc 2 "a measured row with TP 0" "$AIFSIM" validate "$out/h/tp0.csv"
expect_err "tp0.csv:2:12: column 'tp' expects a whole number from 1 to 65536, got '0'" "validate names the cell"
expect_rc 2 "calibrate --from runs that give no finite figure" "$AIFSIM" calibrate --from "$SRC/tests/fuzz/regress/calibration/overflowing-rates.csv" -o "$out/h/cal.yaml"
[ ! -e "$out/h/cal.yaml" ] && ok || fail "calibrate writes no profile from impossible runs"

# FP4 on Hopper: weight-only (W4A16) by default, infeasible with the switch off
cat >"$out/wo.yaml" <<'YAML'
name: wo
system: h200-sxm-hgx8
model: gpt-oss-120b
workload: {input: 1024, output: 1024, arrival: {kind: closed, users: 16}}
serving: {precision: fp4, aggregated: {tp: 1}}
YAML
expect_rc 0 "FP4 on H200" "$AIFSIM" run "$out/wo.yaml" -o "$out/wo"
[ "$(col "$out/wo/results.csv" config)$(col "$out/wo/results.csv" status)" = "agg 1x tp1 fp4 weight-only trtllm c16ok" ] && ok ||
  fail "FP4 on H200 runs weight-only"
sed 's/precision: fp4,/precision: fp4, weight_only: false,/' "$out/wo.yaml" >"$out/wo-off.yaml"
expect_rc 0 "FP4 on H200, weight-only off" "$AIFSIM" run "$out/wo-off.yaml" -o "$out/wo-off"
grep -q ',infeasible,h200-sxm-hgx8 has no fp4 tensor cores (weight-only serving is off),' "$out/wo-off/results.csv" && ok ||
  fail "with serving.weight_only false, FP4 on H200 is infeasible with its reason"

# validate: a measured file in, predictions and an error table out
cat >"$out/m.csv" <<'CSV'
id,source_kind,system,gpus,model,precision,isl,osl,concurrency,scenario,mode,tp,ep,dp_attention,prefill_workers,prefill_tp,prefill_ep,prefill_dp_attention,decode_workers,decode_tp,decode_ep,decode_dp_attention,prefill_gpus,decode_gpus,spec_decode,framework,out_tok_s_per_gpu,tok_s_per_user,tpot_ms,ttft_ms
r1,inferencex,h200-sxm-hgx8,8,deepseek-r1,fp8,1024,1024,16,concurrency,agg,8,8,0,,,,,,,,,,,none,trt,100,50,20,150
r2,inferencex,h100-sxm-hgx8,8,deepseek-r1,fp8,1024,1024,16,concurrency,agg,8,8,0,,,,,,,,,,,none,trt,100,50,20,150
CSV
expect_rc 0 "validate" "$AIFSIM" validate "$out/m.csv" -o "$out/pred.csv"
grep -q '^all ' "$out/stdout" && ok || fail "validate prints the error table"
grep -q '^r1,ok,,[0-9]' "$out/pred.csv" && ok || fail "validate predicts the H200 row"
grep -q '^r2,infeasible,"needs [0-9.]* GB per GPU for weights and reserve, has 85.5 GB"' "$out/pred.csv" && ok ||
  fail "DeepSeek-R1 FP8 on eight H100s is infeasible with its numbers"
grep -q '^r1,ok,,[0-9].*(des),[0-9][0-9.]*$' "$out/pred.csv" && ok || fail "validate event-simulates the concurrency row by default"
expect_rc 0 "validate by the steady state" "$AIFSIM" validate "$out/m.csv" --engine steady -o "$out/pred-steady.csv"
grep -q '^r1,ok,,[0-9]' "$out/pred-steady.csv" && ! grep -q '(des)' "$out/pred-steady.csv" && ok ||
  fail "validate --engine steady uses the steady-state model"
expect_rc 2 "validate with an unknown engine" "$AIFSIM" validate "$out/m.csv" --engine magic
expect_rc 0 "validate on SimGrid" "$AIFSIM" validate "$out/m.csv" --backend simgrid -o "$out/pred-sg.csv"
grep -q '^r1,ok,,[0-9].*(simgrid),[0-9][0-9.]*$' "$out/pred-sg.csv" && ok || fail "validate --backend simgrid simulates the concurrency row"
expect_rc 2 "validate steady on SimGrid" "$AIFSIM" validate "$out/m.csv" --backend simgrid --engine steady
# --explain ID: that row alone, its prediction the same as the table's, and its steps beside their floors
expect_rc 0 "validate --explain" "$AIFSIM" validate "$out/m.csv" --explain r1
grep -q '^r1: deepseek-r1 on h200-sxm-hgx8, trt, agg$' "$out/stdout" && ok || fail "--explain names the row"
grep -q "^  a decode step of one engine: 1[0-6] sequences (the prediction's mean) at " "$out/stdout" && ok ||
  fail "--explain times the row's decode step at the prediction's batch"
grep -q 'the step is [0-9.]*x its floor$' "$out/stdout" && ok || fail "--explain puts each step beside its floor"
explained=$(awk '/^throughput per GPU/ { print $(NF - 1) }' "$out/stdout")
tabled=$(awk -F, '$1 == "r1" { print $4 }' "$out/pred.csv")
awk -v a="$explained" -v b="$tabled" 'BEGIN { exit !(a > 0 && (a - b) / b < 1e-4 && (b - a) / b < 1e-4) }' && ok ||
  fail "--explain predicts the row as the table does ($explained against $tabled)"
expect_rc 0 "validate --explain an infeasible row" "$AIFSIM" validate "$out/m.csv" --explain r2
grep -q '^predicted infeasible: ' "$out/stdout" && ok || fail "--explain says an infeasible row is infeasible"
expect_rc 2 "validate --explain an unknown id" "$AIFSIM" validate "$out/m.csv" --explain r9
expect_err "--explain: no row with id 'r9' in" "--explain names the id it did not find"
expect_rc 0 "estimate --explain" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.3-70b --tp 8 --users 16 --explain
grep -q '^  batch ' "$out/stdout" && grep -q "^  a decode step of one engine: [0-9]* sequences (the prediction's mean) at " "$out/stdout" &&
  grep -q '^    [0-9]* prompt tokens a second a GPU at that step$' "$out/stdout" && ok ||
  fail "estimate --explain prints the table, then the point's steps"
expect_rc 2 "estimate --explain with --format json" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.3-70b --explain -f json
# the engines' MoE backend as simulated (serving.moe_backend): TP-sliced FP8 experts on GB200 in
# trtllm-gen's tiles by default, in DeepGEMM's when the key says so
expect_rc 0 "estimate --explain, FP8 experts sliced" "$AIFSIM" estimate --system gb200-nvl72 --model deepseek-r1 --precision fp8 --tp 8 --users 16 --explain
grep -q "^  engines: 1 x 8 GPUs, EP 1, attention tensor-parallel, experts in trtllm-gen's tiles, " "$out/stdout" && ok ||
  fail "estimate --explain says the sliced FP8 experts run in trtllm-gen's tiles"
expect_rc 0 "estimate --explain, DeepGEMM named" "$AIFSIM" estimate --system gb200-nvl72 --model deepseek-r1 --precision fp8 --tp 8 --users 16 --explain --set serving.moe_backend=deepgemm
grep -q "^  engines: 1 x 8 GPUs, EP 1, attention tensor-parallel, 0 MTP drafts" "$out/stdout" && ok ||
  fail "estimate --explain with serving.moe_backend deepgemm names no trtllm-gen tiles"

# calibration/held-out.sh: the measured file's two splits, each half predicted by the profile fitted
# on the other (by the steady state here, for speed): every row is predicted once per split, and
# split 1's line is what validate says of halfB with split1.yaml
ho="$SRC/calibration/held-out.sh"
expect_rc 0 "held-out.sh" sh "$ho" -a "$AIFSIM" -e steady -o "$out/held-out" -t "$out/held-out-errors.csv" -c "$AIFSIM"
cp "$out/stdout" "$out/held-out.txt"
rows=$(awk '/^split/ { n += $3 } END { print n }' "$out/held-out.txt")
total=$(($(wc -l <"$SRC/calibration/measured/measured-dev.csv") - 1))
[ "$rows" -eq $((2 * total)) ] && ok || fail "held-out.sh predicts every row once per split ($rows of $((2 * total)))"
"$AIFSIM" validate "$out/held-out/halfB.csv" -p "$SRC/calibration/profiles/held-out/split1.yaml" -e steady -q \
  >"$out/halfB.txt" 2>&1
pooled=$(sed -n 's/^pooled: .* median \([0-9.]*\)% over.*/\1/p' "$out/halfB.txt")
[ -n "$pooled" ] && grep -q "^split1 .* ${pooled}%\$" "$out/held-out.txt" && ok ||
  fail "held-out.sh's split 1 is validate's halfB with split1.yaml ($pooled)"
grep -q '^mean over the four halves: pooled [0-9.]*%, TTFT [0-9.]*%$' "$out/held-out.txt" && ok ||
  fail "held-out.sh prints the means over the halves"
# -c: the same protocol again by a control build (here the same one), its means said last
means=$(sed -n 's/^mean over the four halves: //p' "$out/held-out.txt")
[ -n "$means" ] && [ -f "$out/held-out/control/split1.predictions.csv" ] &&
  grep -q "^control (the same protocol by .*): ${means}\$" "$out/held-out.txt" && ok ||
  fail "held-out.sh -c runs the protocol again by the control build ($means)"
# its table (-t): a line per system and mode (model empty), the rows adding up to the file's, each
# error the mean of the four halves' medians; per system, mode and model, and per architecture
# (system empty), mode and model, the rows adding up to the file's too; H200 is Hopper
hdr="system,arch,mode,model,rows,out_tok_s_per_gpu,tok_s_per_user,ttft_ms,pooled"
t_rows=$(awk -F, 'NR > 1 && $1 != "" && $4 == "" { n += $5 } END { print n }' "$out/held-out-errors.csv")
m_rows=$(awk -F, 'NR > 1 && $1 != "" && $4 != "" { n += $5 } END { print n }' "$out/held-out-errors.csv")
a_rows=$(awk -F, 'NR > 1 && $1 == "" { n += $5 } END { print n }' "$out/held-out-errors.csv")
[ "$(head -1 "$out/held-out-errors.csv")" = "$hdr" ] &&
  [ "$t_rows" -eq "$total" ] && [ "$m_rows" -eq "$total" ] && [ "$a_rows" -eq "$total" ] &&
  grep -q '^h200-sxm-hgx8,hopper,aggregated,,[0-9]*,0\.[0-9]*,0\.[0-9]*,0\.[0-9]*,0\.[0-9]*$' "$out/held-out-errors.csv" &&
  grep -q '^,hopper,aggregated,deepseek-r1,[0-9]*,0\.[0-9]*,0\.[0-9]*,0\.[0-9]*,0\.[0-9]*$' "$out/held-out-errors.csv" &&
  ok || { fail "held-out.sh -t writes the table ($t_rows, $m_rows, $a_rows rows of $total)"; cat "$out/held-out-errors.csv"; }
# and prints it: per system and mode the rows, the pooled and the TTFT figures of the table's line
want=$(awk -F, '$1 == "h200-sxm-hgx8" && $3 == "aggregated" && $4 == "" { printf "%s %.1f%% %.1f%%", $5, 100 * $9, 100 * $8 }' \
  "$out/held-out-errors.csv")
got=$(awk '$1 == "h200-sxm-hgx8," && $2 == "aggregated" { print $3, $4, $5 }' "$out/held-out.txt")
[ -n "$want" ] && [ "$got" = "$want" ] && ok || fail "held-out.sh prints the per-system table ('$got', table '$want')"
# the shipped table (calibration/profiles/held-out/errors.csv) is the shipped measured file's: its
# rows per system and mode, and per system, mode and model, are the file's (a stale table after rows
# are added fails here)
awk -F, 'NR == FNR { if (FNR > 1) { m = $11 == "agg" ? "aggregated" : "disaggregated"; n[$3 "," m ","]++; n[$3 "," m "," $5]++ }; next }
  FNR > 1 && $1 != "" { k = $1 "," $3 "," $4; if (n[k] != $5) bad = 1; seen[k] = 1 }
  END { for (k in n) if (!(k in seen)) bad = 1; exit bad }' "$SRC/calibration/measured/measured-dev.csv" \
  "$SRC/calibration/profiles/held-out/errors.csv" && ok || fail "the shipped held-out table counts the measured file's rows"
expect_rc 0 "validate --groups" "$AIFSIM" validate "$out/held-out/halfB.csv" -p "$SRC/calibration/profiles/held-out/split1.yaml" \
  -e steady -q -g "$out/groups.csv"
cmp -s "$out/groups.csv" "$out/held-out/split1.groups.csv" && ok || fail "validate --groups writes held-out.sh's split 1 groups"
# the groups' pooled median (last column) over all rows is the summary's headline pooled figure
g_pooled=$(awk -F, '$1 == "all" { printf "%.1f", 100 * $NF }' "$out/groups.csv")
[ -n "$g_pooled" ] && [ "$g_pooled" = "$pooled" ] && ok || fail "validate --groups' pooled median ($g_pooled, summary $pooled)"
expect_rc 2 "held-out.sh with an unknown engine" sh "$ho" -a "$AIFSIM" -e magic
expect_rc 2 "held-out.sh selecting by an unknown engine" sh "$ho" -a "$AIFSIM" -r 1 -s 2 -S magic
expect_rc 2 "held-out.sh without its measured file" sh "$ho" -a "$AIFSIM" "$out/none.csv"
expect_rc 2 "run with an unknown backend" "$AIFSIM" run "$SRC/scenarios/green-contexts.yaml" --backend magic -o "$out/x"
expect_err "--backend: expected fast or simgrid" "run names the backends"
expect_rc 0 "run on SimGrid" "$AIFSIM" run "$SRC/scenarios/green-contexts.yaml" --backend simgrid -o "$out/gc-sg"
grep -q "engine: simgrid" "$out/gc-sg/scenario.resolved.yaml" && ok || fail "run --backend simgrid is in the resolved scenario"
col "$out/gc-sg/results.csv" engine | sort -u | grep -qx simgrid && ok || fail "run --backend simgrid simulates on SimGrid"
expect_rc 2 "validate a missing file" "$AIFSIM" validate "$out/nothing.csv"
expect_rc 0 "validate the shipped measured rows" "$AIFSIM" validate "$SRC/calibration/measured/measured-dev.csv" --engine steady -o "$out/pred-dev.csv"
[ "$(wc -l <"$out/pred-dev.csv")" -eq "$(wc -l <"$SRC/calibration/measured/measured-dev.csv")" ] && ok ||
  fail "validate predicts every shipped measured row"
expect_rc 0 "fit (no rounds) writes a loadable profile" "$AIFSIM" fit "$out/m.csv" --rounds 0 -o "$out/p.yaml"
expect_rc 0 "validate with that profile" "$AIFSIM" validate "$out/m.csv" --profile "$out/p.yaml"
expect_rc 0 "fit from three starts" "$AIFSIM" fit "$out/m.csv" --rounds 1 --starts 3 -j 2 -o "$out/p3.yaml"
grep -q '^source: aifsim fit m.csv (.* 1 rounds from 3 starts, loss ' "$out/p3.yaml" && ok ||
  fail "fit --starts names its starts in the profile's source"
expect_rc 2 "fit from no start" "$AIFSIM" fit "$out/m.csv" --starts 0
# the starts' optima picked by the event simulation's loss: each start says its score, the profile
# says how it was picked
expect_rc 0 "fit from three starts, picked by event simulation" "$AIFSIM" fit "$out/m.csv" --rounds 1 --starts 3 -j 2 \
  --select des -o "$out/p3d.yaml"
[ "$(grep -c '^fit: start [123], event-simulation loss [0-9]' "$out/stderr")" -eq 3 ] &&
  grep -q '^source: aifsim fit m.csv (.* 1 rounds from 3 starts, picked by event simulation, loss ' "$out/p3d.yaml" &&
  ok || fail "fit --select des scores every start by event simulation and says so in the profile"
expect_rc 2 "fit --select an unknown engine" "$AIFSIM" fit "$out/m.csv" --select magic
expect_err "--select expects steady or des" "fit names the engines it can select by"

# plan: the best configuration per system, and its factory
expect_rc 0 "plan" "$AIFSIM" plan "$SRC/scenarios/gtc-100mw.yaml" -o "$out/plan"
[ "$(wc -l <"$out/plan/plan.csv")" -eq 3 ] && ok || fail "plan.csv has one row per system"
grep -q '^h100-sxm-hgx8,[0-9.]*,,"agg' "$out/plan/plan.csv" && grep -q '^gb200-nvl72,[0-9.]*,,"agg' "$out/plan/plan.csv" && ok || fail "plan picks a configuration for each system"
grep -q 'tok/s/MW' "$out/stdout" && ok || fail "plan prints its table"
expect_rc 0 "plan with an impossible SLO" "$AIFSIM" plan "$SRC/scenarios/gtc-100mw.yaml" -o "$out/plan2" --min-tok-s-per-user 100000
grep -q 'no configuration meets the SLO' "$out/stdout" && ok || fail "plan says when nothing meets the SLO"
# plan into a run's folder: the same results.csv (frontier kept), and the pick is the point the
# chart rings (chart.gp labels it with the same figures)
expect_rc 0 "run the default scenario's SLO sweep" "$AIFSIM" run -o "$out/both"
cp "$out/both/results.csv" "$out/both-run.csv"
expect_rc 0 "plan into the run's folder" "$AIFSIM" plan -o "$out/both" --format csv
cmp -s "$out/both/results.csv" "$out/both-run.csv" && ok || fail "plan and run write the same results.csv into one folder"
python3 - "$out/both" <<'PY' && ok || fail "plan picks the point the chart annotates, and no frontier point breaks the SLO"
import csv, re, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/results.csv")))
assert all(r["status"] == "ok" for r in rows if r["on_frontier"] == "1")
picks = {r["system"]: r for r in csv.DictReader(open(d + "/plan.csv"))}
found = re.findall(r"set label \d+ '([^:']+): .* tok/s per MW .*\(point (\d+)\)'", open(d + "/chart.gp").read())
labels = {k: v for k, v in found if " with headroom" not in k}
dashed = {k.split(" ")[0]: v for k, v in found if " with headroom" in k}
assert picks and set(labels) == set(picks), (labels, picks)
# the dashed ring: each pick with the held-out error as headroom, where it is another point
assert dashed == {s: r["headroom_point"] for s, r in picks.items() if r["headroom_point"] not in ("", r["point"])}, (dashed, picks)
for system, r in picks.items():
    assert labels[system] == r["point"], (system, labels[system], r["point"])
    row = next(x for x in rows if x["point"] == r["point"])
    assert row["status"] == "ok" and float(row["ttft_p90_ms"]) <= 2000 and float(row["tok_s_per_user"]) >= 50
PY
python3 - "$out/both" "$SRC/calibration/profiles/held-out/errors.csv" <<'PY' && ok || fail "plan.csv's headroom pick clears the SLO by the held-out error of the nearest rows"
import csv, sys
d = sys.argv[1]
table = list(csv.DictReader(open(sys.argv[2])))
def nearest(system, mode, model):
    # held_out.h: the model's rows on the system (10 or more), else on its architecture, else the
    # system's of any model
    arch = next((e["arch"] for e in table if e["system"] == system and e["arch"]), "")
    for e in table:
        if e["system"] == system and e["mode"] == mode and e["model"] == model and int(e["rows"]) >= 10:
            return e
    for e in table:
        if not e["system"] and arch and e["arch"] == arch and e["mode"] == mode and e["model"] == model and int(e["rows"]) >= 10:
            return e
    return next((e for e in table if e["system"] == system and e["mode"] == mode and not e["model"]), None)
rows = {r["point"]: r for r in csv.DictReader(open(d + "/results.csv"))}
picks = list(csv.DictReader(open(d + "/plan.csv")))
assert any(p["headroom_point"] and p["headroom_point"] != p["point"] for p in picks), picks  # some pick is on the edge
assert nearest("gb200-nvl72", "aggregated", "deepseek-r1")["arch"] == "blackwell"  # no such GB200 rows: B200's
for p in picks:
    if not p["headroom_point"]:
        continue
    h = rows[p["headroom_point"]]
    e = nearest(h["system"], h["mode"], h["model"])
    pu = float(e["tok_s_per_user"] or 0)
    tt = float(e["ttft_ms"] or 0)
    assert h["status"] == "ok" and float(h["tok_s_per_mw"]) <= float(p["tok_s_per_mw"]), (p, h)
    assert float(h["tok_s_per_user"]) >= 50 * (1 + pu) and float(h["ttft_p90_ms"]) <= 2000 / (1 + tt), (p, h, e)
    # and no ok point of the system that clears the same limits makes more per MW
    for r in rows.values():
        f = nearest(r["system"], r["mode"], r["model"]) if r["system"] == h["system"] and r["status"] == "ok" else None
        if f is None:
            continue
        if float(r["tok_s_per_user"]) >= 50 * (1 + float(f["tok_s_per_user"] or 0)) and \
           float(r["ttft_p90_ms"]) <= 2000 / (1 + float(f["ttft_ms"] or 0)):
            assert float(r["tok_s_per_mw"]) <= float(h["tok_s_per_mw"]), (r, h)
PY
# refine.csv: each closed-loop pick's engine (and the pick with headroom's) at the most users between
# the sweep's counts that still meet its limits: strictly between the two counts, within the limits,
# and at least the swept point's tokens per MW; on the default chart GB200's pick with headroom is
# refined (the sweep doubles its users)
python3 - "$out/both" <<'PY' && ok || fail "refine.csv: the picks' engines between the sweep's users"
import csv, sys
d = sys.argv[1]
rows = {r["point"]: r for r in csv.DictReader(open(d + "/results.csv"))}
refined = [r for r in csv.DictReader(open(d + "/refine.csv")) if r["config"]]
assert any(r["system"] == "gb200-nvl72" and r["limits"] == "with headroom" for r in refined), refined
for r in csv.DictReader(open(d + "/refine.csv")):
    # between two swept counts the search reaches one below the next; past the sweep's most, twice them
    if r["next_swept_users"]:
        assert int(r["search_top"]) == int(r["next_swept_users"]) - 1, r
    else:
        assert int(r["search_top"]) == 2 * int(r["swept_users"]), r
for r in refined:
    swept = rows[r["point"]]
    assert int(r["swept_users"]) < int(r["users"]) <= int(r["search_top"]), r
    assert float(swept["users"]) == int(r["swept_users"]), (r, swept)
    assert float(r["tok_s_per_user"]) >= float(r["min_tok_s_per_user"]), r
    assert float(r["max_ttft_s"]) == 0 or float(r["ttft_ms"]) <= 1000 * float(r["max_ttft_s"]), r
    assert float(r["tok_s_per_mw"]) >= float(swept["tok_s_per_mw"]), (r, swept)
    assert r["config"].endswith("c" + r["users"]), r
PY
# a pick at the sweep's most users is searched past them: Llama-3.3-70B on an H200 TP4 engine at 8
# users makes ~60 tok/s per user, so at a 20 tok/s floor twice the users meet it too, and the plan
# says that the sweep's range, not the SLO, stopped the pick (one simulation, at 16 users)
cat >"$out/edge.yaml" <<YAML
name: edge
system: h200-sxm-hgx8
model: llama-3.3-70b
workload: {input: 1024, output: 512, requests: 300, arrival: {kind: closed, users: [2, 4, 8]}}
serving: {precision: fp8, aggregated: {tp: 4}}
plan: {min_tok_s_per_user: 20}
YAML
expect_rc 0 "plan of a pick at the sweep's most users" "$AIFSIM" plan "$out/edge.yaml" -o "$out/edge" -q
grep -qF "at the sweep's most users (8); past them, agg 1x tp4 fp8 trtllm c16:" "$out/stdout" &&
  grep -qF "the sweep's range, not the limits, stops this pick; widen workload.arrival.users" "$out/stdout" && ok ||
  fail "plan searches a pick at the sweep's most users past them"
python3 - "$out/edge" <<'PY' && ok || fail "refine.csv: a pick at the sweep's most users, past them"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/refine.csv")))
# the shipped held-out table quotes Llama-3.3-70B on Hopper by throughput only (offline rows): the
# headroom raises no limit, so the pick is searched once
assert len(rows) == 1, rows
r = rows[0]
assert (r["limits"], r["swept_users"], r["users"], r["next_swept_users"], r["search_top"], r["tries"]) == \
    ("pick", "8", "16", "", "16", "1"), r
assert float(r["tok_s_per_user"]) >= 20 and r["config"].endswith("c16"), r
PY
# the keynote's argument on a GB200 NVL72 (scenarios/gtc-disaggregated.yaml, cut to its high-throughput
# end): served disaggregated, the best decode pool is wide expert-parallel with attention-DP, and at
# the SLO it makes more tokens per MW than any aggregated engine swept beside it
cat >"$out/wide-ep.yaml" <<YAML
name: wide-ep
system: gb200-nvl72
model: deepseek-r1
workload: {input: 1000, output: 2000, arrival: {kind: closed, users: [2048, 4096, 8192]}}
serving:
  framework: trtllm
  precision: fp4
  mode: [aggregated, disaggregated]
  parallelism: auto
  disaggregated: {prefill: {workers: [1, 2], tp: 4, ep: 4, attention_dp: true}, decode: {workers: 1}}
factory: {power_budget: 100 MW}
plan: {min_tok_s_per_user: 30, max_ttft: 10 s}
YAML
expect_rc 0 "plan of aggregated against disaggregated on GB200" "$AIFSIM" plan "$out/wide-ep.yaml" -o "$out/wide-ep" -q --no-refine
python3 - "$out/wide-ep" <<'PY' && ok || fail "GB200's pick is a wide-EP attention-DP decode pool, ahead of every aggregated engine"
import csv, sys
d = sys.argv[1]
rows = {r["point"]: r for r in csv.DictReader(open(d + "/results.csv"))}
pick = rows[next(csv.DictReader(open(d + "/plan.csv")))["point"]]
assert pick["mode"] == "disaggregated" and int(pick["ep"]) >= 16 and pick["attention_dp"] == "1", pick
agg = [r for r in rows.values() if r["mode"] == "aggregated" and r["status"] == "ok"]
assert agg and all(float(pick["tok_s_per_mw"]) > float(r["tok_s_per_mw"]) for r in agg), pick
PY
expect_rc 2 "plan with an unknown format" "$AIFSIM" plan -o "$out/both" --format yaml
expect_err "--format expects one of table, csv, json, got 'yaml'" "plan names its formats"
expect_rc 2 "plan with a bad TTFT" "$AIFSIM" plan "$SRC/scenarios/gtc-100mw.yaml" -o "$out/plan3" --max-ttft fast
expect_err "'plan.max_ttft' expects a number with a unit like '2 us', got 'fast'" "plan --max-ttft error"

# an overloaded open loop is unstable whatever the number of requests (its medians are only the
# run's length); below capacity it is ok
for n in 400 4000; do
cat >"$out/over$n.yaml" <<YAML
name: over
system: h200-sxm-hgx8
model: llama-3.3-70b
workload: {input: 1024, output: 1024, requests: $n, arrival: {kind: poisson, rate: [1 req/s, 32 req/s]}}
serving: {precision: fp8, aggregated: {tp: 1}}
YAML
expect_rc 0 "open loop, $n requests" "$AIFSIM" run "$out/over$n.yaml" -o "$out/over$n"
[ "$(col "$out/over$n/results.csv" status | tr '\n' ' ')" = "ok unstable " ] && ok ||
  fail "32 req/s on one H200 is unstable, 1 req/s ok ($n requests: $(col "$out/over$n/results.csv" status | tr '\n' ' '))"
done

# a benchmark client: users together at t = 0, every request counted; the first wave queues
cat >"$out/client.yaml" <<'YAML'
name: client
system: h200-sxm-hgx8
model: llama-3.3-70b
workload:
  input: 1024
  output: 512
  arrival: {kind: closed, users: 16, start: [spread, together]}
  requests: 160
  window: all
serving: {precision: fp8, engine: des, aggregated: {tp: 8}}
YAML
expect_rc 0 "run a benchmark-client scenario" "$AIFSIM" run "$out/client.yaml" -o "$out/client"
[ "$(grep -c ',ok,' "$out/client/results.csv")" -eq 2 ] && ok || fail "both starts simulate"
p99s=$(col "$out/client/results.csv" ttft_p99_ms | tail -n 2 | tr '\n' ' ')
awk -v a="${p99s% * }" -v b="${p99s#* }" 'BEGIN { exit !(b > 2 * a) }' && ok ||
  fail "users started together queue their first prompts (TTFT p99 spread, together: $p99s)"

# every shipped scenario runs
# calibrate: without a GPU a clear message and exit 2; a saved run of the kernels fits a profile
# that run reads; a broken one is named at file:line:col
expect_rc 2 "calibrate without a GPU" "$AIFSIM" calibrate
grep -qE "no NVIDIA GPU found|calibration kernels are not built" "$out/stderr" && ok || fail "calibrate says why"
{
  echo "device,NVIDIA H200,132,1980000,150000000000,9,0"
  echo "hbm,read,,,,4294967296,0.00111"
  echo "launch,empty,,,,0,2.4e-06"
  for m in 1 16 128 1024 8192; do
    awk -v m="$m" 'BEGIN { t = 2 * m * 8192 * 8192 / (989e12 * 0.7 * m / (m + 64)); w = 8192 * 8192 * 2 / 3.87e12;
                           printf "gemm,bf16,%d,8192,8192,134217728,%.9g\n", m, (t > w ? t : w) }'
  done
} >"$out/raw.csv"
expect_rc 0 "calibrate --from" "$AIFSIM" calibrate --from "$out/raw.csv" -o "$out/h200.yaml"
expect_err "as h200-sxm-hgx8" "calibrate matches the GPU"
grep -q "aifsim calibrate on NVIDIA H200" "$out/h200.yaml" && ok || fail "calibrated profile names its source"
expect_rc 0 "run with the calibrated profile" "$AIFSIM" run "$SRC/scenarios/green-contexts.yaml" -o "$out/cal" --profile "$out/h200.yaml"
sed 's/0.00111/soon/' "$out/raw.csv" >"$out/bad-raw.csv"
expect_rc 2 "calibrate --from a broken file" "$AIFSIM" calibrate --from "$out/bad-raw.csv"
expect_err "bad-raw.csv:2:" "calibrate names the line"
expect_rc 2 "calibrate --from a missing file" "$AIFSIM" calibrate --from "$out/none.csv"
expect_rc 2 "calibrate for an unknown system" "$AIFSIM" calibrate --from "$out/raw.csv" --system h999
# the shipped H200 measurement fits to the shipped H200 profile's Hopper entry, and says how to fit
# the stacks around it
expect_rc 0 "calibrate the shipped H200 runs" "$AIFSIM" calibrate --from "$SRC/calibration/profiles/h200.raw.csv" \
  --from "$SRC/calibration/profiles/h200-repeat.raw.csv" -o "$out/h200-shipped.yaml"
expect_err "measured hopper.hbm_efficiency,hopper.gemm_efficiency" "calibrate says what it measured"
expect_err "aifsim fit ROWS.csv -p $out/h200-shipped.yaml" "calibrate prints the fit command"
expect_err "fp8_block_efficiency 0.841" "calibrate measures block-scaled FP8"
hopper() { sed -n '/^hopper:/,/^[a-z]/p' "$1"; }
# the fifth H200's runs time grouped (expert) GEMMs: their tile is reported, and the profile keeps
# the stacks' kernels' tile (cuBLAS's batched kernel is not theirs: docs/validation.md)
expect_rc 0 "calibrate runs with grouped GEMMs" "$AIFSIM" calibrate --from "$SRC/calibration/profiles/h200-board5.raw.csv" \
  --from "$SRC/calibration/profiles/h200-board5-repeat.raw.csv" -o "$out/h200-board5.yaml"
expect_err "reported: grouped_tile_m stays" "calibrate reports the grouped GEMMs' tile"
[ "$(hopper "$out/h200-board5.yaml" | grep grouped_tile_m)" = "$(hopper "$SRC/calibration/profiles/default.yaml" | grep grouped_tile_m)" ] && ok ||
  fail "calibrate leaves grouped_tile_m as the starting profile has it"
[ "$(hopper "$out/h200-shipped.yaml")" = "$(hopper "$SRC/calibration/profiles/h200.yaml")" ] && ok ||
  fail "calibration/profiles/h200.yaml is what calibrate makes of h200.raw.csv and h200-repeat.raw.csv"
# Calibrating a GPU makes its predictions better: a profile whose Hopper hardware layer is a guess
# (70% of HBM, 60% of the GEMM peak) predicts the H200 rows worse than the shipped one; calibrating
# it from the shipped H200 runs puts the measured hardware layer back under the fitted stack layer,
# and the H200 rows are predicted no worse than with the shipped profile (the median throughput
# error of validate's "all" line).
awk -F, 'NR == 1 || $3 == "h200-sxm-hgx8"' "$SRC/calibration/measured/measured-dev.csv" >"$out/h200-rows.csv"
sed -e '/^hopper:/,/^[a-z]/s/^  hbm_efficiency: .*/  hbm_efficiency: 70%/' \
    -e '/^hopper:/,/^[a-z]/s/^  gemm_efficiency: .*/  gemm_efficiency: 60%/' "$SRC/calibration/profiles/default.yaml" >"$out/guess.yaml"
median_thr() { "$AIFSIM" validate "$out/h200-rows.csv" -e steady -p "$1" 2>&1 | awk '$1 == "all" { sub("%", "", $7); print $7 }'; }
expect_rc 0 "calibrate over a guessed hardware layer" "$AIFSIM" calibrate --from "$SRC/calibration/profiles/h200.raw.csv" \
  --from "$SRC/calibration/profiles/h200-repeat.raw.csv" -p "$out/guess.yaml" -o "$out/guess-calibrated.yaml"
e_ship=$(median_thr "$SRC/calibration/profiles/default.yaml")
e_guess=$(median_thr "$out/guess.yaml")
e_cal=$(median_thr "$out/guess-calibrated.yaml")
awk -v s="$e_ship" -v g="$e_guess" -v c="$e_cal" 'BEGIN { exit !(s != "" && c != "" && g > c + 1 && c <= s + 0.05) }' && ok ||
  fail "calibrating the H200 makes its rows better: shipped $e_ship%, guessed hardware $e_guess%, calibrated $e_cal%"
expect_rc 2 "fit --hold an unknown key" "$AIFSIM" fit "$SRC/calibration/profiles/h200.raw.csv" --hold hopper.stacks.gem
expect_err "did you mean 'hopper.stacks.gemm'" "fit --hold suggests the key"

# max_batch counts per attention rank under attention-DP: 8 ranks x 16 = 128 slots; 16 without it
cat >"$out/ranks.yaml" <<'EOF'
name: ranks
system: h200-sxm-hgx8
model: deepseek-r1
workload: {input: 256, output: 64, arrival: {kind: closed, users: 1024}}
serving:
  engine: steady
  precision: fp8
  aggregated: {tp: 8, ep: 8, attention_dp: [true, false], max_batch: 16}
EOF
expect_rc 0 "max_batch per attention rank" "$AIFSIM" run "$out/ranks.yaml" -o "$out/ranks"
[ "$(col "$out/ranks/results.csv" slots | tr '\n' ' ')" = "128 16 " ] && ok ||
  fail "max_batch per attention rank: slots $(col "$out/ranks/results.csv" slots | tr '\n' ' ')"

# a rack's power cap becomes each GPU's: more racks in the budget; one that leaves a GPU nothing is
# infeasible, with the numbers
cat >"$out/rackcap.yaml" <<'EOF'
name: rackcap
system: gb200-nvl72
model: deepseek-r1
workload: {input: 1024, output: 1024, arrival: {kind: closed, users: 256}}
serving: {engine: steady, precision: fp4, aggregated: {tp: 8, ep: 8, attention_dp: true}}
factory: {power_budget: 100 MW, rack_power_cap: [0 W, 80 kW, 20 kW]}
EOF
expect_rc 0 "rack power cap" "$AIFSIM" run "$out/rackcap.yaml" -o "$out/rackcap"
[ "$(col "$out/rackcap/results.csv" status | tr '\n' ' ')" = "ok ok infeasible " ] && ok ||
  fail "rack power cap statuses: $(col "$out/rackcap/results.csv" status | tr '\n' ' ')"
racks=$(col "$out/rackcap/results.csv" racks | head -2 | tr '\n' ' ')
[ "${racks%% *}" -lt "$(echo "$racks" | cut -d' ' -f2)" ] && ok || fail "a rack cap fits more racks: $racks"
col "$out/rackcap/results.csv" reason | grep -q "leaves 0 W per GPU" && ok || fail "rack cap reason"

# a swept power budget: the plan's header gives the range, not the first point's budget, and each
# budget gets its own pick (the 200 MW factory's is among its own points, though the 50 MW one's
# shallower fabric makes more tok/s per MW), in the table and in plan.csv
sed -e 's/^name: rackcap/name: budgets/' -e 's/^factory: .*/factory: {power_budget: [50 MW, 200 MW]}/' \
  "$out/rackcap.yaml" >"$out/budgets.yaml"
expect_rc 0 "plan of swept budgets" "$AIFSIM" plan "$out/budgets.yaml" -o "$out/budgets"
grep -q "^SLO: .*; a pick for each factory size swept (facility budgets of 50 to 200 MW)$" "$out/stdout" && ok ||
  fail "swept budgets header: $(head -1 "$out/stdout")"
grep -A2 "^gb200-nvl72, facility budget 200 MW$" "$out/stdout" | grep -q "^  [0-9]* racks, [0-9]* GPUs, 200 MW facility" &&
  grep -A2 "^gb200-nvl72, facility budget 50 MW$" "$out/stdout" | grep -q "^  [0-9]* racks, [0-9]* GPUs, 49.[0-9]* MW facility" &&
  ok || fail "swept budgets: a pick for each budget, sized by it"
[ "$(col "$out/budgets/plan.csv" budget_mw | tr '\n' ' ')" = "50 200 " ] && ok ||
  fail "plan.csv: a row per budget: $(col "$out/budgets/plan.csv" budget_mw | tr '\n' ' ')"
grep -q "factory.power_budget=" "$out/stdout" && fail "the listed points repeat their group's budget" || ok
# a swept factory.gpus beside a budget-sized point: a pick for each size, each headed by it
sed -e 's/^name: budgets/name: sizes/' -e 's/^factory: .*/factory: {gpus: [0, 4608]}/' "$out/budgets.yaml" >"$out/sizes.yaml"
expect_rc 0 "plan of swept factory sizes" "$AIFSIM" plan "$out/sizes.yaml" -o "$out/sizes"
grep -q "^SLO: .*; a pick for each factory size swept (a facility budget of 100 MW; factories of 4608 GPUs)$" "$out/stdout" &&
  grep -A2 "^gb200-nvl72, factory of 4608 GPUs$" "$out/stdout" | grep -q "^  64 racks, 4608 GPUs," && ok ||
  fail "swept factory sizes: $(grep -A2 "^gb200" "$out/stdout")"
[ "$(col "$out/sizes/plan.csv" factory_gpus | tr '\n' ' ')" = " 4608 " ] && ok ||
  fail "plan.csv: a row per factory size: $(col "$out/sizes/plan.csv" factory_gpus | tr '\n' ' ')"
# a budget that holds no rack makes no factory: infeasible, with what one rack needs
sed -e 's/^name: budgets/name: tiny/' -e 's/^factory: .*/factory: {power_budget: [0.1 MW, 1 MW]}/' "$out/budgets.yaml" >"$out/tiny.yaml"
expect_rc 0 "a budget below one rack" "$AIFSIM" run "$out/tiny.yaml" -o "$out/tiny"
[ "$(col "$out/tiny/results.csv" status | tr '\n' ' ')" = "infeasible ok " ] &&
  col "$out/tiny/results.csv" reason | grep -q "^factory.power_budget: 0.1 MW holds no gb200-nvl72 rack, which needs at least 0.14" &&
  ok || fail "a budget below one rack: $(col "$out/tiny/results.csv" reason | head -1)"

# --- conventions: help for every command, one meaning per short option, GNU --version, locale ----
expect_rc 0 "--version" "$AIFSIM" --version
grep -q '^Copyright (C) ' "$out/stdout" && grep -q '^License MIT' "$out/stdout" && ok || fail "--version names copyright and licence"
expect_rc 0 "--help" "$AIFSIM" --help
grep -q '^Report bugs to: ' "$out/stdout" && ok || fail "--help gives the bug-report address"
commands=$("$AIFSIM" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 12 ] && ok || fail "--help lists the commands: $commands"
: >"$out/shorts"
for c in $commands; do
  expect_rc 0 "help $c" "$AIFSIM" help "$c"
  [ "$c" = help ] || { grep -q "aifsim help \[OPTION" "$out/stdout" && fail "help $c prints help's own usage" || ok; }
  grep -q "^  aifsim $c \[OPTION" "$out/stdout" && ok || fail "help $c prints $c's usage"
  # every "-X, --long" pair of the command's help
  sed -n 's/^ *\(-[a-zA-Z]\), \(--[a-z-]*\).*/\1 \2/p' "$out/stdout" >>"$out/shorts"
done
clashes=$(sort -u "$out/shorts" | awk '{ n[$1]++; l[$1] = l[$1] " " $2 } END { for (k in n) if (n[k] > 1) print k ":" l[k] }')
[ -z "$clashes" ] && ok || fail "a short option means one thing across commands: $clashes"
[ "$(wc -l <"$out/shorts")" -gt 20 ] && ok || fail "the short options were read from the helps"
expect_rc 2 "help of no command" "$AIFSIM" help frobnicate
expect_err "no command or topic 'frobnicate'" "help of no command named"
expect_rc 0 "catalog keys" "$AIFSIM" catalog keys
grep -q '^attention.kv_lora_rank' "$out/stdout" && grep -q '^gpu.hbm_bandwidth' "$out/stdout" && ok ||
  fail "catalog keys lists the model and system keys"
if locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
  LC_ALL=C.UTF-8 "$AIFSIM" run --help >"$out/stdout" 2>&1
  grep -q 'OPTION?' "$out/stdout" && fail "usage prints [OPTION?] in a UTF-8 locale" || ok
fi

# --- standard input, shipped scenarios by name, --quiet ---------------------------------------------
printf 'name: piped\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\nserving: {engine: steady}\n' |
  "$AIFSIM" run - -o "$out/piped" >"$out/stdout" 2>"$out/stderr" && [ -s "$out/piped/results.csv" ] && ok ||
  { fail "run - reads the scenario from standard input"; cat "$out/stderr"; }
printf 'name: piped\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\nserving: {tensor_parallel: 2}\n' |
  "$AIFSIM" run - -o "$out/piped2" >"$out/stdout" 2>"$out/stderr"
[ $? -eq 2 ] && grep -q '^aifsim run: -:4:' "$out/stderr" && ok || { fail "a bad scenario on stdin: -:line:col, exit 2"; cat "$out/stderr"; }
expect_rc 0 "a shipped scenario by name" "$AIFSIM" run green-contexts -o "$out/byname" -e steady -q
[ -s "$out/byname/results.csv" ] && ok || fail "run NAME runs the shipped scenario"
grep -q 'points\|ETA' "$out/stderr" && { fail "--quiet prints no progress"; cat "$out/stderr"; } || ok
expect_rc 2 "an unknown scenario name" "$AIFSIM" run no-such-scenario -o "$out/nosuch"
expect_err "no-such-scenario: cannot read" "an unknown scenario name is named"
expect_rc 0 "catalog scenarios" "$AIFSIM" catalog scenarios
grep -q '^gtc-100mw  *Hopper' "$out/stdout" && ok || fail "catalog scenarios lists them with descriptions"
head -3 "$SRC/calibration/measured/measured-dev.csv" | "$AIFSIM" validate - -e steady -q >"$out/stdout" 2>"$out/stderr" &&
  grep -q 'pooled' "$out/stdout" && ok || { fail "validate - reads measured rows from standard input"; cat "$out/stderr"; }

# --- estimate: one configuration without a file -----------------------------------------------------
expect_rc 0 "estimate" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.3-70b --tp 4 --isl 2048 --osl 256 --users 32
grep -q '^llama-3.3-70b on h200-sxm-hgx8: agg 1x tp4 fp8 trtllm c32' "$out/stdout" && grep -q '^  ttft_p90_ms ' "$out/stdout" &&
  grep -q '^  status  *ok' "$out/stdout" && ok || { fail "estimate prints the point"; cat "$out/stdout"; }
expect_rc 0 "estimate json" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.3-70b --tp 4 --isl 2048 --osl 256 --users 32 -f json
est=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["tp"], r["users"], r["isl"], r["osl"], r["status"])' "$out/stdout")
[ "$est" = "4 32 2048 256 ok" ] && ok || fail "estimate --format json: $est"
cp "$out/stdout" "$out/est.json"
# the same point as a scenario gives the same row
printf 'name: est\nsystem: h200-sxm-hgx8\nmodel: llama-3.3-70b\nworkload: {input: 2048, output: 256, arrival: {kind: closed, users: 32}}\nserving: {aggregated: {tp: 4}}\n' >"$out/est.yaml"
expect_rc 0 "the estimate's point as a scenario" "$AIFSIM" run "$out/est.yaml" -o "$out/est"
python3 -c 'import json, sys
a = json.load(open(sys.argv[1])); b = json.loads(open(sys.argv[2]).readline())
keys = ["out_tok_s_per_gpu", "tok_s_per_user", "ttft_p90_ms", "tok_s_per_mw", "gpu_power_w"]
sys.exit(0 if all(a[k] == b[k] for k in keys) else 1)' "$out/est.json" "$out/est/results.jsonl" && ok ||
  fail "estimate and run agree on the same point"
expect_rc 2 "estimate without a model" "$AIFSIM" estimate --system h200-sxm-hgx8
expect_rc 2 "estimate of an unknown system" "$AIFSIM" estimate --system h300 --model llama-3.3-70b
expect_err "--system: unknown system 'h300'" "estimate names the bad option"
expect_rc 2 "estimate --set of a misspelt key" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.3-70b --set serving.agregated.tp=2
expect_err "did you mean 'serving.aggregated.tp'" "estimate --set suggests the key"
expect_rc 2 "estimate with a bad value" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.3-70b --precision fp6
expect_rc 0 "estimate --set a SLO" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.3-70b --tp 4 --set "plan.max_ttft=1 ms"
grep -q '^  status  *slo-violated' "$out/stdout" && ok || fail "estimate --set plan.max_ttft holds the point to it"

# --- demand over time and the run's time series ------------------------------------------------------
expect_rc 0 "estimate a demand curve with its series" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.1-8b \
  --rate '5 req/s' --set 'workload.arrival.curve=1 3' --set 'workload.arrival.period=1 min' --set 'workload.duration=2 min' \
  --set workload.requests=100000 --set workload.window=all --series "$out/series.csv" --interval '1 min'
python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = len(rows) == 2 and 3 < float(rows[0]["offered_req_s"]) < 7 and 12 < float(rows[1]["offered_req_s"]) < 18
sys.exit(0 if ok else 1)' "$out/series.csv" && ok || { fail "the series follows the curve: 5 then 15 req/s"; cat "$out/series.csv"; }
grep -q '^t_s,offered_req_s,served_req_s,out_tok_s,in_flight,queued,ttft_p50_ms,ttft_p90_ms,tpot_p50_ms,tpot_p90_ms,gpu_activity,gpu_power_w,facility_mw,serving_engines,prefill_engines,engines_down,power_cap_w,shed,gpus$' "$out/series.csv" &&
  ok || fail "the series' header"
expect_rc 0 "the series drawn" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.1-8b --rate '5 req/s' \
  --set 'workload.arrival.curve=1 3' --set 'workload.arrival.period=1 min' --set 'workload.duration=4 min' \
  --set workload.requests=100000 --interval '20 s' --series-chart "$out/series.png"
[ -s "$out/series.png" ] && grep -q '^set multiplot layout 3,1' "$out/series.png.gp" && ok || fail "estimate --series-chart draws and writes its gnuplot twin"
if command -v gnuplot >/dev/null 2>&1; then
  mkdir -p "$out/series-elsewhere"
  (cd "$out/series-elsewhere" && gnuplot "$out/series.png.gp" >/dev/null 2>&1)
  [ -s "$out/series-elsewhere/series.png.gp.png" ] && ok || fail "the series' gnuplot twin draws from another directory"
fi
expect_rc 2 "a bad interval" "$AIFSIM" estimate --system h200-sxm-hgx8 --model llama-3.1-8b --series "$out/s2.csv" --interval 0
[ ! -e "$out/s2.csv" ] && ok || fail "a bad interval writes no series"

# --- the floor simulated as a whole: its series and chart, sizing, the envelope's keys -------------------
cat >"$out/floor.yaml" <<'ZZEOF'
name: floor
system: h200-sxm-hgx8
model: llama-3.1-8b
workload:
  input: {dist: lognormal, mean: 1024, sigma: 0.6}
  output: {dist: exponential, mean: 200}
  arrival: {kind: poisson, rate: 40 req/s, curve: '0.5 1', period: 2 min}
  duration: 4 min
serving:
  aggregated: {workers: 1, tp: 1, max_batch: 64}
  router: [least_loaded, queue]
factory:
  gpus: 64
  floor: {simulate: true, sample_engines: 8, series_interval: 30 s}
plan: {max_ttft: 2 s, percentile: p90}
ZZEOF
expect_rc 0 "run a floor" "$AIFSIM" run "$out/floor.yaml" -o "$out/floor" -j 2
[ "$(col "$out/floor/results.csv" floor_engines | sort -u)" = 64 ] && [ "$(col "$out/floor/results.csv" simulated_engines | sort -u)" = 8 ] &&
  ok || fail "a floor's results give its engines and those simulated"
[ -s "$out/floor/series/p0.csv" ] && [ -s "$out/floor/series/p1.png" ] && grep -q '^set multiplot' "$out/floor/series/p1.png.gp" &&
  ok || fail "a floor point's series and day chart are written"
python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = len(rows) == 8 and all(r["facility_mw"] for r in rows) and 14 < float(rows[1]["offered_req_s"]) < 26 and 30 < float(rows[-1]["offered_req_s"]) < 50
sys.exit(0 if ok else 1)' "$out/floor/series/p0.csv" && ok || { fail "the series is the floors: 20 then 40 req/s, facility MW"; cat "$out/floor/series/p0.csv"; }
python3 -c 'import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lines = [json.loads(l) for l in open(sys.argv[2])]
ok = len(lines) == len(rows) and all(float(r["served_req_s"]) == l["served_req_s"] and list(l) == list(r) for r, l in zip(rows, lines))
sys.exit(0 if ok else 1)' "$out/floor/series/p0.csv" "$out/floor/series/p0.jsonl" && ok || fail "a floor point's series as JSON lines: the CSV's rows and columns"
expect_rc 0 "the floor again with two jobs less" "$AIFSIM" run "$out/floor.yaml" -o "$out/floor1" -j 1
cmp -s "$out/floor/results.csv" "$out/floor1/results.csv" && cmp -s "$out/floor/series/p1.csv" "$out/floor1/series/p1.csv" &&
  ok || fail "a floor's results and series do not depend on -j"
sed -i 's/  router: \[least_loaded, queue\]/  router: queue/' "$out/floor.yaml"
expect_rc 0 "a floor of one point into the same folder" "$AIFSIM" run "$out/floor.yaml" -o "$out/floor" -j 1
[ -s "$out/floor/series/p0.csv" ] && [ ! -e "$out/floor/series/p1.csv" ] && [ ! -e "$out/floor/series/p1.png" ] && [ ! -e "$out/floor/series/p1.jsonl" ] &&
  ok || fail "a fresh run removes the series of points it no longer has"
sed 's/^  gpus: 64$/  gpus: 64\n  maintenance: {interval: 2 min, duration: 12 s}/' "$out/floor.yaml" >"$out/floor-maint.yaml"
expect_rc 0 "a floor with planned maintenance" "$AIFSIM" run "$out/floor-maint.yaml" -o "$out/floor-maint" -q
python3 -c 'import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
m, a = float(r["maintenance_share"]), float(r["availability"])
sys.exit(0 if 0.08 < m < 0.11 and abs(a - (1 - m)) < 1e-5 else 1)' "$out/floor-maint/results.csv" &&
  ok || { fail "maintenance 12 s every 2 min: a tenth of the engines out, the rest available"; cat "$out/floor-maint/results.csv"; }
# engines failing every minute or two without retries: the lost requests are never answered, so
# they miss the p90 TTFT limit (14% lost here: slo-violated for it, though every answered request
# was fast) and retrying them is judged by its TTFT, not flattered by the losses. The failures
# are frequent enough to keep the lost share well clear of the 10% a p90 limit lets miss (at a
# GPU failure every 3 min a model change left it at exactly 10%, which a p90 limit lets pass)
cat >"$out/lost.yaml" <<'ZZEOF'
name: lost
seed: 1
system: h200-sxm-hgx8
model: llama-3.3-70b
workload:
  input: {dist: fixed, mean: 1024}
  output: {dist: fixed, mean: 256}
  arrival: {kind: poisson, rate: 12 req/s}
serving:
  framework: trtllm
  precision: fp8
  aggregated: {workers: 4, tp: 2}
factory:
  failures: {enabled: true, gpu_mtbf: 90 s, node_mtbf: 1 h, repair_time: 20 s, retry: [false, true]}
plan: {max_ttft: 2 s, percentile: p90}
ZZEOF
expect_rc 0 "engines failing, requests lost or retried" "$AIFSIM" run "$out/lost.yaml" -o "$out/lost" -q
python3 -c 'import csv, sys
lost, retried = list(csv.DictReader(open(sys.argv[1])))
share = float(lost["lost_share"])
ok = (lost["status"] == "slo-violated" and "lost with failed engines" in lost["reason"] and share > 0.1
      and lost["ttft_p90_ms"] == "" and abs(float(lost["slo_attainment"]) - (1 - share)) < 0.05
      and float(retried["lost_share"]) == 0 and "TTFT" in retried["reason"])
sys.exit(0 if ok else 1)' "$out/lost/results.csv" &&
  ok || { fail "lost requests miss the SLO: more than its percentile lets miss is a breach"; cat "$out/lost/results.csv"; }
# the plan's own limit on the lost share: without a latency limit the point losing 14% is judged
# by it, the one retrying its requests (none lost) passes, and the header says the limit
expect_rc 0 "plan --max-lost-share" "$AIFSIM" plan "$out/lost.yaml" --max-ttft "0 s" --max-lost-share 1% -o "$out/lost-plan" -q
head -1 "$out/stdout" | grep -q "^SLO: <= 1% of the requests lost;" &&
  [ "$(col "$out/lost-plan/results.csv" status | tr '\n' ' ')" = "slo-violated ok " ] &&
  col "$out/lost-plan/results.csv" reason | grep -q "lost with failed engines, more than the plan's 1%" &&
  ok || { fail "plan.max_lost_share judges the lost share"; cat "$out/stdout"; }
expect_rc 2 "plan --max-lost-share above 1" "$AIFSIM" plan "$out/lost.yaml" --max-lost-share 150% -o "$out/lost-plan2"
expect_err "'plan.max_lost_share' must be at most 1" "a lost share above 1 refused"
expect_rc 0 "plan --size" "$AIFSIM" plan "$out/floor.yaml" --size -o "$out/floor-size" -q
python3 -c 'import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if r["outcome"] == "found" and 1 <= float(r["racks"]) <= 2 and float(r["ttft_p90_ms"]) <= 2000 else 1)' "$out/floor-size/sizing.csv" &&
  ok || { fail "plan --size finds the racks"; cat "$out/floor-size/sizing.csv"; }
grep -q '^Sizing: the fewest racks' "$out/stdout" && ok || fail "plan --size prints the sizing"
grep -qiw nan "$out/floor-size/sizing.csv" && fail "sizing.csv leaves a figure the floor did not give empty" || ok
expect_rc 2 "--availability without --size" "$AIFSIM" plan "$out/floor.yaml" --availability 99% -o "$out/floor-size2"
printf 'name: e\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\nfactory:\n  envelope: {policy: throttle}\n' >"$out/bad-envelope.yaml"
expect_rc 2 "a bad envelope policy" "$AIFSIM" run "$out/bad-envelope.yaml" -o "$out/bad-envelope"
expect_err "bad-envelope.yaml:5:" "the bad policy named at its line"

# --- several deployments on one floor: the deployments column, the resolved file, sizing --------------------
cat >"$out/models.yaml" <<'ZZEOF'
name: models
system: h200-sxm-hgx8
model: llama-3.3-70b
workload:
  output: {dist: exponential, mean: 200}
  arrival: {kind: poisson, rate: 10 req/s, curve: '1 0.2', period: 2 min}
  duration: 4 min
serving: {router: queue, aggregated: {workers: 1, tp: 4, max_batch: 64}}
share: 50%
deployments:
  - model: llama-3.1-8b
    serving: {aggregated: {tp: 1}}
    workload: {arrival: {rate: 60 req/s, curve: '0.2 1'}}
    plan: {max_ttft: 1 s}
factory:
  gpus: 32
  floor: {simulate: true, sample_engines: 0, series_interval: 30 s}
  autoscale: {enabled: [false, true], interval: 10 s, start_time: 20 s}
plan: {max_ttft: 3 s, percentile: p90}
ZZEOF
expect_rc 0 "run a floor of two models" "$AIFSIM" run "$out/models.yaml" -o "$out/models" -j 2
python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = len(rows) == 2 and all(r["deployments"].startswith("llama-3.3-70b (50% of the GPUs") and "; llama-3.1-8b (50% of the GPUs" in r["deployments"] for r in rows)
ok = ok and "engines in" not in rows[0]["deployments"] and "engines in" in rows[1]["deployments"]
ok = ok and all(float(r["floor_engines"]) == 4 + 16 and float(r["deployment_gpus"]) == 32 for r in rows)
sys.exit(0 if ok else 1)' "$out/models/results.csv" && ok || { fail "a floor of two models: each in the deployments column, engines moved with the autoscaler"; cat "$out/models/results.csv"; }
[ "$(wc -l <"$out/models/series/p1.csv")" -eq 9 ] && ok || fail "a floor of two models writes the floor's series"
python3 -c 'import csv, sys
floor, a, b = (list(csv.DictReader(open(f))) for f in sys.argv[1:4])
ok = len(floor) == len(a) == len(b) == 8 and all(abs(float(x["gpus"]) + float(y["gpus"]) - float(f["gpus"])) < 1e-3 for f, x, y in zip(floor, a, b))
sys.exit(0 if ok else 1)' "$out/models/series/p1.csv" "$out/models/series/p1-d1.csv" "$out/models/series/p1-d2.csv" &&
  ok || fail "each deployment's own series, their GPUs the floor's"
expect_rc 0 "rerun two models from the resolved scenario" "$AIFSIM" run "$out/models/scenario.resolved.yaml" --catalog "$out/models/catalog" -o "$out/models2" -j 1
cmp -s "$out/models/results.csv" "$out/models2/results.csv" && cmp -s "$out/models/series/p1.csv" "$out/models2/series/p1.csv" &&
  ok || fail "the resolved scenario reproduces a floor of two models, whatever -j"
sed -i 's/  autoscale: {enabled: \[false, true\]/  autoscale: {enabled: true/' "$out/models.yaml"
expect_rc 0 "plan --size a floor of two models" "$AIFSIM" plan "$out/models.yaml" --size -o "$out/models-size" -q
python3 -c 'import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if r["outcome"] == "found" and " | llama-3.1-8b: " in r["config"] else 1)' "$out/models-size/sizing.csv" &&
  ok || { fail "plan --size sizes a floor of two models"; cat "$out/models-size/sizing.csv"; }
# the floor of two models with engines failing and no retries: each member says its share lost
sed 's/^  autoscale: .*/  failures: {enabled: true, gpu_mtbf: 2 min, node_mtbf: 1 h, repair_time: 20 s, retry: false}/' \
  "$out/models.yaml" >"$out/models-lost.yaml"
expect_rc 0 "a floor of two models losing requests" "$AIFSIM" run "$out/models-lost.yaml" -o "$out/models-lost" -q
python3 -c 'import csv, re, sys
r = next(csv.DictReader(open(sys.argv[1])))
shares = [float(x) for x in re.findall(r"req/s served \(([0-9.]+)% lost\)", r["deployments"])]
sys.exit(0 if len(shares) == 2 and all(s > 0 for s in shares) and float(r["lost_share"]) > 0 else 1)' "$out/models-lost/results.csv" &&
  ok || { fail "a shared floor's members say what they lost"; cat "$out/models-lost/results.csv"; }

# --- a mixed demand: classes with their own TTFT limits --------------------------------------------------
cat >"$out/mix.yaml" <<'ZZEOF'
name: mix
system: h200-sxm-hgx8
model: llama-3.1-8b
workload:
  input: {dist: lognormal, mean: 1024, sigma: 0.5}
  output: {dist: exponential, mean: 200}
  mix: "chat 70% 512 200 1 s; long-context 30% 16384 200 20 s"
  arrival: {kind: poisson, rate: 12 req/s}
  requests: 6000
serving:
  aggregated: {workers: 4, tp: 1, max_batch: 16}
  router: queue
plan: {max_ttft: 1 ms, percentile: p90}
ZZEOF
expect_rc 0 "run a mixed demand" "$AIFSIM" run "$out/mix.yaml" -o "$out/mix" -j 1
grep -q '^SLO: p90 TTFT by class (chat <= 1 s, long-context <= 20 s); ' "$out/stdout" && ok || fail "the summary gives each class's limit"
col "$out/mix/results.csv" classes | grep -q '^chat 70%: p90 TTFT [0-9.]* s <= 1 s, [0-9.]* tok/s per user; long-context 30%: p90 TTFT [0-9.]* s <= 20 s' &&
  ok || { fail "each class against its own limit"; col "$out/mix/results.csv" classes; }
[ "$(col "$out/mix/results.csv" status)" = ok ] && ok || fail "the classes' limits stand in for plan.max_ttft"
[ "$(col "$out/mix/results.csv" isl)" = 5273.6 ] && ok || fail "the mean prompt is the mix's: 0.7 x 512 + 0.3 x 16384"
sed -i 's/chat 70% 512 200 1 s/chat 70% 512 200 1 ms/' "$out/mix.yaml"
expect_rc 0 "a class's limit broken" "$AIFSIM" run "$out/mix.yaml" -o "$out/mix" -j 1
col "$out/mix/results.csv" reason | grep -q '^class chat: p90 TTFT .* above its 0.001 s' && ok || fail "the breached class named"
# engines failing without retries: 2% of the requests are lost, so a class's p99 falls among them
# (never answered): no p99 TTFT, and its limit broken for the losses
sed -i 's/chat 70% 512 200 1 ms/chat 70% 512 200 1 s/; s/percentile: p90/percentile: p99/' "$out/mix.yaml"
printf 'factory:\n  failures: {enabled: true, gpu_mtbf: 2 min, node_mtbf: 1 h, repair_time: 20 s, retry: false}\n' >>"$out/mix.yaml"
expect_rc 0 "a mixed demand losing requests" "$AIFSIM" run "$out/mix.yaml" -o "$out/mix-lost" -j 1
col "$out/mix-lost/results.csv" classes | grep -q '^chat 70%: p99 TTFT none (more lost than it lets miss)' &&
  col "$out/mix-lost/results.csv" reason | grep -q '^class chat: more of its requests lost with failed engines than a p99 limit' &&
  ok || { fail "a class whose p99 request was lost breaks its limit"; col "$out/mix-lost/results.csv" classes; }
printf 'name: m\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\nworkload:\n  mix: "chat 70%% 512"\n' >"$out/bad-mix.yaml"
expect_rc 2 "a class without lengths" "$AIFSIM" run "$out/bad-mix.yaml" -o "$out/bad-mix"
expect_err "bad-mix.yaml:5:8: workload.mix: expected 'NAME SHARE INPUT OUTPUT [MAX_TTFT]', got 3 words" "the bad class at its line and column"

# --- catalog import: a model entry from a config.json ------------------------------------------------
mkdir -p "$out/cat/llm"
expect_rc 0 "catalog import" "$AIFSIM" catalog import "$SRC/tests/hf-config/deepseek-r1.json" --id my-r1 --name "My R1" -o "$out/cat/llm/my-r1.yaml"
expect_rc 0 "an imported model runs" "$AIFSIM" estimate --system gb200-nvl72 --model my-r1 --tp 8 --ep 8 --attention-dp \
  --precision fp8 -c "$out/cat" -e steady
grep -q '^my-r1 on gb200-nvl72' "$out/stdout" && ok || fail "the imported model is in the catalog"
"$AIFSIM" catalog import - --id from-stdin <"$SRC/tests/hf-config/llama-3.1-8b.json" >"$out/stdout" 2>"$out/stderr" &&
  grep -q '^  kind: gqa' "$out/stdout" && ok || fail "catalog import - reads standard input"
expect_rc 2 "import into a file not named for its id" "$AIFSIM" catalog import "$SRC/tests/hf-config/deepseek-r1.json" -o "$out/cat/other.yaml"
printf '{"hidden_size": 1}' >"$out/bad.json"
expect_rc 2 "import of a config without layers" "$AIFSIM" catalog import "$out/bad.json"
expect_err "bad.json:1:1: config has no 'num_hidden_layers'" "import names what is missing"

# --- launch: the files of a point, against hand-checked expected files --------------------------------
for t in agg-trtllm agg-vllm agg-sglang disagg-sglang disagg-trt disagg-vllm; do
  expect_rc 0 "launch: run $t" "$AIFSIM" run "$SRC/tests/launch/$t.yaml" -o "$out/launch-$t" -q
  expect_rc 0 "launch $t" "$AIFSIM" launch "$out/launch-$t" --point 0 --model-path org/Model-Name -o "$out/launch-$t/files"
  d=$(echo "$out/launch-$t/files"/*-p0)
  for f in "$SRC/tests/launch/expected/$t"/*; do
    if cmp -s "$f" "$d/$(basename "$f")"; then ok; else fail "launch $t: $(basename "$f") differs"; diff "$f" "$d/$(basename "$f")" | head -10; fi
  done
  [ "$(ls "$d" | grep -vc README.md)" -eq "$(ls "$SRC/tests/launch/expected/$t" | wc -l)" ] && ok || fail "launch $t: files $(ls "$d")"
  grep -q "point 0" "$d/README.md" && ok || fail "launch $t: the README names the point"
  grep -qiw nan "$d/README.md" && fail "launch $t: the README prints a figure the run did not give" || ok
  for sh in "$d"/*.sh; do sh -n "$sh" && [ -x "$sh" ] && ok || fail "launch $t: $(basename "$sh") is an executable sh script"; done
done
# SGLang's FP8 kernel switch (DeepGEMM off, FlashInfer's GEMMs on) only where the point was simulated
# with FlashInfer's: the Blackwell launches above export it, the same engine on Hopper does not
sed 's/^system: b200-hgx8$/system: h200-sxm-hgx8/' "$SRC/tests/launch/agg-sglang.yaml" >"$out/sglang-h200.yaml"
expect_rc 0 "run SGLang FP8 on H200" "$AIFSIM" run "$out/sglang-h200.yaml" -o "$out/sglang-h200" -q
expect_rc 0 "launch SGLang FP8 on H200" "$AIFSIM" launch "$out/sglang-h200" --point 0 -o "$out/sglang-h200/files"
grep -q 'SGLANG_ENABLE_FLASHINFER_GEMM=true' "$out/launch-agg-sglang/files"/*-p0/sglang-serve.sh &&
  ! grep -q 'JIT_DEEPGEMM' "$out/sglang-h200/files"/*-p0/sglang-serve.sh && ok ||
  fail "SGLang's launch on Blackwell switches DeepGEMM off, on Hopper not"
# TensorRT-LLM's MoE backend as simulated (serving.moe_backend auto): DeepSeek-R1's block-scaled FP8
# experts sliced over TP8 in trtllm-gen's MoE, spread whole by EP8 in DeepGEMM's; FP4 names none
sed -e 's/^  precision: fp4$/  precision: fp8/' -e 's/aggregated: {tp: 8, ep: 8, attention_dp: true,/aggregated: {tp: 8, ep: [1, 8], attention_dp: false,/' \
  "$SRC/tests/launch/agg-trtllm.yaml" >"$out/moe-backend.yaml"
expect_rc 0 "run TensorRT-LLM FP8 TP8 EP1 and EP8" "$AIFSIM" run "$out/moe-backend.yaml" -o "$out/moe-backend" -q
for i in 0 1; do
  expect_rc 0 "launch TensorRT-LLM FP8 point $i" "$AIFSIM" launch "$out/moe-backend" --point $i -o "$out/moe-backend/f$i"
done
grep -q '^  backend: TRTLLM ' "$out/moe-backend/f0"/*-p0/extra-llm-api-config.yaml &&
  grep -q '^  backend: DEEPGEMM ' "$out/moe-backend/f1"/*-p1/extra-llm-api-config.yaml &&
  ! grep -q 'backend: ' "$out/launch-agg-trtllm/files"/*-p0/extra-llm-api-config.yaml && ok ||
  fail "TensorRT-LLM's launch names the MoE backend the point was simulated with"
# a KV router weighted as simulated: the frontend is launched with that weight
sed 's/^  router: kv_aware$/  router: kv_aware\n  kv_overlap_weight: 4/' "$SRC/tests/launch/disagg-sglang.yaml" >"$out/weighted.yaml"
expect_rc 0 "run a weighted KV router" "$AIFSIM" run "$out/weighted.yaml" -o "$out/weighted" -q
expect_rc 0 "launch a weighted KV router" "$AIFSIM" launch "$out/weighted" --point 0 -o "$out/weighted/files"
grep -q -- '--router-mode kv --kv-overlap-score-weight 4' "$out/weighted/files/gb200-nvl72-p0/dynamo-serve.sh" &&
  grep -q '"--router-mode", "kv", "--kv-overlap-score-weight", "4"' "$out/weighted/files/gb200-nvl72-p0/dynamo-k8s.yaml" &&
  ok || fail "launch carries the KV router's overlap weight"
# default: each system's pick; a hostile model path reaches the engine as one word and runs nothing
expect_rc 0 "launch the picks" "$AIFSIM" launch "$out/launch-agg-vllm" --model-path "m'; touch $out/PWNED; echo '\$(touch $out/PWNED2)"
mkdir -p "$out/fakebin" && printf '#!/bin/sh\nfor a in "$@"; do printf "[%%s]\\n" "$a"; done\n' >"$out/fakebin/vllm" && chmod +x "$out/fakebin/vllm"
PATH="$out/fakebin:$PATH" sh "$out/launch-agg-vllm/launch/h200-sxm-hgx8-p0/vllm-serve.sh" >"$out/stdout" 2>&1
[ ! -e "$out/PWNED" ] && [ ! -e "$out/PWNED2" ] && grep -qF "[m'; touch $out/PWNED; echo '\$(touch $out/PWNED2)]" "$out/stdout" &&
  grep -qF '[--max-num-seqs]' "$out/stdout" && ok || { fail "a launch script passes the model path as one word and runs nothing"; cat "$out/stdout"; }
expect_rc 2 "launch a point that cannot run" "$AIFSIM" launch "$out/launch-agg-vllm" --point 7
expect_err "no such point" "launch names the missing point"
expect_rc 2 "launch a folder without a run" "$AIFSIM" launch "$out"
expect_err "no scenario.resolved.yaml" "launch says what it needs"

# --- bash completion: commands, options, catalog ids, scenario names ------------------------------------
if command -v bash >/dev/null 2>&1; then
  comp() { bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _aifsim; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$SRC/sim/cli/aifsim.bash" "$AIFSIM" "$@"; }
  [ "$(comp es)" = estimate ] && ok || fail "completion: es -> estimate: $(comp es)"
  comp run --qu | grep -qx -- --quiet && ok || fail "completion: run --qu -> --quiet"
  comp estimate --system gb2 | grep -qx gb200-nvl72 && ok || fail "completion: --system gb2 -> gb200-nvl72"
  comp estimate --model deeps | grep -qx deepseek-r1 && ok || fail "completion: --model deeps -> deepseek-r1"
  comp plan gtc | grep -qx gtc-100mw && ok || fail "completion: plan gtc -> the shipped scenario"
  comp help lau | grep -qx launch && ok || fail "completion: help lau -> launch"
else
  echo "SKIP: bash not installed: the completion is not tested"
fi
# the man page renders (built by make from the helps)
if [ -s "${AIF_BUILDDIR:-.}/aifsim.1" ] && command -v man >/dev/null 2>&1; then
  MANWIDTH=100 man "${AIF_BUILDDIR:-.}/aifsim.1" 2>/dev/null | grep -q 'aifsim launch' && ok || fail "the man page renders with every command"
fi

# --- outputs: the gnuplot twin from anywhere, plot keeps the title, no stale chart -------------------
if command -v gnuplot >/dev/null 2>&1; then
  mkdir -p "$out/elsewhere"
  (cd "$out/elsewhere" && gnuplot "$out/a/chart.gp" >/dev/null 2>&1)
  [ -s "$out/elsewhere/chart.gp.png" ] && ok || fail "the gnuplot script draws when run from another directory"
fi
grep -q "^set title 'AI factory: Hopper vs Blackwell vs Rubin" "$out/a/chart.gp" && ok || fail "the run's chart has the scenario's title"
expect_rc 0 "plot a run's results" "$AIFSIM" plot "$out/a/results.csv" -o "$out/replot.png"
grep -q "^set title 'AI factory: Hopper vs Blackwell vs Rubin" "$out/replot.gp" && grep -q '^set arrow 1 from 50,' "$out/replot.gp" &&
  ok || fail "plot keeps the run's title and SLO floor"
grep -c "lc rgb '#" "$out/replot.gp" | grep -qv '^0$' && ok || fail "the gnuplot twin draws the PNG's colours"
cp -r "$out/byname" "$out/stale"
[ -s "$out/stale/chart.png" ] && ok || fail "a sweep of green-contexts draws a chart"
printf 'name: one\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\nserving: {engine: steady}\n' >"$out/one.yaml"
expect_rc 0 "a one-point run into a folder with a chart" "$AIFSIM" run "$out/one.yaml" -o "$out/stale"
[ ! -e "$out/stale/chart.png" ] && [ ! -e "$out/stale/chart.gp" ] && [ ! -e "$out/stale/chart.dat" ] && ok ||
  fail "a run that draws no chart removes the previous run's chart files"

for f in "$SRC"/scenarios/*.yaml; do
  expect_rc 0 "scenario $(basename "$f")" "$AIFSIM" run "$f" -j 2 -o "$out/sc-$(basename "$f" .yaml)"
done

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
