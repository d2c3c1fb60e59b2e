#!/usr/bin/env bash
# bake --mpi (issue 14) against the one-process bake: mpirun -n 1, 2, 3 and 4 (more ranks
# than cores: oversubscribed) give the same bake file, byte for byte, and the same
# build3d/tiles digest on the demo world and random meshes, with region ids and raw loops,
# with every early tile spilled to disk (--gather-mib 0), and for the layers partition. A
# failing tile, a rank that read another world and an unreadable input fail the job with
# the reason on rank 0's stderr, a non-zero exit and no output file. Rank 0 reports
# progress and the "mpi" JSON figures.
# usage: mpi_bake.sh path/to/onepath [mpirun]
set -euo pipefail
bin=$1
mpirun=${2:-mpirun}
here="$(cd "$(dirname "$0")" && pwd)"
# In a container as root, more ranks than cores, no ptrace for single-copy transfers.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
mpi() { "$mpirun" --allow-run-as-root --oversubscribe "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
digest_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digests"]["tiles"])' "$1"; }

# same NAME RANKS THREADS -- bake options: --mpi output equals the one-process bake's.
same() {
  local name=$1 k=$2 t=$3; shift 4
  if [ ! -f "$tmp/$name.whole.opbake" ]; then
    local one=() skip=0 o
    for o in "$@"; do # --gather-mib is --mpi's alone
      if [ $skip = 1 ]; then skip=0; elif [ "$o" = --gather-mib ]; then skip=1; else one+=("$o"); fi
    done
    "$bin" bake "${one[@]}" --threads 2 --quiet --out "$tmp/$name.whole.opbake" --json "$tmp/$name.whole.json"
  fi
  rm -f "$tmp/$name.mpi.opbake"
  if ! mpi -n "$k" "$bin" bake "$@" --threads "$t" --mpi --quiet \
       --out "$tmp/$name.mpi.opbake" --json "$tmp/$name.mpi.json" 2>"$tmp/err"; then
    bad "$name -n $k: exit $?"; cat "$tmp/err"; return
  fi
  if cmp -s "$tmp/$name.whole.opbake" "$tmp/$name.mpi.opbake" &&
     [ "$(digest_of "$tmp/$name.whole.json")" = "$(digest_of "$tmp/$name.mpi.json")" ]; then ok
  else bad "$name -n $k: the bake file or digest differs from one process's"; fi
}

demo=(--demo --demo-size 512 --tile-size 64)
for k in 1 2 3 4; do same demo "$k" 1 -- "${demo[@]}"; done
same demo 2 2 -- "${demo[@]}"
same demo-regions 3 1 -- --demo --demo-size 256 --tile-size 48 --with-regions --raw --gather-mib 0
same demo-layers 2 1 -- --demo --demo-size 256 --tile-size 40 --partition layers
for seed in 1 2 3; do
  python3 "$here/random_obj.py" "$seed" $((40 + 15 * seed)) "$tmp/r$seed.obj"
  for k in 2 3; do same "random$seed" "$k" 1 -- "$tmp/r$seed.obj" --tile-size $((20 + 4 * seed)); done
done
same random1 4 1 -- "$tmp/r1.obj" --tile-size 24

# The JSON figures and the progress lines (rank 0's stderr is no terminal under mpirun).
mpi -n 2 "$bin" bake "${demo[@]}" --threads 1 --mpi --json "$tmp/p.json" >"$tmp/out" 2>"$tmp/err" &&
  grep -q "tiles 64/64 (100 %) over 2 ranks" "$tmp/err" && grep -q "mpi: 2 ranks" "$tmp/out" && ok ||
  { bad "progress"; cat "$tmp/out" "$tmp/err"; }
python3 - "$tmp/p.json" <<'PY' && ok || bad "mpi JSON"
import json, sys
m = json.load(open(sys.argv[1]))["mpi"]
assert m["ranks"] == 2 and m["sections"] == 64 and m["bytes_per_tile"] > 0, m
assert sum(r["tiles"] for r in m["per_rank"]) == 64 and len(m["per_rank"]) == 2, m
assert 0 <= m["serial_fraction"] <= 1 and m["gather"] >= 0 and m["wall"] > 0, m
PY

# A tile fails on whichever rank bakes it: the smallest failing tile is named, nothing
# is written, not even a temporary.
ONEPATH_MPI_FAIL_TILE="3,2;1,5" mpi -x ONEPATH_MPI_FAIL_TILE -n 3 "$bin" bake "${demo[@]}" \
  --threads 1 --mpi --quiet --out "$tmp/f.opbake" >"$tmp/out" 2>"$tmp/err" && bad "failing tile: exit 0" ||
  { grep -q "tile (3, 2): injected failure" "$tmp/err" && grep -q "nothing written" "$tmp/err" && ok ||
    { bad "failing tile: message"; cat "$tmp/err"; }; }
ls "$tmp" | grep -q "^f.opbake" && bad "failing tile: a file at --out or its temporary" || ok
# A rank that read another world.
mpi -n 1 "$bin" bake "${demo[@]}" --threads 1 --mpi --quiet --out "$tmp/g.opbake" : \
    -n 1 "$bin" bake --demo --demo-size 256 --tile-size 64 --threads 1 --mpi --quiet --out "$tmp/g.opbake" \
    >"$tmp/out" 2>"$tmp/err" && bad "foreign rank: exit 0" ||
  { grep -q "rank 1: read another world" "$tmp/err" && ok || { bad "foreign rank: message"; cat "$tmp/err"; }; }
[ -e "$tmp/g.opbake" ] && bad "foreign rank: a file at --out" || ok
# An input no rank can read.
mpi -n 2 "$bin" bake "$tmp/none.obj" --tile-size 64 --threads 1 --mpi --quiet --out "$tmp/h.opbake" \
    >"$tmp/out" 2>"$tmp/err" && bad "unreadable input: exit 0" ||
  { grep -q "none.obj: cannot open" "$tmp/err" && ok || { bad "unreadable input: message"; cat "$tmp/err"; }; }

echo "mpi bake: $pass passed, $fail failed"
[ "$fail" = 0 ]
