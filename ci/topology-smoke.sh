#!/usr/bin/env bash
# `onepath topology` end to end (issues 15 and 16): every option once, the numbers
# supplement §10.14 and docs/formats.md pin, the same digest for any thread count and
# kernel variant, edits with one incremental update equal to a fresh build, sparse
# worlds (Indeterminate), stairs, the picture, and the exit codes of bad input (3) and
# bad usage (2) with their messages. tests/topology/test_topology_tool.c checks the same
# tool against the library; this is the newcomer's view of the command line.
set -euo pipefail
. "$(dirname "$0")/smoke-lib.sh" "$@"
# digest NAME: the region-graph digest of the last command.
digest() { sed -n 's/^digest topology\/region-graph //p' "$tmp/out"; }
topo() { "$bin" topology "$@"; }

# --- help names every option ---
check help 0 topo --help
for opt in --threshold --generate --size --walls --seed --chunk --lattice --floors --stairs \
           --stair-density --sparse --set --set-stair --query --path --png --scale --threads --isa; do
  grep -q -- "^  $opt\b" "$tmp/out" || { fail=$((fail+1)); echo "FAIL help lacks $opt"; }
done

# --- supplement §10.14 and the pinned digest (docs/formats.md) ---
check open-512 0 topo --generate open --query 0,0,511,511 --path 0,0,511,511
has open-512-counts "regions 256 portals 30720"
has open-512-reach "query 0,0,511,511 reachable visited=59"
has open-512-path "path 0,0,511,511 reachable visited=256 regions=31 portals=30 chunks=31 bounds=0,0..512,512"
has open-512-digest "digest topology/region-graph cc41d76dc3627aaf"
# issue 15's world: tess builds 39 488 regions and 123 952 portals on it
check walls-2048 0 topo --generate walls --size 2048 --chunk 64
has walls-2048-counts "regions 39488 portals 123952"

# --- the same graph for any thread count and kernel variant ---
# One chunk (no exits) takes the grid-labelling kernel, so --isa matters there.
for world in "--generate walls --size 200 --chunk 200 --walls 40" \
             "--generate walls --size 200 --chunk 24 --walls 35 --seed 7" \
             "--generate walls --size 120 --chunk 13 --lattice hex"; do
  first=""
  for run in "--threads 1" "--threads 2" "--threads 3" "--isa scalar" "--isa auto --threads 2"; do
    # shellcheck disable=SC2086
    check "same-digest [$world] [$run]" 0 topo $world $run
    d=$(digest)
    if [ -z "$first" ]; then first=$d
    elif [ "$d" = "$first" ]; then pass=$((pass+1))
    else fail=$((fail+1)); echo "FAIL [$world] [$run]: digest $d, first run $first"; fi
  done
done
check hex 0 topo --generate walls --lattice hex --size 50 --chunk 7
has hex-says "axial hex"

# --- PNG inputs: 8-bit and 16-bit grey, --threshold, --png, --scale ---
python3 - "$tmp" <<'PY'
import struct, sys, zlib
out = sys.argv[1]
def png(name, w, h, colour, depth, rows):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    raw = b"".join(b"\0" + r for r in rows)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    open(f"{out}/{name}", "wb").write(data)
# 40 x 30: a wall column at x = 20 with a gap at y = 29; (0,0) is exactly the threshold.
def grey(x, y):
    return 0 if x == 20 and y != 29 else 200
rows8 = [bytes(100 if (x, y) == (0, 0) else grey(x, y) for x in range(40)) for y in range(30)]
png("map8.png", 40, 30, 0, 8, rows8)
rows16 = [b"".join(struct.pack(">H", 257 * v) for v in r) for r in rows8]
png("map16.png", 40, 30, 0, 16, rows16)
png("rgb.png", 4, 4, 2, 8, [b"\xff\0\0" * 4] * 4)
# stairs for a 40 x 30 world: a +x stair at (5,5), a -y stair at (30,12)
st = [bytearray(40) for _ in range(30)]
st[5][5] = 1
st[12][30] = 4
png("stairs.png", 40, 30, 0, 8, [bytes(r) for r in st])
png("stairs-small.png", 8, 8, 0, 8, [bytes(8)] * 8)
d = open(f"{out}/map8.png", "rb").read()
open(f"{out}/trunc.png", "wb").write(d[: len(d) // 2])
open(f"{out}/text.png", "wb").write(b"not a png at all")
PY
check png8 0 topo "$tmp/map8.png" --threshold 100 --chunk 8 --query 0,0,39,0 --query 0,0,19,0 \
  --path 0,0,39,0 --png "$tmp/pic.png" --scale 3
has png8-around-the-wall "query 0,0,39,0 reachable"
has png8-route "path 0,0,39,0 reachable"
d8=$(digest)
check png8-picture 0 python3 -c "import sys; d=open('$tmp/pic.png','rb').read(); sys.exit(d[:8] != b'\x89PNG\r\n\x1a\n' or int.from_bytes(d[16:20],'big') != 120)"
check png8-above-threshold 0 topo "$tmp/map8.png" --threshold 101 --chunk 8 --query 0,0,39,0
has png8-start-blocked "query 0,0,39,0 invalid-start visited=0"
# 16 bits: the same world at 257 times the values (thresholds compare the raw value)
check png16 0 topo "$tmp/map16.png" --threshold 25700 --chunk 8
if [ "$(digest)" = "$d8" ]; then pass=$((pass+1)); else
  fail=$((fail+1)); echo "FAIL png16: digest $(digest), the 8-bit map's $d8"; fi

# --- edits: one incremental update, equal to a fresh build ---
check set 0 topo --generate open --set 32,40,0 --set 33,40,0 --set 34,40,0 --set 100,100,1 \
  --query 0,0,511,511
has set-status "update 4 edits, status built"
has set-equal "(equal)"
has set-first-digest "digest topology/region-graph cc41d76dc3627aaf"
check set-wall 0 topo "$tmp/map8.png" --threshold 100 --chunk 8 --set 20,29,0 --query 0,0,39,0
has set-wall-closes "query 0,0,39,0 unreachable"
has set-wall-equal "(equal)"

# --- sparse worlds: Indeterminate outside the resident set ---
check sparse 0 topo --generate open --size 64 --chunk 16 --sparse 0,0,1,1 --query 0,0,60,60 \
  --query 0,0,20,20 --path 0,0,60,60 --set 3,3,0
has sparse-resident "sparse: 4 of 16 chunks resident"
has sparse-indeterminate "query 0,0,60,60 indeterminate visited=0"
has sparse-reachable "query 0,0,20,20 reachable"
has sparse-no-corridor "path 0,0,60,60 indeterminate visited=0 regions=0 portals=0 chunks=0"
has sparse-update "(equal)"

# --- stairs: from a PNG and generated, edits to them ---
check stairs-png 0 topo "$tmp/map8.png" --stairs "$tmp/stairs.png" --chunk 8 \
  --query 5,5,0,6,5,1 --query 0,0,0,0,0,1 --set-stair 5,5,0,0 --png "$tmp/stairs-pic.png"
has stairs-floors "floors 2"
has stairs-up "query 5,5,0,6,5,1 reachable"
has stairs-edit "(equal)"
check stairs-generated 0 topo --generate walls --size 96 --chunk 16 --floors 3 --stair-density 30 \
  --set 5,5,2,0 --set-stair 10,10,0,1 --path 0,0,0,90,90,2
has stairs-generated-floors "floors 3"
has stairs-generated-edit "(equal)"

# --- bad input: exit 3 with the file named ---
check_err missing-file 3 "$tmp/none.png: cannot open" topo "$tmp/none.png"
check_err not-png 3 "$tmp/text.png" topo "$tmp/text.png"
check_err truncated-png 3 "$tmp/trunc.png" topo "$tmp/trunc.png"
check_err colour-png 3 "colour type 2" topo "$tmp/rgb.png"
check_err colour-stairs 3 "colour type 2" topo "$tmp/map8.png" --stairs "$tmp/rgb.png"
check_err stairs-size 3 "--stairs: the image is 8 x 8, the world 40 x 30" \
  topo "$tmp/map8.png" --stairs "$tmp/stairs-small.png"
check_err png-unwritable 3 "cannot create" topo --generate open --size 64 --png "$tmp/no/dir/x.png"

# --- bad usage: exit 2 with the reason ---
check_err no-input 2 "give one input" topo
check_err two-inputs 2 "give one input" topo "$tmp/map8.png" --generate open
check_err generate-kind 2 "--generate must be one of open, walls" topo --generate sideways
check_err lattice-kind 2 "--lattice must be one of orthogonal, hex" topo --generate open --lattice square
check_err chunk-zero 2 "--chunk must be an integer in [1, 4096]" topo --generate open --chunk 0
check_err size-range 2 "--size must be an integer in [1, 65536]" topo --generate open --size 0
check_err walls-range 2 "--walls must be an integer in [0, 100]" topo --generate walls --walls 101
check_err floors-range 2 "--floors must be an integer in [1, 64]" topo --generate open --floors 0
check_err density-range 2 "--stair-density must be an integer in [0, 1000]" \
  topo --generate open --stair-density 1001
check_err threads-range 2 "--threads must be an integer in [0, 1024]" topo --generate open --threads 2000
check_err scale-range 2 "--scale must be an integer in [1, 16]" topo --generate open --scale 0
check_err seed-negative 2 "--seed needs a non-negative integer" topo --generate open --seed -1
check_err isa-unknown 2 "--isa must be one of" topo --generate open --isa bogus
check_err threshold-generated 2 "--threshold applies to a PNG input only" topo --generate open --threshold 3
check_err size-png 2 "apply to --generate only" topo "$tmp/map8.png" --size 64
check_err hex-floors 2 "an axial-hex world has one floor" topo --generate open --lattice hex --floors 2
check_err hex-stairs 2 "stairs need floors" topo --generate open --lattice hex --stair-density 5
check_err query-form 2 "--query: '1,2,3' is not" topo --generate open --query 1,2,3
check_err query-text 2 "--query: 'a,b,c,d' is not" topo --generate open --query a,b,c,d
check_err path-form 2 "--path: '1,2,3,4,5' is not" topo --generate open --path 1,2,3,4,5
check_err set-form 2 "--set: '1,2' is not" topo --generate open --set 1,2
check_err set-value 2 "VALUE must be 0..65535" topo --generate open --set 1,2,70000
check_err set-coordinate 2 "a coordinate out of range" topo --generate open --set 99999999999,0,1
check_err set-stair-form 2 "--set-stair: '1,2,5' is not" topo --generate open --set-stair 1,2,5
check_err set-stair-dir 2 "DIR must be 0..4" topo --generate open --set-stair 1,2,0,9
check_err sparse-form 2 "--sparse: '3,3,1,1' is not" topo --generate open --sparse 3,3,1,1
check_err sparse-outside 2 "lies outside the 4 x 4 chunk grid" \
  topo --generate open --size 64 --chunk 16 --sparse 9,9,10,10
check_err set-outside 2 "is outside the 64 x 64 x 1 world" topo --generate open --size 64 --set 64,0,0
check_err set-not-resident 2 "which is not resident" \
  topo --generate open --size 64 --chunk 16 --sparse 0,0,1,1 --set 60,60,0
check_err too-many-chunks 2 "chunks (at most 2147483647)" topo --generate open --size 65536 --chunk 1
check_err picture-too-large 2 "is too large" \
  topo --generate open --size 4096 --chunk 4096 --scale 16 --png "$tmp/big.png"
queries=()
for i in $(seq 65); do queries+=(--query "0,0,$i,0"); done
check_err too-many-queries 2 "--query: at most 64" topo --generate open --size 64 "${queries[@]}"
check_err unknown-option 2 "unknown option '--frobnicate'" topo --generate open --frobnicate

smoke_summary "topology"
