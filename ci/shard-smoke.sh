#!/usr/bin/env bash
# Shards and merge through the tool (issue 14): bake --tiles K/N and rectangles into
# partial bake files, onepath merge gives the one-machine file byte for byte (in any
# order of the parts), inspect shows a part; merge refuses a missing, duplicated or
# foreign part with the tiles and files named and leaves no file; --tiles mistakes are
# usage errors; a shard killed half way leaves no file at its --out.
set -euo pipefail
. "$(dirname "$0")/smoke-lib.sh" "$@"

w=(--demo --demo-size 512 --tile-size 64 --threads 2 --quiet)
check whole 0 "$bin" bake "${w[@]}" --out "$tmp/whole.opbake" --with-regions --raw
for k in 1 2 3; do
  check "shard-$k" 0 "$bin" bake "${w[@]}" --tiles "$k/3" --out "$tmp/p$k.opbake" --with-regions --raw
done
check merge 0 "$bin" merge "$tmp/p2.opbake" "$tmp/p3.opbake" "$tmp/p1.opbake" --out "$tmp/m.opbake"
same "$tmp/whole.opbake" "$tmp/m.opbake" "merged 1/3 2/3 3/3"
grep -q "64 tiles from 3 parts" "$tmp/out" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL merge summary"; cat "$tmp/out"; }
# The README's two commands (smaller): eight shards in a directory, merge part*.opbake.
mkdir "$tmp/farm"
for k in 1 2 3 4 5 6 7 8; do
  check "readme-shard-$k" 0 "$bin" bake --demo --demo-size 512 --tile-size 64 --tiles "$k/8" \
    --out "$tmp/farm/part$k.opbake" --quiet
done
(cd "$tmp/farm" && "$bin" merge part*.opbake --out world.opbake --quiet) && pass=$((pass+1)) ||
  { fail=$((fail+1)); echo "FAIL readme merge"; }
check readme-whole 0 "$bin" bake --demo --demo-size 512 --tile-size 64 --out "$tmp/farm.whole" --quiet
same "$tmp/farm.whole" "$tmp/farm/world.opbake" "README shards merged"
check rect-a 0 "$bin" bake "${w[@]}" --tiles 0-7,0-3 --out "$tmp/ra.opbake" --with-regions --raw
check rect-b 0 "$bin" bake "${w[@]}" --tiles 0-7,4-7 --out "$tmp/rb.opbake" --with-regions --raw
check merge-rect 0 "$bin" merge "$tmp/rb.opbake" "$tmp/ra.opbake" --out "$tmp/mr.opbake" --quiet
same "$tmp/whole.opbake" "$tmp/mr.opbake" "merged rectangles"
check inspect-part 0 "$bin" inspect "$tmp/p2.opbake" --tiles
grep -q "part .* of 64 tiles" "$tmp/out" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL inspect part"; cat "$tmp/out"; }

check_err missing 3 "in none of the 2 parts" "$bin" merge "$tmp/p1.opbake" "$tmp/p3.opbake" --out "$tmp/x.opbake"
absent "$tmp/x.opbake" missing
check_err duplicated 3 "is in both" "$bin" merge "$tmp/p1.opbake" "$tmp/p2.opbake" "$tmp/p2.opbake" "$tmp/p3.opbake" --out "$tmp/x.opbake"
check_err overlapping 3 "tile (0, 0) is in both" "$bin" merge "$tmp/p1.opbake" "$tmp/ra.opbake" --out "$tmp/x.opbake"
check foreign-part 0 "$bin" bake --demo --demo-size 448 --tile-size 64 --threads 2 --quiet --tiles 3/3 --out "$tmp/f3.opbake" --with-regions --raw
check_err foreign 3 "another world" "$bin" merge "$tmp/p1.opbake" "$tmp/p2.opbake" "$tmp/f3.opbake" --out "$tmp/x.opbake"
check other-settings 0 "$bin" bake "${w[@]}" --max-error 2 --tiles 3/3 --out "$tmp/s3.opbake" --with-regions --raw
check_err settings 3 "other settings" "$bin" merge "$tmp/p1.opbake" "$tmp/p2.opbake" "$tmp/s3.opbake" --out "$tmp/x.opbake"
check no-regions 0 "$bin" bake "${w[@]}" --tiles 3/3 --out "$tmp/n3.opbake"
check_err contents 3 "other contents" "$bin" merge "$tmp/p1.opbake" "$tmp/p2.opbake" "$tmp/n3.opbake" --out "$tmp/x.opbake"
absent "$tmp/x.opbake" "refused merges"

check_err tiles-without-out 2 "--out PART.opbake" "$bin" bake "${w[@]}" --tiles 1/2
check_err tiles-syntax 2 "tile range" "$bin" bake "${w[@]}" --tiles 2-1,0 --out "$tmp/y.opbake"
check_err tiles-cut 2 "1 <= K <= N" "$bin" bake "${w[@]}" --tiles 4/3 --out "$tmp/y.opbake"
check_err tiles-outside 2 "outside the 8 x 8 tiles" "$bin" bake "${w[@]}" --tiles 0-8,0 --out "$tmp/y.opbake"
check_err tiles-without-tile-size 2 "--tile-size" "$bin" bake --demo --tiles 1/2 --out "$tmp/y.opbake"
check_err merge-without-out 2 "--out" "$bin" merge "$tmp/p1.opbake"
check_err merge-nothing 2 "no part files" "$bin" merge --out "$tmp/y.opbake"
absent "$tmp/y.opbake" "usage errors"

# A shard killed half way leaves nothing at its --out (the file is renamed into place only
# when complete); only counted when the kill came before the bake ended.
"$bin" bake --demo --demo-size 2048 --tile-size 128 --threads 1 --quiet --tiles 1/2 \
  --out "$tmp/killed.opbake" & pid=$!
sleep 1
if kill -9 "$pid" 2>/dev/null; then
  wait "$pid" 2>/dev/null || true
  absent "$tmp/killed.opbake" "killed shard"
else
  wait "$pid" || true
  echo "note: the shard finished before the kill; the killed-shard check did not run"
fi
smoke_summary "shard smoke"
