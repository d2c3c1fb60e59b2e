#!/usr/bin/env bash
# MPI stays in the tool (issue 14): the plain build has bake --mpi (ctest's mpi_bake ran
# it with 1 to 4 ranks), while the library and its package files name no MPI symbol or
# package, so a library user never needs MPI.
set -euo pipefail
build=${1:-build}
die() { echo "mpi: $*"; exit 1; }
tests=$(ctest --test-dir "$build" -N -R '^mpi_bake$')
grep -q "Total Tests: 1" <<<"$tests" ||
  die "ctest has no mpi_bake: configure with -DOP_MPI=ON (ci/test.sh does)"
lib=
for f in "$build"/libonepath.a "$build"/libonepath.so; do [ -e "$f" ] && lib=$f && break; done
[ -n "$lib" ] || die "no libonepath in $build"
syms=$(nm "$lib" 2>/dev/null || true) # no pipes into grep -q: pipefail would see SIGPIPE
if grep -qE ' U (P?MPI_|ompi_)' <<<"$syms"; then
  die "$lib refers to MPI"
fi
if [ -n "$(grep -il mpi "$build"/onepath.pc "$build"/onepathConfig.cmake 2>/dev/null || true)" ]; then
  die "the package files mention MPI"
fi
tool=$(nm "$build/onepath" 2>/dev/null || true)
grep -q ' U MPI_Init_thread' <<<"$tool" || die "the tool has no MPI"
echo "mpi: the tool links MPI, the library does not"
