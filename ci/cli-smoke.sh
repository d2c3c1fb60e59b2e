#!/usr/bin/env bash
# The command-line tool end to end: demo bake with every output, an OBJ mesh, a
# heightmap, OPCHF1 round trip, verify, and the exit codes of bad input and bad usage.
set -euo pipefail
build=${1:-build}
bin="$build/onepath"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # name, expected exit code, command...
  local name=$1 want=$2; shift 2
  local got=0
  "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
  if [ "$got" = "$want" ]; then pass=$((pass+1)); else
    fail=$((fail+1)); echo "FAIL $name: exit $got, expected $want"; cat "$tmp/out" "$tmp/err"; fi
}
check help 0 "$bin" --help
check bake-help 0 "$bin" bake --help
check demo 0 "$bin" bake --demo --demo-size 256 --quiet --json "$tmp/d.json" --png "$tmp/d.png" \
  --svg "$tmp/d.svg" --out-chf "$tmp/d.opchf" --out-dist "$tmp/d.dst" --out-regions "$tmp/d.reg" \
  --out-contours "$tmp/d.contours.json" --raw
check json-has-digests 0 grep -q '"contours"' "$tmp/d.json"
check chf-rebake 0 "$bin" bake --chf "$tmp/d.opchf" --quiet --json "$tmp/c.json"
# The same compact heightfield from the file gives the same downstream digests.
check chf-same-digests 0 python3 - "$tmp/d.json" "$tmp/c.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["digests"] for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
cat > "$tmp/box.obj" <<'OBJ'
# a floor with a box on it
v 0 0 0
v 20 0 0
v 20 0 20
v 0 0 20
v 8 0 8
v 12 0 8
v 12 3 8
v 8 3 8
v 8 0 12
v 12 0 12
v 12 3 12
v 8 3 12
f 1 4 3 2
f 8 12 11 7
f 5 6 7 8
f 6 10 11 7
f 10 9 12 11
f 9 5 8 12
OBJ
check obj 0 "$bin" bake "$tmp/box.obj" --quiet --json "$tmp/o.json"
printf 'v 0 0 0\nv 1 0 0\nf 1 2 7\n' > "$tmp/bad.obj"
check bad-obj 3 "$bin" bake "$tmp/bad.obj" --quiet
check missing-file 3 "$bin" bake "$tmp/nope.obj" --quiet
check bad-option 2 "$bin" bake --demo --frobnicate
check bad-value 2 "$bin" bake --demo --cs -1
check bad-partition 2 "$bin" bake --demo --partition voronoi
check no-input 2 "$bin" bake
head -c 100 "$tmp/d.opchf" > "$tmp/trunc.opchf"
check truncated-chf 3 "$bin" bake --chf "$tmp/trunc.opchf" --quiet
check verify 0 "$bin" verify --demo --demo-size 128 --quiet
check isa 0 "$bin" isa
echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
