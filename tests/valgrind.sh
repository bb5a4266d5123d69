#!/bin/sh
# valgrind.sh — run, validate, plan and plot under valgrind's memcheck (in one process: -j 1, as
# forked workers end with _exit and leave the parent's buffers behind): no invalid read or write, no
# use of uninitialised memory, no definite leak in aifsim's own code (tests/valgrind.supp holds
# fontconfig's caches, the only suppression). Skipped where valgrind is missing or the build uses
# AddressSanitizer (the two cannot run together). Run by `make check` with AIFSIM and AIF_SRCDIR set.
set -u
AIFSIM=${AIFSIM:-./aifsim}
SRC=${AIF_SRCDIR:-.}
if ! command -v valgrind >/dev/null 2>&1; then
  echo "SKIP: valgrind not installed"; exit 77
fi
if ldd "$AIFSIM" 2>/dev/null | grep -q 'libasan'; then
  echo "SKIP: an AddressSanitizer build"; exit 77
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/aifsim-vg-XXXXXX")
trap 'rm -rf "$out"' EXIT
passed=0 failed=0
vg() {
  what=$1; shift
  if valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
      --suppressions="$SRC/tests/valgrind.supp" "$@" >"$out/stdout" 2>"$out/stderr"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL: $what under valgrind"; cat "$out/stderr"
  fi
}
cat >"$out/s.yaml" <<'YAML'
name: vg
system: [h200-sxm-hgx8, gb200-nvl72]
model: llama-3.3-70b
workload: {input: 1024, output: 256, arrival: {users: [4, 32]}, requests: 100}
serving: {engine: [steady, des], mode: [aggregated, disaggregated], aggregated: {tp: [4, 8]},
          disaggregated: {prefill: {tp: 4}, decode: {tp: 4}}}
YAML
vg "run" "$AIFSIM" run "$out/s.yaml" -o "$out/run" -j 1
vg "validate" "$AIFSIM" validate "$SRC/tests/fuzz/corpus/measured/agg-concurrency.csv" -o "$out/pred.csv"
vg "plan" "$AIFSIM" plan "$SRC/scenarios/gtc-100mw.yaml" -o "$out/plan" -j 1
vg "plot" "$AIFSIM" plot "$out/run/results.csv" -o "$out/chart.png"
echo "valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
