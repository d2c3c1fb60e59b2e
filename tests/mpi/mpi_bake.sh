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
# Under ASan (the sanitizer build configured with -DOP_MPI=ON, ci/test.sh), Open MPI's own
# never-freed allocations are told apart from ours only by whole stacks (the slow unwinder,
# ~7x slower; tests/mpi/lsan-openmpi.supp names its libraries). So the runs through
# mpi_leaks (two plain bakes, one with a spilled gather, a failing tile, another world)
# check leaks; the others run with ASan and UBSan alone. Without ASan both are the same.
asan_base=${ASAN_OPTIONS:-}
syms=$(nm "$bin" 2>/dev/null || true)
if grep -q __asan_init <<<"$syms"; then
  export LSAN_OPTIONS="suppressions=$here/lsan-openmpi.supp:print_suppressions=0"
  export ASAN_OPTIONS="${asan_base:+$asan_base:}detect_leaks=0"
  # The ranks of a failing job exit with rank 0's code: mpirun must not kill rank 0 in its
  # leak check because another rank exited first (abort_on_non_zero_status off), and then
  # mpirun exits 0, so each rank's code is kept by a wrapper and rank 0's is returned (or
  # any other non-zero one: a leak in another rank).
  printf '#!/usr/bin/env bash\n"$@"; rc=$?; echo $rc >"%s/rc.$OMPI_COMM_WORLD_RANK"; exit $rc\n' \
    "$tmp" >"$tmp/rank_rc.sh"
  chmod +x "$tmp/rank_rc.sh"
  mpi_leaks() {
    local args=() a r rc=0
    for a in "$@"; do if [ "$a" = "$bin" ]; then args+=("$tmp/rank_rc.sh" "$a"); else args+=("$a"); fi; done
    rm -f "$tmp"/rc.*
    ASAN_OPTIONS="${asan_base:+$asan_base:}detect_leaks=1:fast_unwind_on_malloc=0" \
      OMPI_MCA_orte_abort_on_non_zero_status=0 mpi "${args[@]}" || rc=$?
    for r in "$tmp"/rc.*; do [ -e "$r" ] && [ "$rc" = 0 ] && rc=$(cat "$r"); done
    [ -e "$tmp/rc.0" ] && [ "$(cat "$tmp/rc.0")" != 0 ] && rc=$(cat "$tmp/rc.0")
    return "$rc"
  }
else
  mpi_leaks() { mpi "$@"; }
fi
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# A job that must fail fails anyway: its stderr must still hold no sanitizer report.
sane() { grep -q "Sanitizer\|runtime error" "$tmp/err" && { bad "$1: sanitizer report"; cat "$tmp/err"; } || ok; }
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
  local rc=0
  ${runner:-mpi} -n "$k" "$bin" bake "$@" --threads "$t" --mpi --quiet \
    --out "$tmp/$name.mpi.opbake" --json "$tmp/$name.mpi.json" 2>"$tmp/err" || rc=$?
  if [ "$rc" != 0 ]; then bad "$name -n $k: exit $rc"; cat "$tmp/err"; return; fi
  sane "$name -n $k"
  if cmp -s "$tmp/$name.whole.opbake" "$tmp/$name.mpi.opbake" &&
     [ "$(digest_of "$tmp/$name.whole.json")" = "$(digest_of "$tmp/$name.mpi.json")" ]; then ok
  else bad "$name -n $k: the bake file or digest differs from one process's"; fi
}

demo=(--demo --demo-size 512 --tile-size 64)
for k in 1 2 3 4; do same demo "$k" 1 -- "${demo[@]}"; done
runner=mpi_leaks same demo 2 2 -- "${demo[@]}"
runner=mpi_leaks same demo-regions 3 1 -- --demo --demo-size 256 --tile-size 48 --with-regions --raw --gather-mib 0
python3 - "$tmp/demo-regions.mpi.json" <<'PY' && ok || bad "--gather-mib 0: JSON"
import json, sys
m = json.load(open(sys.argv[1]))["mpi"]
assert m["gather_held_peak_bytes"] == 0, m  # nothing waits in memory
assert (m["gather_spilled_tiles"] == 0) == (m["gather_spilled_bytes"] == 0), m
assert m["gather_spilled_bytes"] <= m["bytes_gathered"], m
PY
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
ONEPATH_MPI_FAIL_TILE="3,2;1,5" mpi_leaks -x ONEPATH_MPI_FAIL_TILE -n 3 "$bin" bake "${demo[@]}" \
  --threads 1 --mpi --quiet --out "$tmp/f.opbake" >"$tmp/out" 2>"$tmp/err" && bad "failing tile: exit 0" ||
  { grep -q "tile (3, 2): injected failure" "$tmp/err" && grep -q "nothing written" "$tmp/err" && ok ||
    { bad "failing tile: message"; cat "$tmp/err"; }; }
grep -q "^f.opbake" <<<"$(ls "$tmp")" && bad "failing tile: a file at --out or its temporary" || ok
sane "failing tile"
# A rank that read another world.
mpi_leaks -n 1 "$bin" bake "${demo[@]}" --threads 1 --mpi --quiet --out "$tmp/g.opbake" : \
    -n 1 "$bin" bake --demo --demo-size 256 --tile-size 64 --threads 1 --mpi --quiet --out "$tmp/g.opbake" \
    >"$tmp/out" 2>"$tmp/err" && bad "foreign rank: exit 0" ||
  { grep -q "rank 1: read another world" "$tmp/err" && ok || { bad "foreign rank: message"; cat "$tmp/err"; }; }
[ -e "$tmp/g.opbake" ] && bad "foreign rank: a file at --out" || ok
sane "foreign rank"
# An input no rank can read.
mpi -n 2 "$bin" bake "$tmp/none.obj" --tile-size 64 --threads 1 --mpi --quiet --out "$tmp/h.opbake" \
    >"$tmp/out" 2>"$tmp/err" && bad "unreadable input: exit 0" ||
  { grep -q "none.obj: cannot open" "$tmp/err" && ok || { bad "unreadable input: message"; cat "$tmp/err"; }; }
sane "unreadable input"

echo "mpi bake: $pass passed, $fail failed"
[ "$fail" = 0 ]
