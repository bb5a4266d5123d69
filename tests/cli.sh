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
[ "$(wc -l <"$out/a/results.csv")" -eq 31 ] && ok || fail "default scenario gives 30 rows"
[ "$(wc -l <"$out/a/results.jsonl")" -eq 30 ] && ok || fail "results.jsonl has 30 lines"
[ -s "$out/a/scenario.resolved.yaml" ] && [ -s "$out/a/catalog/llm/llama-3.3-70b.yaml" ] && ok || fail "resolved scenario and catalog written"
ls -a "$out/a" | grep -q '\.[A-Z0-9]\{6\}$' && fail "temporary files left behind" || ok
expect_rc 0 "run default again" "$AIFSIM" run -o "$out/b"
cmp -s "$out/a/results.csv" "$out/b/results.csv" && cmp -s "$out/a/results.jsonl" "$out/b/results.jsonl" && ok || fail "same scenario + seed = same bytes"
expect_rc 0 "rerun from the resolved scenario" "$AIFSIM" run "$out/a/scenario.resolved.yaml" --catalog "$out/a/catalog" -o "$out/c"
cmp -s "$out/a/results.csv" "$out/c/results.csv" && ok || fail "the resolved scenario reproduces the results"
expect_rc 0 "run with --seed" "$AIFSIM" run "$SRC/scenarios/example-full.yaml" --seed 9 -o "$out/d"
grep -q '^seed: 9$' "$out/d/scenario.resolved.yaml" && ok || fail "--seed recorded in the resolved scenario"
expect_rc 2 "negative seed" "$AIFSIM" run --seed -3 -o "$out/e"

# the model fills the required columns of the default run
awk -F, 'NR > 1 && ($5 != "ok" || $9 == "" || $10 == "" || $12 == "" || $13 == "") { bad = 1 } END { exit bad }' "$out/a/results.csv" && ok || fail "default run: every point ok with tok/s/user, tok/s/GPU, TTFT and TPOT"

# validate: a measured file in, predictions and an error table out
cat >"$out/m.csv" <<'CSV'
id,source_kind,system,gpus,model,precision,isl,osl,concurrency,scenario,mode,tp,ep,dp_attention,prefill_workers,prefill_tp,prefill_ep,prefill_dp_attention,decode_workers,decode_tp,decode_ep,decode_dp_attention,prefill_gpus,decode_gpus,spec_decode,framework,out_tok_s_per_gpu,tok_s_per_user,tpot_ms,ttft_ms
r1,inferencex,h200-sxm-hgx8,8,deepseek-r1,fp8,1024,1024,16,concurrency,agg,8,8,0,,,,,,,,,,,none,trt,100,50,20,150
r2,inferencex,h200-sxm-hgx8,8,deepseek-r1,fp4,1024,1024,16,concurrency,agg,8,8,0,,,,,,,,,,,none,trt,100,50,20,150
CSV
expect_rc 0 "validate" "$AIFSIM" validate "$out/m.csv" -o "$out/pred.csv"
grep -q '^all ' "$out/stdout" && ok || fail "validate prints the error table"
grep -q '^r1,ok,,[0-9]' "$out/pred.csv" && ok || fail "validate predicts the H200 row"
grep -q '^r2,infeasible,h200-sxm-hgx8 has no fp4 tensor cores' "$out/pred.csv" && ok || fail "fp4 on Hopper is infeasible with its reason"
expect_rc 2 "validate a missing file" "$AIFSIM" validate "$out/nothing.csv"
expect_rc 0 "fit (no rounds) writes a loadable profile" "$AIFSIM" fit "$out/m.csv" --rounds 0 -o "$out/p.yaml"
expect_rc 0 "validate with that profile" "$AIFSIM" validate "$out/m.csv" --profile "$out/p.yaml"

# plan: the best configuration per system, and its factory
expect_rc 0 "plan" "$AIFSIM" plan "$SRC/scenarios/gtc-100mw.yaml" -o "$out/plan"
[ "$(wc -l <"$out/plan/plan.csv")" -eq 3 ] && ok || fail "plan.csv has one row per system"
grep -q '^h100-sxm-hgx8,"agg' "$out/plan/plan.csv" && grep -q '^gb200-nvl72,"agg' "$out/plan/plan.csv" && ok || fail "plan picks a configuration for each system"
grep -q 'tok/s/MW' "$out/stdout" && ok || fail "plan prints its table"
expect_rc 0 "plan with an impossible SLO" "$AIFSIM" plan "$SRC/scenarios/gtc-100mw.yaml" -o "$out/plan2" --min-tok-s-per-user 100000
grep -q 'no configuration meets the SLO' "$out/stdout" && ok || fail "plan says when nothing meets the SLO"
expect_rc 2 "plan with a bad TTFT" "$AIFSIM" plan "$SRC/scenarios/gtc-100mw.yaml" -o "$out/plan3" --max-ttft fast
expect_err "'plan.max_ttft' expects a number with a unit like '2 us', got 'fast'" "plan --max-ttft error"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
