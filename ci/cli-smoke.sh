#!/usr/bin/env bash
# The command-line tool end to end: demo bake with every output, an OBJ mesh, a
# heightmap, OPCHF1 round trip, verify, and the exit codes of bad input and bad usage.
set -euo pipefail
. "$(dirname "$0")/smoke-lib.sh" "$@"
check help 0 "$bin" --help
check bake-help 0 "$bin" bake --help
check demo 0 "$bin" bake --demo --demo-size 256 --quiet --json "$tmp/d.json" --png "$tmp/d.png" \
  --svg "$tmp/d.svg" --out-chf "$tmp/d.opchf" --out-dist "$tmp/d.dst" --out-regions "$tmp/d.reg" \
  --out-contours "$tmp/d.contours.json" --raw
check json-has-digests 0 grep -q '"contours"' "$tmp/d.json"
check json-has-memory 0 python3 - "$tmp/d.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
assert m["input_bytes"] > 0 and m["peak_bytes"] > 0, m
PY
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
# Issue 10: a grid binary32 cannot resolve, and a height range 16 bits cannot hold.
printf 'v 1000000 0 1000000\nv 1000000.5 0 1000000.3\nv 1000000.2 0 1000000.9\nf 1 3 2\n' > "$tmp/far.obj"
check far-grid 2 "$bin" bake "$tmp/far.obj" --cs 0.01 --quiet
cp "$tmp/err" "$tmp/far.err"
check far-grid-says-why 0 grep -q "binary32 values are 0.0625 apart" "$tmp/far.err"
printf 'v 0 0 0\nv 9 0 9\nv 9 0 0\nv 0 20000 0\nv 9 20000 9\nv 9 20000 0\nf 1 2 3\nf 4 5 6\n' > "$tmp/tall.obj"
check tall-range 2 "$bin" bake "$tmp/tall.obj" --quiet
check missing-file 3 "$bin" bake "$tmp/nope.obj" --quiet
check bad-option 2 "$bin" bake --demo --frobnicate
check bad-value 2 "$bin" bake --demo --cs -1
check bad-partition 2 "$bin" bake --demo --partition voronoi
check no-input 2 "$bin" bake
head -c 100 "$tmp/d.opchf" > "$tmp/trunc.opchf"
check truncated-chf 3 "$bin" bake --chf "$tmp/trunc.opchf" --quiet
check verify 0 "$bin" verify --demo --demo-size 128 --quiet
# The default 512 cells: tiles of more than 4096 spans (kernel chunks cross spans there).
check verify-512 0 "$bin" verify --demo --quiet
check isa 0 "$bin" isa

# --- One option parser for bake, verify and digest (issue 9) ---
for cmd in bake verify digest; do
  check "$cmd-help" 0 "$bin" $cmd --help
  cp "$tmp/out" "$tmp/help-$cmd"
  for opt in --demo --chf --cs --bmin --bmax --partition --max-error --isa --quiet; do
    grep -q -- "^  .*$opt\b" "$tmp/help-$cmd" || { fail=$((fail+1)); echo "FAIL $cmd --help lacks $opt"; }
  done
done
check bake-help-defaults 0 grep -qF -- '--cs F                 cell size, world units (default: 0.3)' \
  "$tmp/help-bake"
check bake-help-outputs 0 grep -qF -- '--json FILE' "$tmp/help-bake"
check_err help-value-kinds 2 "must be one of watershed, monotone, layers" \
  "$bin" digest --demo --partition voronoi
check_err digest-unknown 2 "unknown option '--frobnicate'" "$bin" digest --demo --frobnicate
check_err verify-unknown 2 "unknown option '--until'" "$bin" verify --demo --until spans
check_err missing-value 2 "--cs needs a value" "$bin" bake --demo --cs
check_err flag-value 2 "--demo takes no value" "$bin" bake --demo=1
check_err int-range 2 "--demo-size must be an integer in [64, 16384]" "$bin" bake --demo --demo-size 20000
check_err two-inputs 2 "more than one input file" "$bin" bake a.obj b.obj
check eq-form 0 "$bin" digest --demo --demo-size=64 --until=spans --quiet
check digest-quiet 0 "$bin" digest --demo --demo-size 64 -q
check verify-isa-list 0 "$bin" verify --demo --demo-size 64 --isa scalar --isa portable --isa scalar --quiet
cp "$tmp/out" "$tmp/verify-isa"
check verify-isa-rows 0 grep -q "^watershed  *portable .*same as scalar" "$tmp/verify-isa"
check verify-isa-two 0 grep -q "3 partition(s) x 2 variant(s)" "$tmp/verify-isa"

# A file-name option refuses a value that looks like an option (it wrote a file named
# --quiet before); after "--" or as ./--quiet such a name is fine.
cd "$tmp"
check_err json-takes-option 2 "--json needs a file name, got '--quiet'" \
  "$bin" bake --demo --demo-size 64 --json --quiet
check json-takes-option-no-file 1 test -e ./--quiet
check_err json-eq-option 2 "--json needs a file name" "$bin" bake --demo --demo-size 64 --json=--x
check_err png-takes-option 2 "--png needs a file name" "$bin" bake --demo --png --svg x.svg
check json-dot-slash 0 "$bin" bake --demo --demo-size 64 --quiet --json ./--quiet
check json-dot-slash-file 0 test -s ./--quiet
cd - >/dev/null

# Issue 10 defect 2: --bmin sets bmin (it was stored into bmax): the box 2..12 x 4..10 at
# cs 0.5 is a 20 x 12 grid.
check bounds 0 "$bin" bake "$tmp/box.obj" --quiet --cs 0.5 --bmin 2,-1,4 --bmax 12,5,10 \
  --json "$tmp/b.json"
check bounds-grid 0 python3 - "$tmp/b.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["grid"]
ok = (g["width"], g["depth"], g["bmin"], g["bmax"][:2]) == (20, 12, [2, -1, 4], [12, 5])
print(g)
sys.exit(0 if ok else 1)
PY
check bounds-negative 0 "$bin" bake "$tmp/box.obj" --quiet --bmin -5,-1,-5 --bmax 5,5,5 --cs 1 \
  --json "$tmp/bn.json"
check bounds-negative-grid 0 grep -q '"width": 10' "$tmp/bn.json"
check_err bmin-alone 2 "--bmin needs --bmax as well" "$bin" bake "$tmp/box.obj" --bmin 0,0,0

# Options that do not apply to the input are errors, above all spans-stage settings with
# an OPCHF1 field (which skips that stage).
for opt in "--cs 0.5" "--ch 0.1" "--slope 30" "--walkable-height 5" "--walkable-climb 2" \
           "--walkable-radius 1" "--bmin 0,0,0 --bmax 1,1,1"; do
  name=${opt%% *}
  check_err "chf$name" 2 "$name is a spans-stage setting" "$bin" bake --chf "$tmp/d.opchf" $opt
  check_err "chf-positional$name" 2 "$name is a spans-stage setting" "$bin" digest "$tmp/d.opchf" $opt
done
check_err chf-verify 2 "--cs is a spans-stage setting" "$bin" verify --chf "$tmp/d.opchf" --cs 0.5
check_err demo-size-obj 2 "--demo-size does not apply" "$bin" bake "$tmp/box.obj" --demo-size 128
check_err hm-obj 2 "--hm-scale does not apply" "$bin" bake "$tmp/box.obj" --hm-scale 2
check_err width-demo 2 "--width does not apply" "$bin" bake --demo --width 64
check_err chf-and-file 2 "give either --chf" "$bin" bake --chf "$tmp/d.opchf" "$tmp/box.obj"
check chf-regions 0 "$bin" bake --chf "$tmp/d.opchf" --partition layers --max-error 0 --quiet

# The summary line with --chf: no spans-stage time, no "(, ".
check chf-summary 0 "$bin" bake --chf "$tmp/d.opchf"
if grep -qE '\(, |spans [0-9]|\(\)' "$tmp/out" || ! grep -q 'spans stage skipped' "$tmp/out"; then
  fail=$((fail+1)); echo "FAIL chf-summary:"; cat "$tmp/out"; fi
check chf-summary-spans 0 "$bin" bake --chf "$tmp/d.opchf" --until spans
if grep -qE '\(|\)$' <(sed -n 2p "$tmp/out"); then
  fail=$((fail+1)); echo "FAIL chf-summary-spans:"; cat "$tmp/out"; fi
check chf-json-no-slope 0 python3 - "$tmp/c.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["settings"]
sys.exit(0 if "walkable_slope_deg" not in s and "walkable_radius" not in s and s["cs"] == 0.3 else 1)
PY

# ONEPATH_ISA with a value the library would ignore is refused, like --isa.
check_err isa-env-unknown 2 "ONEPATH_ISA='bogus' is not a kernel variant" \
  env ONEPATH_ISA=bogus "$bin" bake --demo --demo-size 64 --quiet
check_err isa-env-digest 2 "ONEPATH_ISA='bogus'" env ONEPATH_ISA=bogus "$bin" digest --demo --demo-size 64
check isa-env-listed 0 env ONEPATH_ISA=bogus "$bin" isa
cp "$tmp/out" "$tmp/isa-list"
check isa-env-listed-text 0 grep -q "ONEPATH_ISA='bogus' is not a variant name" "$tmp/isa-list"
missing=$("$bin" isa | awk '$2 == "not" {print $1; exit}')
if [ -n "$missing" ]; then
  check_err isa-env-unavailable 2 "ONEPATH_ISA=$missing: this build or CPU does not run" \
    env ONEPATH_ISA="$missing" "$bin" bake --demo --demo-size 64 --quiet
fi
check isa-env-explicit 0 env ONEPATH_ISA=bogus "$bin" bake --demo --demo-size 64 --quiet --isa scalar
check isa-env-scalar 0 env ONEPATH_ISA=scalar "$bin" bake --demo --demo-size 64 --quiet --json "$tmp/s.json"
check isa-env-scalar-used 0 grep -q '"isa": "scalar"' "$tmp/s.json"
check isa-env-auto 0 env ONEPATH_ISA=auto "$bin" bake --demo --demo-size 64 --quiet

# bake --out-obj (bench/recast/): the OBJ reads back to the same triangles, so baking it
# in the demo's grid gives the demo's digests (the terrain: no area volumes, which the OBJ
# does not hold); the full demo's OBJ gives its grid and compact spans (volumes change areas).
check out-obj-terrain 0 "$bin" bake --demo-terrain --demo-size 256 --quiet \
  --out-obj "$tmp/t.obj" --json "$tmp/t.json"
check out-obj-demo 0 "$bin" bake --demo --demo-size 256 --quiet --until spans \
  --out-obj "$tmp/w.obj" --json "$tmp/w.json"
for w in t w; do
  box=$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["grid"]
print("--bmin", ",".join(map(repr, g["bmin"])), "--bmax", ",".join(map(repr, g["bmax"])))' \
    "$tmp/$w.json")
  # shellcheck disable=SC2086
  check "out-obj-rebake-$w" 0 "$bin" bake "$tmp/$w.obj" $box --quiet --until \
    "$([ $w = t ] && echo contours || echo spans)" --json "$tmp/$w.back.json"
done
check out-obj-same-digests 0 python3 - "$tmp/t.json" "$tmp/t.back.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if (a["grid"], a["digests"]) == (b["grid"], b["digests"]) else 1)
PY
check out-obj-same-spans 0 python3 - "$tmp/w.json" "$tmp/w.back.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if (a["grid"], a["spans"]["compact"]) == (b["grid"], b["spans"]["compact"]) else 1)
PY
check_err out-obj-tiled 2 "--out-obj is for the one-grid bake" \
  "$bin" bake --demo --tile-size 64 --out-obj "$tmp/x.obj"
absent "$tmp/x.obj" out-obj-tiled-writes-nothing
check_err out-obj-chf 2 "--out-obj" "$bin" bake --chf "$tmp/d.opchf" --out-obj "$tmp/y.obj"

# JSON numbers: binary32 fields as their shortest text, nothing from the locale (a locale
# with a decimal comma, generated when none is installed).
check json-floats 0 grep -qE '"cs": 0\.3,' "$tmp/d.json"
check json-floats-ch 0 grep -qE '"max_error": 1\.3,' "$tmp/d.json"
locdir=""
locales=$(locale -a 2>/dev/null || true) # not piped into grep -q: SIGPIPE under pipefail
if grep -qi '^de_DE\.utf-\?8$' <<<"$locales"; then
  :
elif [ -f "$build/test-locales/de_DE.UTF-8/LC_NUMERIC" ]; then
  locdir="$build/test-locales"
elif command -v localedef >/dev/null; then
  mkdir -p "$tmp/loc"
  localedef -c -i de_DE -f UTF-8 "$tmp/loc/de_DE.UTF-8" >/dev/null 2>&1 || true
  [ -f "$tmp/loc/de_DE.UTF-8/LC_NUMERIC" ] && locdir="$tmp/loc"
fi
if [ -n "$locdir" ] || grep -qi '^de_DE' <<<"$locales"; then
  check locale-bake 0 env ${locdir:+LOCPATH="$locdir"} LC_ALL=de_DE.UTF-8 "$bin" bake --demo \
    --demo-size 256 --quiet --cs 0.3 --max-error 1.3 --json "$tmp/de.json"
  check locale-json-same 0 python3 - "$tmp/d.json" "$tmp/de.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if (a["settings"], a["grid"], a["digests"]) == (b["settings"], b["grid"], b["digests"]) else 1)
PY
  check locale-json-text 0 grep -qE '"cs": 0\.3,' "$tmp/de.json"
else
  echo "cli: note: no de_DE locale and no localedef; locale checks skipped (the unit test" \
       "test_tools_json_numbers covers the writer)"
fi

smoke_summary "cli"
