#!/usr/bin/env bash
# The tile cache through the tool (issue 13): bake --out-cache, update with the shipped
# demo events (tests/data/cache-demo-events.json) and --check on every step, the same
# digests for 1 and 3 threads, the last step (every obstacle removed) gives step 0's
# digest, a saved cache reloads to the same digest, --json and --png, bad events refused
# with step, line and column and nothing applied (exit 3), a truncated or corrupted cache
# refused with its offset (exit 3), --out-cache without --partition layers or with --tiles
# (exit 2), --check finding another mesh (exit 1).
set -euo pipefail
. "$(dirname "$0")/smoke-lib.sh" "$@"
events="$(cd "$(dirname "$0")/.." && pwd)/tests/data/cache-demo-events.json"

check bake-cache 0 "$bin" bake --demo --demo-size 512 --tile-size 64 --partition layers \
  --out-cache "$tmp/demo.opcache" --json "$tmp/bake.json" --quiet
bake_digest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digests"]["tiles"])' "$tmp/bake.json")

check update-check 0 "$bin" update "$tmp/demo.opcache" --events "$events" --check --threads 2 \
  --json "$tmp/up.json" --png "$tmp/up.png"
cp "$tmp/out" "$tmp/steps2"
steps=$(grep -c '^step [0-9]* rebuilt=[0-9]* ms=[0-9.]* digest=[0-9a-f]\{16\} check=same' "$tmp/steps2" || true)
want=$(( $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$events") + 1 ))
[ "$steps" = "$want" ] && ok || no "update --check: $steps checked step lines, expected $want"
first=$(sed -n 's/^step 0 .*digest=\([0-9a-f]*\).*/\1/p' "$tmp/steps2")
last=$(tail -1 "$tmp/steps2" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p')
[ "$first" = "$bake_digest" ] && ok || no "step 0 digest $first is not the bake's $bake_digest"
[ "$last" = "$first" ] && ok || no "removing every obstacle: digest $last, step 0 had $first"
[ -s "$tmp/up.png" ] && ok || no "no picture"
check json-fields 0 python3 - "$tmp/up.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["steps"]
assert s[0]["op"] == "load" and s[0]["rebuilt"] == j["tiles"] == 64, s[0]
assert all(x["check"] == "same" for x in s), "a step without check"
assert all(0 < x["rebuilt"] < 64 and len(x["tiles"]) == x["rebuilt"] for x in s[1:]), "rebuilt"
assert j["bytes"]["file"] > 0 and j["bytes"]["memory"] > 0
PY

for t in 1 3; do
  check "update-threads-$t" 0 "$bin" update "$tmp/demo.opcache" --events "$events" --threads $t \
    --out-cache "$tmp/after$t.opcache"
  sed 's/ ms=[0-9.]*//' "$tmp/out" > "$tmp/steps$t"
  sed 's/ ms=[0-9.]*//; s/ check=.*//' "$tmp/steps2" | diff -q - "$tmp/steps$t" >/dev/null && ok ||
    no "update with $t threads prints other digests"
done
cmp -s "$tmp/after1.opcache" "$tmp/after3.opcache" && ok || no "saved caches differ between 1 and 3 threads"
check reload 0 "$bin" update "$tmp/after1.opcache"
grep -q "^step 0 rebuilt=64 ms=[0-9.]* digest=$last" "$tmp/out" && ok || no "the saved cache does not reload to $last"

printf '[{"op": "add", "id": 1, "shape": "box", "min": [1, 0, 1], "max": [3, 9, 3], "area": 0},\n {"op": "move", "id": 2, "offset": [1, 0, 0]}]\n' > "$tmp/bad.json"
check_err bad-step 3 "step 2 (line 2, column 23): no obstacle has id 2" \
  "$bin" update "$tmp/demo.opcache" --events "$tmp/bad.json"
grep -q '^step' "$tmp/out" && no "a bad events file still ran steps" || ok
printf '[{"op": "add", "id": 1, "shape": "prism", "points": [[0, 0], [4, 0], [1, 1], [4, 4]], "ymin": 0, "ymax": 9, "area": 0}]' > "$tmp/bad2.json"
check_err non-convex 3 "not convex" "$bin" update "$tmp/demo.opcache" --events "$tmp/bad2.json"
printf '[{"op": "remove", "id": 1},]' > "$tmp/bad3.json"
check_err bad-json 3 "line 1, column 28: trailing comma" "$bin" update "$tmp/demo.opcache" --events "$tmp/bad3.json"

head -c 20000 "$tmp/demo.opcache" > "$tmp/trunc.opcache"
check_err truncated 3 "truncated" "$bin" update "$tmp/trunc.opcache"
grep -q "offset [0-9]*" "$tmp/err" && ok || no "truncation without an offset"
cp "$tmp/demo.opcache" "$tmp/bad.opcache"
printf '\x55' | dd of="$tmp/bad.opcache" bs=1 seek=9000 conv=notrunc status=none
check_err corrupted 3 "checksum mismatch" "$bin" update "$tmp/bad.opcache"
check_err cache-needs-layers 2 "--partition layers" "$bin" bake --demo --demo-size 256 \
  --tile-size 64 --out-cache "$tmp/x.opcache"
check_err cache-needs-tiles 2 "--tile-size" "$bin" bake --demo --demo-size 256 --partition layers \
  --out-cache "$tmp/x.opcache"
check_err input-without-check 2 "--input goes with --check" "$bin" update "$tmp/demo.opcache" \
  --input "$tmp/x.obj"
check_err cache-not-with-tiles 2 "does not go with --tiles" "$bin" bake --demo --demo-size 256 \
  --tile-size 64 --partition layers --out-cache "$tmp/x.opcache" --tiles 1/2 --out "$tmp/p.opbake"

# --check finds a difference (exit 1): a cache baked from an OBJ, checked against another
# input with the same bounds (half the floor: tiles differ) and against one whose extra
# geometry lies outside the cache's bounds (same tiles, another world digest).
printf 'v 0 0 0\nv 20 0 0\nv 20 0 20\nv 0 0 20\nf 1 3 2\nf 1 4 3\n' > "$tmp/floor.obj"
head -5 "$tmp/floor.obj" > "$tmp/half.obj"
cp "$tmp/floor.obj" "$tmp/above.obj"
printf 'v 8 3 8\nv 12 3 8\nv 12 3 12\nf 5 7 6\n' >> "$tmp/above.obj"
check floor-cache 0 "$bin" bake "$tmp/floor.obj" --tile-size 32 --partition layers \
  --out-cache "$tmp/floor.opcache" --quiet
check floor-check 0 "$bin" update "$tmp/floor.opcache" --check
check_err check-differs 1 "step 0: tile (0, 0) differs" \
  "$bin" update "$tmp/floor.opcache" --check --input "$tmp/half.obj"
check_err check-other-world 1 "the world digests differ" \
  "$bin" update "$tmp/floor.opcache" --check --input "$tmp/above.obj"
smoke_summary "cache smoke"
