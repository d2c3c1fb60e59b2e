#!/usr/bin/env bash
# The tiled bake end to end through the tool (issue 11): bake with tiles and threads,
# the bake file and `onepath inspect`, the same digest for every thread count, a
# corrupted or truncated bake file refused (exit 3), tile options without --tile-size
# refused (exit 2) but --threads inside one grid, verify with its thread and
# tiled-vs-solo checks.
set -euo pipefail
. "$(dirname "$0")/smoke-lib.sh" "$@"
digest_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digests"]["tiles"])' "$1"; }

check tiled 0 "$bin" bake --demo --demo-size 512 --tile-size 100 --threads 2 --quiet \
  --out "$tmp/a.opbake" --with-regions --raw --json "$tmp/a.json" --png "$tmp/a.png" --svg "$tmp/a.svg"
for t in 1 3 8; do
  check "tiled-threads-$t" 0 "$bin" bake --demo --demo-size 512 --tile-size 100 --threads $t \
    --quiet --json "$tmp/t$t.json"
  [ "$(digest_of "$tmp/t$t.json")" = "$(digest_of "$tmp/a.json")" ] && pass=$((pass+1)) ||
    { fail=$((fail+1)); echo "FAIL digest with $t threads differs"; }
done
OMP_NUM_THREADS=3 check tiled-omp-env 0 "$bin" bake --demo --demo-size 512 --tile-size 100 --quiet \
  --json "$tmp/env.json"
grep -q '"threads": 3' "$tmp/env.json" && pass=$((pass+1)) ||
  { grep -q '"threads": 1' "$tmp/env.json" && pass=$((pass+1)); } ||
  { fail=$((fail+1)); echo "FAIL OMP_NUM_THREADS=3 not used"; }
check json-fields 0 python3 - "$tmp/a.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t, ms = j["tiles"], j["ms"]
assert t["count"] == 36 and t["tile_size"] == 100 and t["threads"] >= 1, t
assert t["largest"]["spans"] > 0 and "tiles" in j["digests"] and j["peak_rss_mib"] > 0
for k in ("setup", "bin", "tiles", "assemble", "total"): assert ms[k] >= 0, k
for k in ("rasterize", "distance", "regions", "contours"): assert k in ms["stages_summed_over_threads"]
PY
check inspect 0 "$bin" inspect "$tmp/a.opbake" --tiles
grep -q "intact" "$tmp/out" && grep -q "per-span region ids" "$tmp/out" && pass=$((pass+1)) ||
  { fail=$((fail+1)); echo "FAIL inspect summary"; cat "$tmp/out"; }
grep -q "$(digest_of "$tmp/a.json")" "$tmp/out" && pass=$((pass+1)) ||
  { fail=$((fail+1)); echo "FAIL inspect digest differs from the bake's"; }
head -c 5000 "$tmp/a.opbake" > "$tmp/trunc.opbake"
check_err inspect-truncated 3 "truncated" "$bin" inspect "$tmp/trunc.opbake"
cp "$tmp/a.opbake" "$tmp/bad.opbake"
printf '\x55' | dd of="$tmp/bad.opbake" bs=1 seek=3000 conv=notrunc status=none
check_err inspect-corrupted 3 "checksum mismatch" "$bin" inspect "$tmp/bad.opbake"
# Without --tile-size, --threads are threads inside the one grid: the same digests.
check solo-threads-1 0 "$bin" bake --demo --demo-size 384 --threads 1 --quiet --json "$tmp/s1.json"
check solo-threads-3 0 "$bin" bake --demo --demo-size 384 --threads 3 --quiet --json "$tmp/s3.json"
check solo-threads-same 0 python3 - "$tmp/s1.json" "$tmp/s3.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["digests"] == b["digests"], (a["digests"], b["digests"])
assert a["threads"] == 1 and b["threads"] in (1, 3), (a["threads"], b["threads"])
PY
check_err border-without-tiles 2 "--tile-size" "$bin" bake --demo --border 2
check_err out-without-tiles 2 "--tile-size" "$bin" bake --demo --out "$tmp/x.opbake"
check_err solo-output-with-tiles 2 "--out FILE.opbake" "$bin" bake --demo --tile-size 64 --out-chf "$tmp/x.opchf"
check_err tiles-with-chf 2 "spans-stage" "$bin" bake --chf "$tmp/trunc.opbake" --tile-size 64
check tiled-until-spans 0 "$bin" bake --demo --demo-size 256 --tile-size 64 --until spans --quiet --out "$tmp/s.opbake"
check inspect-spans 0 "$bin" inspect "$tmp/s.opbake"
check verify-tiles 0 "$bin" verify --demo --demo-size 256 --tile-size 48 --quiet --isa scalar
grep -q "same as 1 thread" "$tmp/out" && grep -q "owned cells equal" "$tmp/out" &&
  grep -q "scalar/8t .* same as 1 thread" "$tmp/out" && pass=$((pass+1)) ||
  { fail=$((fail+1)); echo "FAIL verify lacks the tiled checks"; cat "$tmp/out"; }
smoke_summary "tiles smoke"
