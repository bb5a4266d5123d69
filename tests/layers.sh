#!/bin/sh
# layers.sh — the source folders include only the layers below them (sim/README.md), so the data
# flows one way and no folder includes another that includes it back. Run by `make check`.
set -u
SRC=${AIF_SRCDIR:-.}
cd "$SRC" || exit 1
# folder rank: a file may include headers of its own folder and of folders with a lower rank
rank() {
  case $1 in
    models) echo 0 ;; sim/util) echo 1 ;; sim/scenario|sim/event) echo 2 ;; sim/serving) echo 3 ;;
    sim) echo 4 ;; plots) echo 5 ;; sim/cli) echo 6 ;; *) echo -1 ;;
  esac
}
folders="models sim/util sim/scenario sim/event sim/serving sim plots sim/cli"
passed=0 failed=0
for dir in $folders; do
  r=$(rank "$dir")
  for f in "$dir"/*.c "$dir"/*.h; do
    [ -f "$f" ] || continue
    for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
      owner=""
      for d in $folders; do [ -f "$d/$h" ] && owner=$d; done
      [ -z "$owner" ] || [ "$owner" = "$dir" ] && continue
      if [ "$(rank "$owner")" -lt "$r" ]; then
        passed=$((passed + 1))
      else
        failed=$((failed + 1)); echo "FAIL: $f includes $owner/$h: $owner is not below $dir"
      fi
    done
  done
done
echo "layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
